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

  it('matches across two utterances of one speaker', () => {
    const m = new StopPhraseMatcher('stop the bot');
    expect(m.hear('a', 'please stop the')).toBe(false);
    expect(m.hear('a', 'bot now')).toBe(true);
  });

  it('matches whole words only: not inside other words', () => {
    expect(new StopPhraseMatcher('end meeting').hear('a', 'we spend meetings on this')).toBe(false);
    expect(new StopPhraseMatcher('stop').hear('a', 'thanks for stopping by')).toBe(false);
    expect(new StopPhraseMatcher('thanks bot').hear('a', 'thanks, Bottega team')).toBe(false);
    expect(new StopPhraseMatcher('stop').hear('a', 'nonstop')).toBe(false);
    const m = new StopPhraseMatcher('stop');
    expect(m.hear('a', 'non')).toBe(false);
    expect(m.hear('a', 'stopping')).toBe(false);
    expect(new StopPhraseMatcher('end meeting').hear('a', 'OK — end, meeting.')).toBe(true);
    expect(new StopPhraseMatcher('goodbye bot').hear('a', 'good bye bot')).toBe(true);
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

  it('finds the phrase wherever a speaker’s words are split into utterances (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.array(fc.nat(), { maxLength: 6 }), (before, after, cuts) => {
        const phrase = 'end the meeting';
        const full = `${before} ${phrase} ${after}`;
        // Utterances end between words: cut only at spaces.
        const spaces = [...full.matchAll(/ /g)].map((m) => m.index);
        const points = [...new Set(cuts.map((c) => spaces[c % spaces.length]!))].sort((x, y) => x - y);
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
