// The Daily bot's voice plays Polly's stream from its first bytes, in whole samples, and holds a line until released.
import { describe, expect, it } from 'vitest';
import { type AudioPlayer, dailySpeech } from '../../bot-task/providers/daily/daily-speech';
import type { Synthesizer } from '../../core/ports/synthesizer';
import { quietFor, until } from '../support/until';

function recorder() {
  const calls: string[] = [];
  const pushed: Buffer[] = [];
  const player: AudioPlayer = {
    open: async (line, rate) => void calls.push(`open ${line} ${rate}`),
    push: async (line, pcm) => {
      calls.push(`push ${line}`);
      pushed.push(Buffer.from(pcm, 'base64'));
    },
    end: async (line) => {
      calls.push(`end ${line}`);
      return 'done';
    },
    stop: () => void calls.push('stop'),
  };
  return { player, calls, pushed };
}

/** A synthesizer whose stream sends `chunks`, the second one only when `more` is called. */
function streaming(chunks: number[][]) {
  let more: () => void = () => {};
  const gate = new Promise<void>((r) => {
    more = r;
  });
  const synthesizer: Synthesizer = {
    synthesize: async () => {
      throw new Error('not used');
    },
    stream: async () => ({
      sampleRate: 16_000,
      chunks: (async function* () {
        yield new Uint8Array(chunks[0]!);
        await gate;
        for (const c of chunks.slice(1)) yield new Uint8Array(c);
      })(),
    }),
  };
  return { synthesizer, more };
}

describe('daily speech', () => {
  it('plays the first bytes before the rest has arrived, in whole samples', async () => {
    const { player, calls, pushed } = recorder();
    const { synthesizer, more } = streaming([
      [1, 0, 2],
      [0, 3, 0],
    ]);
    const speech = dailySpeech({
      synthesizer,
      voice: 'Joanna',
      player,
      write: async () => {},
      closing: () => false,
    });
    const said = speech.say('Hello.');
    await until(() => calls.includes('push 1'), 2000);
    // The first whole sample is playing; its stray byte waits for the next chunk.
    expect(calls).toEqual(['open 1 16000', 'push 1']);
    more();
    expect(await said).toBe('done');
    expect(Buffer.concat(pushed)).toEqual(Buffer.from([1, 0, 2, 0, 3, 0]));
    expect(pushed.map((p) => p.length)).toEqual([2, 4]);
  });

  it('holds a line until it is released, and drops it unheard when it is not', async () => {
    const { player, calls } = recorder();
    const { synthesizer, more } = streaming([[1, 0]]);
    more();
    const speech = dailySpeech({
      synthesizer,
      voice: 'Joanna',
      player,
      write: async () => {},
      closing: () => false,
    });
    let release: (go: boolean) => void = () => {};
    const said = speech.say('Hello.', { startWhen: new Promise((r) => (release = r)) });
    // Held: nothing of it is played until it is released.
    await quietFor(20);
    expect(calls).toEqual([]);
    release(true);
    expect(await said).toBe('done');
    expect(calls).toEqual(['open 1 16000', 'push 1', 'end 1']);

    const dropped = speech.say('Never heard.', { startWhen: Promise.resolve(false) });
    expect(await dropped).toBe('interrupted');
    expect(calls).toHaveLength(3);
  });

  describe('a reply of several lines', () => {
    /** A player whose lines play until the test ends them (or stop() cuts them off). */
    function slowPlayer() {
      const calls: string[] = [];
      const playing = new Map<number, (o: 'done' | 'interrupted') => void>();
      const player: AudioPlayer = {
        open: async (line) => void calls.push(`open ${line}`),
        push: async (line) => void calls.push(`push ${line}`),
        end: (line) => {
          calls.push(`end ${line}`);
          return new Promise((resolve) => playing.set(line, resolve));
        },
        stop: () => {
          calls.push('stop');
          for (const finish of playing.values()) finish('interrupted');
        },
      };
      return { player, calls, finish: (line: number) => playing.get(line)?.('done') };
    }

    /** A synthesizer that records each request and whether its stream was aborted. */
    function recordingSynthesizer() {
      const requests: { text: string; signal: AbortSignal }[] = [];
      const synthesizer: Synthesizer = {
        synthesize: async () => {
          throw new Error('not used');
        },
        stream: async (text, _voice, signal) => {
          requests.push({ text, signal: signal! });
          return {
            sampleRate: 16_000,
            chunks: (async function* () {
              yield new Uint8Array([1, 0]);
            })(),
          };
        },
      };
      return { synthesizer, requests };
    }

    it('synthesizes the next line while the one before plays, and plays it right after, in order', async () => {
      const { player, calls, finish } = slowPlayer();
      const { synthesizer, requests } = recordingSynthesizer();
      const speech = dailySpeech({
        synthesizer,
        voice: 'Joanna',
        player,
        write: async () => {},
        closing: () => false,
      });
      const first = speech.say('Thank you,');
      await until(() => calls.includes('end 1'), 2000);
      const second = speech.say('that is helpful.', { startWhen: first.then((o) => o === 'done') });
      await until(() => requests.length === 2, 2000);
      // Polly is already at work on the second line while the first plays; nothing of it is heard yet.
      expect(requests.map((r) => r.text)).toEqual(['Thank you,', 'that is helpful.']);
      expect(calls).toEqual(['open 1', 'push 1', 'end 1']);
      finish(1);
      expect(await first).toBe('done');
      await until(() => calls.includes('end 2'), 2000);
      expect(calls).toEqual(['open 1', 'push 1', 'end 1', 'open 2', 'push 2', 'end 2']);
      finish(2);
      expect(await second).toBe('done');
    });

    it('drops the prepared line, and ends its synthesis, when the line before is cut off', async () => {
      const { player, calls } = slowPlayer();
      const { synthesizer, requests } = recordingSynthesizer();
      const speech = dailySpeech({
        synthesizer,
        voice: 'Joanna',
        player,
        write: async () => {},
        closing: () => false,
      });
      const first = speech.say('Thank you,');
      await until(() => calls.includes('end 1'), 2000);
      const second = speech.say('that is helpful.', { startWhen: first.then((o) => o === 'done') });
      await until(() => requests.length === 2, 2000);
      expect(requests[1]!.signal.aborted).toBe(false);
      speech.stop(); // barge-in
      expect(await first).toBe('interrupted');
      expect(await second).toBe('interrupted');
      expect(requests[1]!.signal.aborted).toBe(true);
      // The second line was never opened on the page.
      expect(calls).toEqual(['open 1', 'push 1', 'end 1', 'stop']);
    });

    it('a line prepared while another still streams does not cut that one off', async () => {
      const { player, calls, finish } = slowPlayer();
      const { synthesizer: rest, requests } = recordingSynthesizer();
      // The first line's audio is still coming from Polly when the next line is said.
      const { synthesizer: first_, more } = streaming([
        [1, 0],
        [2, 0],
      ]);
      const synthesizer: Synthesizer = {
        synthesize: rest.synthesize,
        stream: (text, voice, signal) => (text === 'Hello.' ? first_ : rest).stream!(text, voice, signal),
      };
      const speech = dailySpeech({
        synthesizer,
        voice: 'Joanna',
        player,
        write: async () => {},
        closing: () => false,
      });
      const first = speech.say('Hello.');
      await until(() => calls.includes('push 1'), 2000);
      let release: (go: boolean) => void = () => {};
      const held = speech.say('Held.', { startWhen: new Promise((r) => (release = r)) });
      await until(() => requests.length === 1, 2000);
      more();
      await until(() => calls.includes('end 1'), 2000);
      expect(calls).toEqual(['open 1', 'push 1', 'push 1', 'end 1']);
      finish(1);
      expect(await first).toBe('done');
      release(true);
      await until(() => calls.includes('end 2'), 2000);
      finish(2);
      expect(await held).toBe('done');
      expect(calls).not.toContain('stop');
    });
  });
});
