import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { questionKind } from '../../../core/engines/rules/insights/questions';
import {
  buildTurns,
  fillerCount,
  splitSentences,
  tidySentence,
  truncateWords,
  turnText,
  words,
} from '../../../core/engines/rules/insights/text';

describe('questionKind', () => {
  it.each([
    ['Can you tell that story from your perspective?', 'question'],
    ['The initial takedown - was it automated, or a decision one of your employees made?', 'question'],
    ['Tell me about the big release.', 'question'],
    ['So, walk us through your hiring process', 'question'],
    ['What do you think about the new design', 'question'],
    ['I was wondering if you could share the numbers.', 'question'],
    ['Do you have any questions for me', 'question'],
    ["Don't you think so?", 'question'],
    ["That's pretty cool, right?", 'tag'],
    ['It turned into an opportunity, didn’t it?', 'tag'],
    ['It was great, you know?', 'tag'],
    ["That's cool right?", 'tag'],
    ['Was it?', 'echo'],
    ['Really?', 'echo'],
    ['Right?', 'echo'],
    ['We think "Why not dump it down?"', null],
    ['I was like, "What?!', null],
    ["What's interesting is that nobody asked.", null],
    ['Which was kind of funny.', null],
    ['We shipped it in March.', null],
  ])('%s → %s', (sentence, kind) => {
    expect(questionKind(sentence)).toBe(kind);
  });

  it('never throws (property)', () => {
    fc.assert(fc.property(fc.string(), (s) => [null, 'question', 'tag', 'echo'].includes(questionKind(s))));
  });
});

describe('sentences and words', () => {
  it('splits at sentence ends, not at abbreviations, initials or lower-case continuations', () => {
    expect(
      splitSentences('Hello there. Dr. Smith met J. Doe at 5 p.m. today! Is it true? yes... Maybe.'),
    ).toEqual(['Hello there.', 'Dr. Smith met J. Doe at 5 p.m. today!', 'Is it true? yes...', 'Maybe.']);
    expect(splitSentences('First paragraph\n\nsecond paragraph')).toEqual([
      'First paragraph',
      'second paragraph',
    ]);
  });

  it('loses no word when splitting (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(words(splitSentences(s).join(' '))).toEqual(words(s));
      }),
    );
  });

  it('truncates to at most the given number of words (property)', () => {
    const text = fc
      .array(
        fc.tuple(
          fc.array(fc.constantFrom('alpha', 'beta', '42', '-', 'gamma'), { maxLength: 30 }),
          fc.boolean(),
        ),
      )
      .map((sentences) => sentences.map(([ws, end]) => `${ws.join(' ')}${end ? '.' : ''}`).join(' '));
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 60 }), (t, max) => {
        expect(words(truncateWords(t, max)).length).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('tidies a spoken sentence for a summary', () => {
    expect(tidySentence('yeah, so um we decided to use a kinetic charger [laughs]')).toBe(
      'We decided to use a kinetic charger.',
    );
    expect(tidySentence('Uh I will start.')).toBe('I will start.');
  });

  it('counts hesitations and filler phrases', () => {
    expect(fillerCount('Um, I mean, it was, uh, kind of okay, you know.')).toBe(5);
    expect(fillerCount('We measured the latency.')).toBe(0);
  });
});

describe('buildTurns', () => {
  const u = (speaker: string, text: string, i: number) => ({
    speaker,
    participant_id: speaker,
    started_at: new Date(Date.UTC(2024, 0, 1, 10, 0, i)).toISOString(),
    text,
  });

  it('merges a speaker’s consecutive lines and stitches a sentence broken by a back-channel', () => {
    const turns = buildTurns([
      u('A', 'We are going to discuss each one', 0),
      u('B', 'Mm-hmm.', 1),
      u('A', 'and we will agree on a rating.', 2),
      u('A', 'Is that okay?', 3),
      u('B', 'Yeah.', 4),
      u('A', 'Good.', 5),
    ]);
    expect(turns.map((t) => [t.speaker, turnText(t)])).toEqual([
      ['A', 'We are going to discuss each one and we will agree on a rating. Is that okay?'],
      ['B', 'Yeah.'],
      ['A', 'Good.'],
    ]);
    expect(turns[0]!.sentences.map((s) => s.utterance)).toEqual([0, 2, 3]);
  });

  it('marks the bot by flag or by name', () => {
    const turns = buildTurns(
      [{ ...u('Ava', 'Hello!', 0), is_bot: true }, u('Max', 'Hi.', 1), u('Bob', 'Hey.', 2)],
      'Bob',
    );
    expect(turns.map((t) => t.isBot)).toEqual([true, false, true]);
  });
});
