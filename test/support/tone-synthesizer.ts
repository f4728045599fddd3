// A Synthesizer for tests and benchmarks: a 440 Hz tone, 40 ms per character, as 16 kHz 16-bit PCM (Polly's format).
import type { Synthesizer } from '../../core/ports/synthesizer';

export const toneSynthesizer: Synthesizer & { calls: { text: string; voice: string }[] } = {
  calls: [],
  async synthesize(text, voice) {
    this.calls.push({ text, voice });
    const sampleRate = 16_000;
    const n = Math.round((text.length * 40 * sampleRate) / 1000);
    const pcm = Buffer.alloc(n * 2);
    for (let i = 0; i < n; i++)
      pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 12_000), i * 2);
    return { pcm, sampleRate };
  },
};
