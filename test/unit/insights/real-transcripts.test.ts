// The local engine on the seven real transcripts of ../shared/data/transcripts (skipped where that folder is
// absent, as in a user's clone): properties a reader would check, not exact texts.
import { describe, expect, it } from 'vitest';
import { analyseLocally } from '../../../core/engines/rules/insights/local-engine';
import { defaultQaOptions } from '../../../core/engines/rules/insights/qa-pairs';
import { insightsSchema, qaPairSchema } from '../../../core/schemas/results';
import { loadRealTranscripts, toUtterances } from '../../fixtures/insights/transcripts';
import { requires, skipReason } from '../../support/requirements';
import { isFromTranscript } from './helpers';

const transcripts = loadRealTranscripts();

/** Fewest Q&A pairs a reader finds in each interview (counted by hand: 8, 17 and 25 real exchanges). */
const minPairs: Record<string, number> = {
  'interview_changelog_spotlight-8': 5,
  'interview_practical-ai-17_hiring': 12,
  'interview_founders-talk-79': 15,
};

/** Asks something: ends with "?" or opens like a question or a request, independent of the engine's rules. */
const interrogative = new RegExp(
  [
    '\\?["\'”’)\\]]*$',
    '(?:^|[.!?…]\\s*)(?:\\w+,?\\s+){0,2}(?:what|why|how|when|where|who|which|can|could|would|will|do|does|did|is|are|was|were|have|has|should|shall|tell|walk|describe|explain|share|give)\\b',
    '\\b(?:could|can|would|will) you\\b|\\bwondering (?:if|whether)\\b',
  ].join('|'),
  'i',
);

/** Words as the README counts them: whitespace-separated tokens with a letter or digit. */
const wordsIn = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

const skip = skipReason(
  requires.other(
    '../shared data',
    transcripts.length === 0
      ? 'the real transcripts of ../shared/data/transcripts are not on this machine'
      : undefined,
    false,
  ),
);

describe.skipIf(skip)('local engine on real transcripts', () => {
  for (const t of transcripts) {
    describe(t.name, () => {
      const utterances = toUtterances(t.turns);
      const speakers = new Set(t.turns.map((x) => x.speaker));
      const result = analyseLocally({ utterances, processInsights: true });
      const insights = insightsSchema.parse(result.insights);

      it('Q&A pairs: real questions, answered by someone else, in order, bounded', () => {
        expect(result.qaPairs.length).toBeGreaterThanOrEqual(minPairs[t.name] ?? 1);
        let last = '';
        for (const p of result.qaPairs) {
          qaPairSchema.parse(p);
          expect(p.question).toMatch(interrogative);
          expect(speakers.has(p.asked_by!)).toBe(true);
          expect(speakers.has(p.answered_by!)).toBe(true);
          expect(p.answered_by).not.toBe(p.asked_by);
          expect(wordsIn(p.answer)).toBeLessThanOrEqual(defaultQaOptions.maxAnswerWords);
          expect(p.asked_at! >= last).toBe(true);
          last = p.asked_at!;
        }
      });

      if (t.kind === 'interview') {
        it('interview: most pairs are a host asking and the guest answering', () => {
          const words = new Map<string, number>();
          for (const x of t.turns)
            words.set(x.speaker, (words.get(x.speaker) ?? 0) + x.text.split(/\s+/).length);
          const guest = [...words.entries()].sort((a, b) => b[1] - a[1])[0]![0];
          const hostToGuest = result.qaPairs.filter((p) => p.asked_by !== guest && p.answered_by === guest);
          expect(hostToGuest.length / result.qaPairs.length).toBeGreaterThanOrEqual(0.7);
        });
      }

      it('summary: who met about what, in the third person, under 250 words', () => {
        const [first] = insights.summary.split('\n');
        expect(first).toMatch(/ (?:met|spoke) about /);
        expect([...speakers].some((p) => first!.includes(p))).toBe(true);
        expect(insights.summary).not.toMatch(/\b(?:I|I'm|I'll|I've|we|we're|we'll|our|us|my)\b/);
        expect(insights.summary.split(/\s+/).length).toBeLessThan(250);
      });

      it('evaluation: scored on the basis of its kind, with topics', () => {
        expect(insights.score_basis).toBe(t.kind);
        expect(insights.overall_score).toBeGreaterThanOrEqual(0);
        expect(insights.overall_score).toBeLessThanOrEqual(100);
        expect(insights.strengths.length).toBeGreaterThan(0);
        expect(insights.weaknesses.length).toBeGreaterThan(0);
        expect(insights.topics!.length).toBeGreaterThanOrEqual(3);
        for (const item of insights.action_items!)
          expect(speakers.has(item.slice(0, item.indexOf(': ')))).toBe(true);
      });

      it('evaluation: every assessment, strength and weakness rests on this transcript', () => {
        // A quote is from the transcript, or from an answer as the engine stitched it across back-channels.
        const isQuoted = (q: string) => {
          const text = q.replace(/…$/, '');
          return isFromTranscript(text, utterances) || result.qaPairs.some((p) => p.answer.includes(text));
        };
        expect(insights.question_assessments!.length).toBeGreaterThan(0);
        for (const a of insights.question_assessments!) {
          if (a.evidence) expect(isQuoted(a.evidence), a.evidence).toBe(true);
          else expect(a.answered).toBe('no');
          expect(speakers.has(a.asked_by!)).toBe(true);
        }
        expect(insights.unanswered).toEqual(
          insights.question_assessments!.filter((a) => a.answered === 'no').map((a) => a.question),
        );
        for (const line of [...insights.strengths, ...insights.weaknesses]) {
          // Quotes are cut with "…", and the quotes inside them turned into single ones.
          const quotes = [...line.matchAll(/"([^"]+)"/g)].map((m) =>
            m[1]!.replace(/^…/, '').replace(/(^|[\s(])'|'(?=[\s,.;:!?)]|$)/g, '$1'),
          );
          const fact = /\d/.test(line) || [...speakers].some((s) => line.includes(s));
          expect(quotes.length > 0 || fact, line).toBe(true);
          for (const q of quotes) expect(isQuoted(q), q).toBe(true);
        }
      });

      it('is deterministic', () => {
        expect(analyseLocally({ utterances: toUtterances(t.turns), processInsights: true })).toEqual(result);
      });
    });
  }

  it('scores follow what happened in each conversation, not its kind', { timeout: 60_000 }, () => {
    const insightsOf = (name: string) => {
      const t = transcripts.find((x) => x.name === name)!;
      return analyseLocally({ utterances: toUtterances(t.turns), processInsights: true }).insights!;
    };
    const meetings = transcripts.filter((t) => t.kind === 'meeting').map((t) => insightsOf(t.name));
    const interviews = transcripts.filter((t) => t.kind === 'interview').map((t) => insightsOf(t.name));
    // The meeting where decisions are made (AMI ES2004d) ranks first; the research meeting that left about a
    // third of its questions open (ICSI Bed003) last.
    const decisions = insightsOf('meeting_ami_ES2004d');
    const open = insightsOf('meeting_icsi_Bed003');
    expect(decisions.overall_score).toBe(Math.max(...meetings.map((i) => i.overall_score)));
    expect(open.overall_score).toBe(Math.min(...meetings.map((i) => i.overall_score)));
    expect(open.unanswered!.length / open.question_assessments!.length).toBeGreaterThan(0.3);
    expect(decisions.strengths[0]).toMatch(/decisions or next steps were stated, e\.g\. Project Manager: "/);
    // Podcasts are judged by their answers: none scores like a flawless candidate, and no kind owns a band.
    for (const i of interviews) expect(i.overall_score).toBeLessThan(85);
    expect(Math.min(...interviews.map((i) => i.overall_score))).toBeLessThan(
      Math.max(...meetings.map((i) => i.overall_score)),
    );
  });

  it('assessments a reader would agree with', () => {
    const assessments = (name: string) => {
      const t = transcripts.find((x) => x.name === name)!;
      return analyseLocally({ utterances: toUtterances(t.turns), processInsights: true }).insights!
        .question_assessments!;
    };
    expect(assessments('interview_founders-talk-79')).toContainEqual(
      expect.objectContaining({
        question: 'Octokit was a thing back then?',
        answered: 'no',
        evidence: "Yeah, I know what you're talking about, but I can't remember either.",
      }),
    );
    expect(assessments('interview_practical-ai-17_hiring')).toContainEqual(
      expect.objectContaining({
        question: "Now you're a director of data science at HireVue. Is that correct?",
        answered: 'yes',
        quality: 3,
        evidence: 'Yes.',
      }),
    );
    expect(assessments('interview_changelog_spotlight-8')).toContainEqual(
      expect.objectContaining({
        question: 'Can you tell that story from your perspective?',
        answered: 'yes',
        quality: 5,
        answered_by: 'Sid Sijbrandij',
      }),
    );
  });

  it('spot checks that a reader would agree with', () => {
    const pairsOf = (name: string) => {
      const t = transcripts.find((x) => x.name === name)!;
      return analyseLocally({ utterances: toUtterances(t.turns), processInsights: false }).qaPairs;
    };
    expect(pairsOf('interview_changelog_spotlight-8')).toContainEqual(
      expect.objectContaining({
        question: 'Can you tell that story from your perspective?',
        asked_by: 'Jerod Santo',
        answered_by: 'Sid Sijbrandij',
        answer: expect.stringMatching(/^Yeah, of course\. So Saturday morning I woke up/),
      }),
    );
    expect(pairsOf('interview_practical-ai-17_hiring')).toContainEqual(
      expect.objectContaining({
        question: "Now you're a director of data science at HireVue. Is that correct?",
        answer: 'Yes.',
        answered_by: 'Lindsey Zuloaga',
      }),
    );
    // A quoted question inside an answer ('we think "Why not dump it down?"') is not a question to the host.
    expect(pairsOf('interview_changelog_spotlight-8').some((p) => p.asked_by === 'Sid Sijbrandij')).toBe(
      false,
    );
  });
});
