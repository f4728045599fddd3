// Port: text → speech audio (Amazon Polly in AWS): 16-bit little-endian mono PCM.

export interface SynthesizedSpeech {
  pcm: Buffer;
  sampleRate: number;
}

export interface Synthesizer {
  synthesize(text: string, voice: string): Promise<SynthesizedSpeech>;
}
