// The Daily bot's voice plays Polly's stream from its first bytes, in whole samples, and holds a line until released.
import { describe, expect, it } from 'vitest';
import { type AudioPlayer, dailySpeech } from '../../bot-task/providers/daily/daily-speech';
import type { Synthesizer } from '../../core/ports/synthesizer';

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
    await new Promise((r) => setTimeout(r, 20));
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
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toEqual([]);
    release(true);
    expect(await said).toBe('done');
    expect(calls).toEqual(['open 1 16000', 'push 1', 'end 1']);

    const dropped = speech.say('Never heard.', { startWhen: Promise.resolve(false) });
    expect(await dropped).toBe('interrupted');
    expect(calls).toHaveLength(3);
  });
});
