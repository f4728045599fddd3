// The summaries benchmark's scoring and baselines (bench/summaries.ts): if ROUGE or a baseline breaks, the figures
// it reports against the QMSum gold summaries mean nothing, so these pin them on pairs worked out by hand.
import { describe, expect, it } from 'vitest';
import { leadBaseline, rouge, rougeTokens, textRankBaseline } from '../../../bench/summaries';

describe('ROUGE as the benchmark computes it (js-rouge, QMSum README settings)', () => {
  it('scores a text against itself 1 on ROUGE-1, ROUGE-2 and ROUGE-L', () => {
    const text = 'The group decided to use a kinetic charger. Marketing will prepare the trend report.';
    expect(rouge(text, text)).toEqual({ r1: 1, r2: 1, rl: 1 });
  });

  it('gives the known F1 of a small pair', () => {
    // the cat sat on the mat / the cat was on the mat: 5 of 6 words shared, 3 of 5 bigrams, LCS of 5 words.
    const r = rouge('the cat sat on the mat', 'the cat was on the mat');
    expect(r.r1).toBeCloseTo(5 / 6, 10);
    expect(r.r2).toBeCloseTo(3 / 5, 10);
    expect(r.rl).toBeCloseTo(5 / 6, 10);
  });

  it('computes ROUGE-L at summary level (union LCS per reference sentence), as ROUGE-1.5.5', () => {
    // A single LCS over the whole texts is 3 words (F1 0.5); per reference sentence both sentences match whole.
    expect(rouge('The cat sat. The dog ran.', 'The dog ran. The cat sat.').rl).toBeCloseTo(1, 10);
    // "the dog ran away": union LCS "the dog ran" = 3 → recall 3/4, precision 3/6, F1 0.6.
    expect(rouge('The cat sat. The dog ran.', 'The dog ran away.').rl).toBeCloseTo(0.6, 10);
  });

  it('ignores case and punctuation, and scores an empty candidate 0', () => {
    expect(rouge('The cat, sat!', 'the cat sat')).toEqual({ r1: 1, r2: 1, rl: 1 });
    expect(rougeTokens("It's 5 o'clock.")).toEqual(['it', 's', '5', 'o', 'clock']);
    expect(rouge('  ', 'the cat sat')).toEqual({ r1: 0, r2: 0, rl: 0 });
  });
});

describe('baselines', () => {
  const sentences = [
    'We need a new remote control design.',
    'The budget for the remote control is twelve euros.',
    'My cat likes the sofa.',
    'The remote control design must fit the budget.',
  ];

  it('LEAD takes the first sentences up to the word budget, cutting the last one', () => {
    expect(leadBaseline(sentences, 7)).toBe('We need a new remote control design.');
    expect(leadBaseline(sentences, 10)).toBe('We need a new remote control design. The budget for');
  });

  it('TextRank ranks first the sentence linked to most others, cuts the lowest-ranked one, keeps meeting order', () => {
    const hub = [
      'The remote control is black.',
      'My cat likes the sofa.',
      'The remote control budget and design were agreed.',
      'The budget design is final.',
    ];
    expect(textRankBaseline(hub, 8)).toBe('The remote control budget and design were agreed.');
    const more = textRankBaseline(hub, 11);
    expect(more).toMatch(
      /^(?:The remote control|The budget design) The remote control budget and design were agreed\.$/,
    );
    expect(rougeTokens(more)).toHaveLength(11);
    expect(more).not.toContain('cat');
  });
});
