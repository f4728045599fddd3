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

/** A stand-in of the SDK client: records what it is sent and answers with a body the test controls chunk by chunk. */
function pollyStandIn(body: AsyncIterable<Uint8Array> | undefined) {
  const calls: { input: unknown; abortSignal?: AbortSignal }[] = [];
  const client = {
    async send(command: SynthesizeSpeechCommand, options?: { abortSignal?: AbortSignal }) {
      calls.push({ input: command.input, abortSignal: options?.abortSignal });
      return { AudioStream: body };
    },
  } as unknown as PollyClient;
  return { client, calls };
}

/** A body whose chunks are released one at a time, as Polly sends them while it synthesizes. */
function trickle() {
  const waiting: ((chunk: Uint8Array | null) => void)[] = [];
  const queued: (Uint8Array | null)[] = [];
  const next = () =>
    new Promise<Uint8Array | null>((resolve) => {
      const q = queued.shift();
      if (q !== undefined) resolve(q);
      else waiting.push(resolve);
    });
  return {
    send(chunk: Uint8Array | null) {
      const w = waiting.shift();
      if (w) w(chunk);
      else queued.push(chunk);
    },
    body: {
      async *[Symbol.asyncIterator]() {
        for (let c = await next(); c; c = await next()) yield c;
      },
    } as AsyncIterable<Uint8Array>,
  };
}

describe('Polly synthesizer, streamed', () => {
  it('hands over the first chunk before Polly has sent the rest, with the same request as synthesize', async () => {
    const source = trickle();
    const { client, calls } = pollyStandIn(source.body);
    const abort = new AbortController();
    const out = await new PollySynthesizer(client).stream('Thank you.', 'Joanna', abort.signal);
    expect(out.sampleRate).toBe(pollySampleRate);
    expect(calls[0]!.input).toEqual({
      Text: 'Thank you.',
      VoiceId: 'Joanna',
      Engine: 'neural',
      OutputFormat: 'pcm',
      SampleRate: '16000',
      TextType: 'text',
    });
    // The caller's signal reaches the SDK: a line cut off mid-synthesis ends Polly's response.
    expect(calls[0]!.abortSignal).toBe(abort.signal);

    const reader = out.chunks[Symbol.asyncIterator]();
    source.send(new Uint8Array([1, 0]));
    // Only one chunk was sent: it arrives on its own, without waiting for the end of the body.
    expect(await reader.next()).toEqual({ done: false, value: new Uint8Array([1, 0]) });
    source.send(new Uint8Array([2, 0, 3]));
    expect(await reader.next()).toEqual({ done: false, value: new Uint8Array([2, 0, 3]) });
    source.send(null);
    expect((await reader.next()).done).toBe(true);
  });

  it('fails loudly when Polly answers without an audio stream', async () => {
    const { client } = pollyStandIn(undefined);
    await expect(new PollySynthesizer(client).stream('Hi.', 'Joanna')).rejects.toThrow(
      'Polly returned no audio stream',
    );
  });
});
