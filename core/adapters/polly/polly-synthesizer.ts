// Synthesizer on Amazon Polly: PCM at 16 kHz, the neural engine where the voice supports it.
import { type PollyClient, SynthesizeSpeechCommand } from '@aws-sdk/client-polly';
import type { SynthesizedSpeech, Synthesizer } from '../../ports/synthesizer';
import { type VoiceId, voices } from '../../voices';

export const pollySampleRate = 16_000;

export class PollySynthesizer implements Synthesizer {
  constructor(private readonly polly: PollyClient) {}

  async synthesize(text: string, voice: string): Promise<SynthesizedSpeech> {
    const info = voices[voice as VoiceId];
    const out = await this.polly.send(
      new SynthesizeSpeechCommand({
        Text: text,
        VoiceId: voice as VoiceId,
        Engine: info?.neural === false ? 'standard' : 'neural',
        OutputFormat: 'pcm',
        SampleRate: String(pollySampleRate),
        TextType: 'text',
      }),
    );
    const bytes = out.AudioStream ? await out.AudioStream.transformToByteArray() : new Uint8Array();
    return { pcm: Buffer.from(bytes), sampleRate: pollySampleRate };
  }
}
