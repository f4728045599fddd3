// Port: text → speech audio (Amazon Polly in AWS): 16-bit little-endian mono PCM.

export interface SynthesizedSpeech {
  pcm: Buffer;
  sampleRate: number;
}

/** Audio as the synthesizer sends it: the first bytes can be played while the rest is still coming. */
export interface SpeechStream {
  sampleRate: number;
  /** PCM in the order it arrives; chunk boundaries may fall inside a sample (the consumer keeps a stray byte). */
  chunks: AsyncIterable<Uint8Array>;
}

export interface Synthesizer {
  synthesize(text: string, voice: string): Promise<SynthesizedSpeech>;
  /**
   * Optional: the same audio streamed (played from its first bytes). `signal` abandons it. Without it,
   * players fall back to synthesize().
   */
  stream?(text: string, voice: string, signal?: AbortSignal): Promise<SpeechStream>;
}
