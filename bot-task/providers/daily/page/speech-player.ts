// The bot's voice in its page: a WebAudio microphone Daily sends, fed 16-bit mono PCM one streamed line at a time.

let audioContext: AudioContext | undefined;
/** The bot's voice, on its way to the microphone and the recording. */
let voice: GainNode | undefined;

export function microphoneTrack(): MediaStreamTrack {
  audioContext = new AudioContext({ sampleRate: 48_000 });
  const microphone = audioContext.createMediaStreamDestination();
  voice = audioContext.createGain();
  voice.connect(microphone);
  return microphone.stream.getAudioTracks()[0]!;
}

/** The page's audio clock and the bot's voice, once the microphone is made. */
export const botAudio = () => (audioContext && voice ? { audioContext, voice } : undefined);

export const closeAudio = () => audioContext?.close().catch(() => {});

/**
 * The streamed line being played: its chunks are scheduled back to back on the audio clock as they arrive, so the
 * first one is heard while the synthesizer still sends the rest. A chunk that arrives late (the clock passed the end
 * of the one before) starts at once.
 */
let streamed:
  | {
      line: number;
      sampleRate: number;
      /** The audio clock time the next chunk starts at. */
      next: number;
      sources: Set<AudioBufferSourceNode>;
      ended: boolean;
      done?: (outcome: 'done' | 'interrupted') => void;
    }
  | undefined;

export function openAudio(line: number, sampleRate: number): void {
  stopSpeech();
  if (!audioContext) return;
  void audioContext.resume();
  streamed = { line, sampleRate, next: 0, sources: new Set(), ended: false };
}

export function pushAudio(line: number, pcmBase64: string): void {
  const s = streamed;
  if (!s || s.line !== line || !audioContext || !voice) return;
  const bytes = Uint8Array.from(atob(pcmBase64), (c) => c.charCodeAt(0));
  const samples = new Int16Array(bytes.buffer, 0, Math.floor(bytes.length / 2));
  if (!samples.length) return;
  const buffer = audioContext.createBuffer(1, samples.length, s.sampleRate);
  const channel = buffer.getChannelData(0);
  for (let i = 0; i < samples.length; i++) channel[i] = samples[i]! / 32768;
  const source = audioContext.createBufferSource();
  source.buffer = buffer;
  source.connect(voice);
  const at = Math.max(audioContext.currentTime, s.next);
  s.next = at + buffer.duration;
  s.sources.add(source);
  source.onended = () => {
    s.sources.delete(source);
    if (s.ended && !s.sources.size && streamed === s) {
      streamed = undefined;
      s.done?.('done');
    }
  };
  source.start(at);
}

export function endAudio(line: number): Promise<'done' | 'interrupted'> {
  const s = streamed;
  if (!s || s.line !== line) return Promise.resolve('interrupted');
  s.ended = true;
  return new Promise((resolve) => {
    s.done = resolve;
    if (!s.sources.size) {
      streamed = undefined;
      resolve('done');
    }
  });
}

export function stopSpeech(): void {
  const line = streamed;
  if (!line) return;
  streamed = undefined;
  for (const source of line.sources) {
    source.onended = null;
    try {
      source.stop();
    } catch {}
  }
  line.done?.('interrupted');
}
