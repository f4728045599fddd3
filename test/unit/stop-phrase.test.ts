import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeForMatch, StopPhraseMatcher } from '../../core/bots/stop-phrase';

describe('stop phrase', () => {
  it('ignores case, punctuation and whitespace', () => {
    const m = new StopPhraseMatcher('Stop the bot');
    expect(m.hear('a', 'ok, please STOP — the   bot!')).toBe(true);
    expect(new StopPhraseMatcher('stop-the-bot').hear('a', 'Stop the bot.')).toBe(true);
    expect(new StopPhraseMatcher('café stop').hear('a', 'CAFE STOP')).toBe(true);
  });

  it('matches across a word split between two chunks of one speaker', () => {
    const m = new StopPhraseMatcher('stop the bot');
    expect(m.hear('a', 'please stop the bo')).toBe(false);
    expect(m.hear('a', 't now')).toBe(true);
  });

  it('never combines two speakers', () => {
    const m = new StopPhraseMatcher('stop the bot');
    expect(m.hear('a', 'please stop the')).toBe(false);
    expect(m.hear('b', 'bot is nice')).toBe(false);
  });

  it('does not match a different phrase', () => {
    const m = new StopPhraseMatcher('goodbye bot');
    expect(m.hear('a', 'good bye robot')).toBe(false);
    expect(m.hear('a', 'goodbye')).toBe(false);
    expect(m.hear('a', 'everyone')).toBe(false);
  });

  it('an empty or punctuation-only phrase never triggers', () => {
    expect(new StopPhraseMatcher('...').hear('a', 'anything ...')).toBe(false);
  });

  it('finds the phrase wherever a speaker’s text is split into chunks (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.array(fc.nat(), { maxLength: 6 }), (before, after, cuts) => {
        const phrase = 'end the meeting';
        const full = `${before} ${phrase} ${after}`;
        const points = [...new Set(cuts.map((c) => c % (full.length + 1)))].sort((x, y) => x - y);
        const chunks: string[] = [];
        let last = 0;
        for (const p of points) {
          chunks.push(full.slice(last, p));
          last = p;
        }
        chunks.push(full.slice(last));
        const m = new StopPhraseMatcher(phrase);
        expect(chunks.map((c) => m.hear('s', c)).some(Boolean)).toBe(true);
      }),
    );
  });

  it('normalises to letters and digits', () => {
    expect(normalizeForMatch(' Hello, World 42! ')).toBe('helloworld42');
  });
});
