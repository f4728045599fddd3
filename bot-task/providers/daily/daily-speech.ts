// The Daily bot's voice: each line is synthesized as a stream and played into the page's microphone from its first
// bytes. A held line (SayOptions.startWhen) is synthesized at once and kept until released, so a reply's next line is
// ready when the one before has been heard.
import type { Speech, SpeechOutcome } from '../../../core/ports/speech';
import type { SpeechStream, Synthesizer } from '../../../core/ports/synthesizer';

/** The bot page's player (page/speech-player.ts), one line at a time; benchmarks and tests pass a recorder. */
export interface AudioPlayer {
  /** A new line at `sampleRate` begins (what was playing is cut off). */
  open(line: number, sampleRate: number): Promise<void>;
  /** 16-bit little-endian mono PCM of that line, whole samples, base64: played right after what came before. */
  push(line: number, pcmBase64: string): Promise<void>;
  /** The line has no more audio: resolves when it has been heard, or 'interrupted' once stop() cut it off. */
  end(line: number): Promise<SpeechOutcome>;
  stop(): void;
}

export interface DailySpeechOptions {
  synthesizer: Synthesizer;
  voice: string;
  player: AudioPlayer;
  /** Sends a line as the room's chat message. */
  write(text: string): Promise<void>;
  closing(): boolean;
}

export function dailySpeech(o: DailySpeechOptions): Speech {
  /** Bumped by stop(): every line said before it is cut off, playing or prepared. */
  let generation = 0;
  let lines = 0;
  /** Ends the synthesis of lines that were cut off (a barge-in while Polly still sends). */
  const aborts = new Set<AbortController>();
  return {
    async say(text, options) {
      const mine = ++lines;
      const said = generation;
      const current = () => said === generation && !o.closing();
      const abort = new AbortController();
      aborts.add(abort);
      try {
        const audio = await streamOf(o.synthesizer, text, o.voice, abort.signal);
        const chunks = pcmChunks(audio.chunks);
        if (options?.startWhen && !(await options.startWhen)) return 'interrupted';
        if (!current()) return 'interrupted';
        await o.player.open(mine, audio.sampleRate);
        for await (const pcm of chunks) {
          if (!current()) return 'interrupted';
          await o.player.push(mine, pcm.toString('base64'));
        }
        if (!current()) return 'interrupted';
        return await o.player.end(mine);
      } finally {
        aborts.delete(abort);
        abort.abort();
      }
    },
    write: (text) => o.write(text),
    stop() {
      generation++;
      for (const abort of aborts) abort.abort();
      o.player.stop();
    },
  };
}

async function streamOf(
  synthesizer: Synthesizer,
  text: string,
  voice: string,
  signal: AbortSignal,
): Promise<SpeechStream> {
  if (synthesizer.stream) return synthesizer.stream(text, voice, signal);
  const whole = await synthesizer.synthesize(text, voice);
  return { sampleRate: whole.sampleRate, chunks: once(whole.pcm) };
}

async function* once(pcm: Uint8Array): AsyncIterable<Uint8Array> {
  yield pcm;
}

/**
 * The stream read ahead into whole 16-bit samples: reading starts at once (so a held line's audio is ready when it
 * is released) and a byte split off by a chunk boundary is kept for the next chunk. A failed stream fails the reader.
 */
function pcmChunks(source: AsyncIterable<Uint8Array>): AsyncIterable<Buffer> {
  const ready: Buffer[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let failure: unknown;
  let carry = Buffer.alloc(0);
  const reading = (async () => {
    try {
      for await (const chunk of source) {
        const bytes = carry.length ? Buffer.concat([carry, chunk]) : Buffer.from(chunk);
        const whole = bytes.length - (bytes.length % 2);
        carry = bytes.subarray(whole);
        if (whole > 0) ready.push(bytes.subarray(0, whole));
        wake?.();
      }
    } catch (err) {
      failure = err;
    } finally {
      finished = true;
      wake?.();
    }
  })();
  void reading;
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = ready.shift();
        if (next) {
          yield next;
          continue;
        }
        if (failure) throw failure;
        if (finished) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
  };
}
