// End of turn: a finished sentence is answered sooner than before, and a person who pauses mid-sentence is
// not interrupted more often than under the old fixed 700 ms rule. These are pauses inside a sentence only: between two
// sentences of a longer answer the shorter wait speaks sooner, which the last case here shows and the turn-taking
// benchmark measures on real answers (`npm run bench -- turn-taking`, docs/benchmarks.md).
import { describe, expect, it } from 'vitest';
import { endingOf, endOfTurnWaitMs, turnTakingDefaults } from '../../core/conversation/turn-taking';

const adaptive = turnTakingDefaults;
const old = { ...turnTakingDefaults, mode: 'fixed' as const };

/**
 * Pauses inside sentences, as a streaming transcription hands them over: the words finalized at the pause (Deepgram
 * punctuates a fragment rarely, and sometimes with a comma or a period after "and"), and how long the person then
 * stayed silent before going on. Pauses from 300 ms (a breath) to 1.4 s (searching for a word).
 */
const midSentencePauses: { before: string; pauseMs: number }[] = [
  { before: 'I worked on the billing system and', pauseMs: 900 },
  { before: 'I worked on the billing system and.', pauseMs: 800 },
  { before: 'My biggest strength is', pauseMs: 1_200 },
  { before: 'We moved the invoices to', pauseMs: 1_000 },
  { before: 'um', pauseMs: 1_100 },
  { before: 'So the first thing I did was,', pauseMs: 1_300 },
  { before: 'The hardest part was the', pauseMs: 750 },
  { before: 'the.', pauseMs: 900 },
  { before: 'I think that', pauseMs: 1_400 },
  { before: 'We tested it with', pauseMs: 650 },
  { before: 'I led a team of', pauseMs: 1_000 },
  { before: 'because', pauseMs: 800 },
  { before: 'and then', pauseMs: 720 },
  { before: 'I used Great Expectations for the', pauseMs: 950 },
  { before: 'It took about', pauseMs: 1_100 },
  { before: 'The pipeline runs on Delta Lake', pauseMs: 500 },
  { before: 'The pipeline runs on Delta Lake', pauseMs: 900 },
  { before: 'I reduced the job from three hours', pauseMs: 800 },
  { before: 'My number is 0171.', pauseMs: 600 },
  { before: 'Well', pauseMs: 300 },
];

/** The bot speaks into the pause when the silence it waits for is shorter than the pause. */
const interrupts = (rule: typeof adaptive) =>
  midSentencePauses.filter((p) => endOfTurnWaitMs(p.before, rule) < p.pauseMs);

describe('end of turn', () => {
  it('interrupts a person pausing inside a sentence no more often than the old fixed 700 ms (and here less)', () => {
    const before = interrupts(old);
    const now = interrupts(adaptive);
    expect(now.length).toBeLessThanOrEqual(before.length);
    // Every pause the new rule speaks into, the old one did too.
    for (const p of now) expect(before).toContain(p);
    // The old rule spoke into most of these pauses; the new one only into unclear words held past 700 ms.
    expect(before.length).toBeGreaterThanOrEqual(15);
    expect(now.map((p) => p.before)).toEqual([
      'The pipeline runs on Delta Lake',
      'I reduced the job from three hours',
    ]);
  });

  it('answers a finished sentence or question sooner than the old rule', () => {
    for (const text of [
      'I rebuilt our billing pipeline in TypeScript.',
      'Could you say a bit more about the role?',
      'Sorry to cut in!',
      'I logged in.',
      'Yes.',
    ]) {
      expect(endingOf(text), text).toBe('complete');
      expect(endOfTurnWaitMs(text, adaptive)).toBeLessThan(endOfTurnWaitMs(text, old));
    }
  });

  it('reads how the words end', () => {
    expect(endingOf('and the.')).toBe('incomplete');
    expect(endingOf('I think,')).toBe('incomplete');
    expect(endingOf('It was a long story...')).toBe('incomplete');
    expect(endingOf('Yes')).toBe('unclear');
    expect(endingOf('My number is 0171.')).toBe('unclear');
    expect(endingOf('')).toBe('unclear');
    expect(endOfTurnWaitMs('and', old)).toBe(700);
  });

  it('speaks into a pause between two sentences of a longer answer sooner than the old rule, unless the meaning holds it', () => {
    const asked = 'Can you tell me about a project you are proud of?';
    // The first sentences of multi-sentence answers, each followed in the transcript by more of the answer.
    for (const [first, answer] of [
      ['Sure.', 'Sure.'],
      ['There are two reasons.', 'There are two reasons.'],
      [
        'Last year I led the migration of our billing system.',
        'Last year I led the migration of our billing system.',
      ],
    ]) {
      expect(endOfTurnWaitMs(first!, adaptive)).toBeLessThan(endOfTurnWaitMs(first!, old));
      expect(endOfTurnWaitMs(first!, adaptive, { asked, answer: answer! })).toBe(adaptive.incompleteMs);
    }
  });
});
