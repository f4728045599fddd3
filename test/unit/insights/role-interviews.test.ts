// An offline digest a person would write, for interviews outside software too (test/fixtures/insights/role-interviews.ts:
// a nurse, a warehouse picker, a teacher, a sales rep, a chef, an accountant and a backend engineer): the planted facts
// kept with their names whole, counts that match the interview, sentences in grammatical third person, a one-word
// answer called one word, strengths and weaknesses without software words for a non-software role, and the same
// results whether the candidate answered early (over the question), on time or late.
import { describe, expect, it } from 'vitest';
import { namedThings } from '../../../core/engines/rules/insights/answer-signals';
import { analyseLocally } from '../../../core/engines/rules/insights/local-engine';
import { questionTopic } from '../../../core/engines/rules/insights/topics';
import {
  type RoleInterview,
  roleInterviews,
  roleTranscript,
  type Timing,
} from '../../fixtures/insights/role-interviews';
import { summarySentences } from './helpers';

const analysed = (s: RoleInterview, timing?: Timing) => {
  const utterances = roleTranscript(s, timing);
  return analyseLocally({ utterances, botName: s.botName, processInsights: true });
};

const kept = (summary: string, facts: readonly string[]) =>
  facts.filter((f) => summary.toLowerCase().includes(f.toLowerCase()));

/** Words of software work, wrong in a nurse's or a chef's evaluation. */
const softwarePhrasing = /\b(?:tools?|shipp?(?:ed|ing)?|code|coding|deploy\w*|outcomes?|bugs?)\b/i;

/** Fragments of the digests a new user saw: names cut, words lost, verbs that do not agree. */
const knownBad = [
  /\bat Mary's\b/,
  /\bnaming St\b(?!\.)/,
  /\bat Patel's\b/,
  /\bthey available\b/,
  /\bthey free\b/,
  /\bsats\b/,
  /\bHargreaves & the\b/,
  /\bsaid that the Ivy\b/,
  /\b(?:said|answered) that (?:about|around|from|mostly)\b/,
  /\bthey (?:is|was|has|does|doesn't)\b/,
  /…["”]?:/,
];

describe('role interviews: the offline digest', () => {
  it.each(roleInterviews.map((s) => [s.name, s] as const))('%s', (_name, s) => {
    const insights = analysed(s).insights!;
    const { summary, strengths, weaknesses } = insights;
    const first = s.candidate.split(' ')[0]!;

    // At least 80% of the planted facts, names whole ("St. Mary's Hospital", "Hargreaves & Co.").
    const hits = kept(summary, s.facts);
    expect(
      hits.length / s.facts.length,
      `missing: ${s.facts.filter((f) => !hits.includes(f))}`,
    ).toBeGreaterThanOrEqual(0.8);

    // Counts that match the interview.
    const tally = s.answered === s.questions ? 'all answered' : `${s.answered} answered`;
    expect(summary.split('\n')[0]).toBe(
      `${s.botName} interviewed ${s.candidate} (${s.questions} questions, ${tally}).`,
    );
    expect(insights.question_assessments!).toHaveLength(s.questions);
    expect(insights.question_assessments!.filter((a) => a.answered !== 'no')).toHaveLength(s.answered);

    // Sentences a person would write: none of the known-bad fragments, every sentence closed, a name never followed
    // by a plural verb.
    const all = [summary, ...strengths, ...weaknesses];
    for (const bad of knownBad) for (const text of all) expect(text).not.toMatch(bad);
    for (const sentence of summarySentences(summary)) {
      expect(sentence).toMatch(/^["“]?[A-Z]/);
      expect(sentence).toMatch(/[.!?…]["”]?$/);
      expect(sentence).not.toMatch(new RegExp(`\\b${first} (?:are|were|have|do|don't)\\b`));
    }

    // In the words of the role.
    if (!s.software) {
      for (const text of [...strengths, ...weaknesses, insights.engine_notes![0]!])
        expect(text).not.toMatch(softwarePhrasing);
    }

    // A one-word answer is called one word.
    for (const q of s.oneWord ?? []) {
      expect(weaknesses.some((w) => w.includes(`a one-word answer to "${q}"`))).toBe(true);
      expect(weaknesses.join(' ')).not.toMatch(/\b(?:two|three)-word answer\b/);
    }

    // Every question names a topic (where it names something) before the recurring words.
    expect(insights.topics!.length).toBeGreaterThanOrEqual(s.questions - 1);
  });

  it("the nurse's digest states her facts as a reader would", () => {
    const nurse = roleInterviews.find((s) => s.name === 'nurse')!;
    const { summary, strengths, weaknesses, topics } = analysed(nurse).insights!;
    expect(summary).toContain("the last four at St. Mary's Hospital on the cardiac ward");
    expect(summary).toContain("Before that Maria worked nights at Dr. Patel's clinic in Leeds.");
    expect(summary).toContain('Maria sat with him for an hour, explained each step');
    expect(summary).toContain('Maria is available 36 hours a week and is happy to work nights.');
    expect(summary).toContain('Maria answered "Patiently."');
    expect(strengths[0]).toContain("naming St. Mary's Hospital, Dr. Patel, and Leeds");
    expect(weaknesses[0]).toBe(
      'Gave a one-word answer to "How would you describe your bedside manner?": "Patiently.", with nothing to back it up.',
    );
    expect(topics!.slice(0, 4)).toEqual([
      'nursing experience',
      'frightened patient',
      'hours a week',
      'bedside manner',
    ]);
  });

  it('retains at least 80% of all planted facts together', () => {
    let hit = 0;
    let all = 0;
    for (const s of roleInterviews) {
      hit += kept(analysed(s).insights!.summary, s.facts).length;
      all += s.facts.length;
    }
    expect(hit / all).toBeGreaterThanOrEqual(0.8);
  });
});

describe('role interviews: answered early, on time or late', () => {
  it.each(roleInterviews.map((s) => [s.name, s] as const))(
    '%s: the same pairs, summary and evaluation',
    (_n, s) => {
      const early = analysed(s, 'early');
      const onTime = analysed(s, 'on-time');
      const late = analysed(s, 'late');
      // The early transcript has every question cut off by the answer, and no "Let me finish my question." line.
      const cut = roleTranscript(s, 'early').filter((u) => u.is_bot && u.text.endsWith('…'));
      expect(cut.length).toBeGreaterThanOrEqual(s.questions);
      expect(roleTranscript(s, 'early').some((u) => /let me finish/i.test(u.text))).toBe(false);

      const pairs = (r: typeof early) => r.qaPairs.map((p) => [p.question, p.answer, p.answered_by]);
      expect(pairs(early)).toEqual(pairs(onTime));
      expect(pairs(late)).toEqual(pairs(onTime));
      const { engine_notes: _e, ...expected } = onTime.insights!;
      for (const r of [early, late]) {
        const { engine_notes: _n, ...got } = r.insights!;
        expect(got).toEqual(expected);
      }
    },
  );
});

describe('names whole, and what each question is about', () => {
  it('keeps titles, possessives inside a name, company endings and numbers of a name', () => {
    expect(
      namedThings("I've worked at St. Mary's Hospital and before that at Dr. Patel's clinic in Leeds."),
    ).toEqual(["St. Mary's Hospital", 'Dr. Patel', 'Leeds']);
    expect(namedThings("Before that I was a commis at Mr. Lee's Noodle Bar.")).toEqual([
      "Mr. Lee's Noodle Bar",
    ]);
    expect(namedThings('At Hargreaves & Co. the close took ten days.')).toEqual(['Hargreaves & Co.']);
    expect(namedThings('I teach Year 4 at Oakfield Primary School.')).toEqual([
      'Year 4',
      'Oakfield Primary School',
    ]);
    // A function word opening the sentence, a month and the speaker's "I" are no part of a name.
    expect(namedThings('At Monzo I built it. Last March it failed. By July he read.')).toEqual(['Monzo']);
    // A possessive of a company before a product is two names.
    expect(namedThings("We moved to Google's Kubernetes Engine.")).toEqual(['Google', 'Kubernetes Engine']);
  });

  it('names the topic of a question', () => {
    expect(questionTopic('Tell me about your nursing experience?')).toBe('nursing experience');
    expect(questionTopic('How many hours a week are you available?')).toBe('hours a week');
    expect(questionTopic('Have you driven a forklift?')).toBe('forklift');
    expect(questionTopic('How many years have you worked with PySpark?')).toBe('PySpark');
    expect(questionTopic('What motivates you?')).toBe('motivation');
    expect(questionTopic('Where have you worked before?')).toBeNull();
  });
});
