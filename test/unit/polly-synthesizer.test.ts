import { PollyClient, SynthesizeSpeechCommand } from '@aws-sdk/client-polly';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { PollySynthesizer, pollySampleRate } from '../../core/adapters/polly/polly-synthesizer';

describe('Polly synthesizer', () => {
  it('asks for 16 kHz PCM with the neural engine where the voice has it, standard otherwise', async () => {
    const polly = mockClient(PollyClient);
    const pcm = Buffer.from([1, 0, 2, 0, 3, 0]);
    // The SDK's streaming body: only the method the adapter reads is needed.
    const audio = { transformToByteArray: async () => new Uint8Array(pcm) };
    polly.on(SynthesizeSpeechCommand).resolves({ AudioStream: audio as never });
    const synth = new PollySynthesizer(new PollyClient({ region: 'us-east-1' }));

    const out = await synth.synthesize('Hello there.', 'Joanna');
    expect(out).toEqual({ pcm, sampleRate: pollySampleRate });
    expect(polly.commandCalls(SynthesizeSpeechCommand)[0]!.args[0].input).toEqual({
      Text: 'Hello there.',
      VoiceId: 'Joanna',
      Engine: 'neural',
      OutputFormat: 'pcm',
      SampleRate: '16000',
      TextType: 'text',
    });
    await synth.synthesize('Hi.', 'Russell');
    expect(polly.commandCalls(SynthesizeSpeechCommand)[1]!.args[0].input.Engine).toBe('standard');
    polly.restore();
  });
});
