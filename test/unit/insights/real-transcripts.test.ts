// The local engine on the seven real transcripts of ../shared/data/transcripts (skipped where that folder is
// absent, as in a user's clone): properties a reader would check, not exact texts.
import { describe, expect, it } from 'vitest';
import { analyseLocally } from '../../../core/insights/local-engine';
import { defaultQaOptions } from '../../../core/insights/qa-pairs';
import { insightsSchema, qaPairSchema } from '../../../core/schemas/api';
import { loadRealTranscripts, toUtterances } from '../../fixtures/insights/transcripts';
import { isFromTranscript, summarySentences } from './helpers';

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

describe.skipIf(transcripts.length === 0)('local engine on real transcripts', () => {
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

      it('summary: 3 to 7 sentences, each said in the transcript', () => {
        const sentences = summarySentences(insights.summary);
        expect(sentences.length).toBeGreaterThanOrEqual(3);
        expect(sentences.length).toBeLessThanOrEqual(7);
        for (const s of sentences) expect(isFromTranscript(s, utterances), s).toBe(true);
        expect(insights.summary.split(/\s+/).length).toBeLessThan(400);
      });

      it('evaluation: a score in range, strengths and weaknesses, topics', () => {
        expect(insights.overall_score).toBeGreaterThanOrEqual(0);
        expect(insights.overall_score).toBeLessThanOrEqual(100);
        expect(insights.strengths.length).toBeGreaterThan(0);
        expect(insights.weaknesses.length).toBeGreaterThan(0);
        expect(insights.topics!.length).toBeGreaterThanOrEqual(3);
        for (const item of insights.action_items!)
          expect(speakers.has(item.slice(0, item.indexOf(': ')))).toBe(true);
      });

      it('is deterministic', () => {
        expect(analyseLocally({ utterances: toUtterances(t.turns), processInsights: true })).toEqual(result);
      });
    });
  }

  it('scores the podcast interviews above the meetings (answers are developed and specific)', () => {
    const scores = transcripts.map((t) => ({
      kind: t.kind,
      score: analyseLocally({ utterances: toUtterances(t.turns), processInsights: true }).insights!
        .overall_score,
    }));
    const lowestInterview = Math.min(...scores.filter((s) => s.kind === 'interview').map((s) => s.score));
    const highestMeeting = Math.max(...scores.filter((s) => s.kind === 'meeting').map((s) => s.score));
    expect(lowestInterview).toBeGreaterThan(highestMeeting);
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
