// Synthesizer on Amazon Polly: PCM at 16 kHz, the neural engine where the voice supports it. Polly sends the audio as
// a chunked HTTP body while it synthesizes; stream() hands those chunks on as they arrive.
import { type PollyClient, SynthesizeSpeechCommand } from '@aws-sdk/client-polly';
import type { SpeechStream, SynthesizedSpeech, Synthesizer } from '../../ports/synthesizer';
import { type VoiceId, voices } from '../../voices';

export const pollySampleRate = 16_000;

export class PollySynthesizer implements Synthesizer {
  constructor(private readonly polly: PollyClient) {}

  async synthesize(text: string, voice: string): Promise<SynthesizedSpeech> {
    const out = await this.polly.send(this.command(text, voice));
    const bytes = out.AudioStream ? await out.AudioStream.transformToByteArray() : new Uint8Array();
    return { pcm: Buffer.from(bytes), sampleRate: pollySampleRate };
  }

  async stream(text: string, voice: string, signal?: AbortSignal): Promise<SpeechStream> {
    const out = await this.polly.send(this.command(text, voice), { abortSignal: signal });
    // In Node the SDK's AudioStream is the response's Readable (an async iterable of Buffers).
    const body = out.AudioStream as unknown as AsyncIterable<Uint8Array> | undefined;
    if (!body || typeof body[Symbol.asyncIterator] !== 'function')
      throw new Error('Polly returned no audio stream');
    return { sampleRate: pollySampleRate, chunks: body };
  }

  private command(text: string, voice: string) {
    const info = voices[voice as VoiceId];
    return new SynthesizeSpeechCommand({
      Text: text,
      VoiceId: voice as VoiceId,
      Engine: info?.neural === false ? 'standard' : 'neural',
      OutputFormat: 'pcm',
      SampleRate: String(pollySampleRate),
      TextType: 'text',
    });
  }
}
