// The local evaluation against the rubric (core/insights/rubric.ts): scripted personas answering the same three
// interview questions must come out in the order a reader would put them, with evidence from their answers.
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../core/engines/rules/insights/evaluation';
import { analyseLocally } from '../../../core/engines/rules/insights/local-engine';
import { extractQaPairs } from '../../../core/engines/rules/insights/qa-pairs';
import { buildTurns } from '../../../core/engines/rules/insights/text';
import { interviewAnchors, meetingAnchors, rubricText } from '../../../core/insights/rubric';
import type { Insights } from '../../../core/schemas/results';
import {
  type Persona,
  personaCandidate,
  personaInterview,
  personaQuestions,
} from '../../fixtures/insights/personas';
import { playInterview, scriptedInterviews } from '../../fixtures/insights/scripted-interviews';
import { syntheticMeeting } from '../../fixtures/insights/synthetic';
import { isFromTranscript } from './helpers';

function insightsOf(persona: Persona, analysisPrompt?: string): Insights {
  return analyseLocally({
    utterances: personaInterview(persona),
    botName: 'Ava',
    processInsights: true,
    analysisPrompt,
  }).insights!;
}

const personas = ['strong', 'bluffer', 'evasive', 'rambling'] as const;
const scores = Object.fromEntries(personas.map((p) => [p, insightsOf(p).overall_score])) as Record<
  Persona,
  number
>;

/** The quotes ("…") inside a strength or weakness. */
const quotesIn = (sentence: string) => [...sentence.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);

describe('local evaluation of scripted interview personas', () => {
  it('orders them as the rubric does: strong ≫ bluffer > evasive, rambling well below strong', () => {
    expect(scores.strong).toBeGreaterThanOrEqual(85);
    expect(scores.strong - scores.bluffer).toBeGreaterThanOrEqual(10);
    expect(scores.bluffer).toBeGreaterThan(scores.evasive);
    expect(scores.strong - scores.rambling).toBeGreaterThanOrEqual(10);
    expect(scores.rambling).toBeGreaterThan(scores.evasive);
    expect(scores.evasive).toBeLessThanOrEqual(20);
  });

  it('assesses each question with a verbatim quote of its answer', () => {
    for (const p of personas) {
      const utterances = personaInterview(p);
      const answers = utterances.filter((u) => u.speaker === personaCandidate(p));
      const insights = insightsOf(p);
      expect(insights.score_basis).toBe('interview');
      expect(insights.question_assessments).toHaveLength(3);
      insights.question_assessments!.forEach((a, i) => {
        expect(a.question).toContain(personaQuestions[i]);
        expect(a).toMatchObject({ asked_by: 'Ava', answered_by: personaCandidate(p) });
        expect(isFromTranscript(a.evidence.replace(/…$/, ''), [answers[i]!]), a.evidence).toBe(true);
      });
    }
  });

  it('strong: specific answers, and strengths that quote them', () => {
    const insights = insightsOf('strong');
    expect(insights.question_assessments!.map((a) => [a.answered, a.quality])).toEqual([
      ['yes', 5],
      ['yes', 5],
      ['yes', 5],
    ]);
    expect(insights.strengths).toContainEqual(
      'Answered "What was the hardest bug you have had to fix?" concretely, naming Kafka and Postgres, with figures and a measurable result, saying what they did themselves: "A race condition in our Kafka consumer that double-charged about 40 customers a month."',
    );
    expect(insights.unanswered).toEqual([]);
  });

  it('bluffer: confident but empty answers are quality 2 at most, and the weaknesses quote the buzzwords', () => {
    const insights = insightsOf('bluffer');
    for (const a of insights.question_assessments!) expect(a.quality).toBeLessThanOrEqual(2);
    expect(insights.weaknesses).toHaveLength(3);
    for (const w of insights.weaknesses) {
      expect(w).toMatch(/^Stayed vague on "/);
      expect(w).toMatch(/, but no figure, name or outcome\.$/);
    }
    expect(insights.weaknesses.join(' ')).toContain('"world-class"');
    // Answering every question is not praised when the answers have no substance.
    expect(insights.strengths.join(' ')).not.toMatch(/questions got/i);
  });

  it('evasive: every question counts as dodged, and the weaknesses name what was dodged and how', () => {
    const insights = insightsOf('evasive');
    expect(insights.question_assessments!.map((a) => a.answered)).toEqual(['no', 'no', 'no']);
    expect(insights.unanswered).toEqual(insights.question_assessments!.map((a) => a.question));
    // The weakest (the shortest dodge) first.
    expect(insights.weaknesses).toEqual([
      'Dodged "How do you test your code?": "It depends on the project, really. What does your team do for testing?"',
      'Dodged "Tell me about the last project you worked on.": "I\'d rather not get into the details of that one, it\'s a bit sensitive."',
      'Dodged "What was the hardest bug you have had to fix?": "Hard to say, I don\'t remember any particular bug."',
    ]);
    expect(insights.strengths.join(' ')).not.toMatch(/answer/i);
  });

  it('rambling: long, filler-heavy answers are called out with their length and a quote', () => {
    const insights = insightsOf('rambling');
    expect(insights.weaknesses).toContainEqual(
      expect.stringMatching(
        /^Rambled on "Tell me about the last project you worked on\." \(111 words, many of them fillers\) without a clear point: "/,
      ),
    );
    expect(insights.weaknesses.at(-1)).toMatch(
      /^Used many filler words \(about \d+ in every 100\), e\.g\. "/,
    );
  });

  it('every strength and weakness quotes this interview', () => {
    for (const p of personas) {
      const utterances = personaInterview(p);
      const insights = insightsOf(p);
      for (const line of [...insights.strengths, ...insights.weaknesses]) {
        const quotes = quotesIn(line);
        const facts = /\d/.test(line) || line.includes(personaCandidate(p));
        expect(quotes.length > 0 || facts, line).toBe(true);
        for (const q of quotes) {
          if (/^[\w-]+( \w+)*$/.test(q) && q.split(' ').length <= 3) continue; // a quoted buzzword
          expect(isFromTranscript(q.replace(/^…|…$/g, ''), utterances), q).toBe(true);
        }
      }
    }
  });

  it('says which parts of an analysis prompt it could not follow', () => {
    const plain = insightsOf('rambling');
    const insights = insightsOf(
      'rambling',
      'Rate the candidate for a senior backend role. Pay special attention to clarity and filler words.',
    );
    const rules = expect.stringMatching(
      /^Judged by rules, not a model: .* cannot judge whether an answer is true/,
    );
    expect(insights.engine_notes).toEqual([
      rules,
      'Analysis prompt: the local engine weighted clarity (fillers) double, as the prompt asks.',
      'Analysis prompt not followed by the local engine (it scores fixed, measurable features): "Rate the candidate for a senior backend role.".',
    ]);
    expect(insights.overall_score).toBeLessThan(plain.overall_score);
    expect(plain.engine_notes).toEqual([rules]);

    // The summary-format prompt's unfollowed parts are noted too (the checker of core/engines/rules/insights/summary.ts).
    const french = analyseLocally({
      utterances: personaInterview('strong'),
      botName: 'Ava',
      processInsights: true,
      summaryFormatPrompt: 'Three bullet points, in French.',
    }).insights!;
    expect(french.engine_notes).toEqual([
      rules,
      expect.stringMatching(/^Summary format not followed: .*French/),
    ]);
  });

  it('says what of a greeting instruction the conversation rules could not follow, when they greeted', async () => {
    const s = scriptedInterviews[0]!;
    const greeting =
      'Greet the candidate warmly, mention our benefits and introduce yourself as the screening assistant';
    const { transcript } = await playInterview({ ...s, greeting });
    expect(transcript[0]!.text).toBe("Hello Sam, I'm Iris, the screening assistant.");
    const notes = analyseLocally({
      utterances: transcript,
      botName: 'Iris',
      processInsights: true,
      botGreeting: greeting,
    }).insights!.engine_notes!;
    expect(notes).toContainEqual(
      `The bot's local rules (no model) followed the greeting instruction "${greeting}" as far as rules can: they said "Hello Sam, I'm Iris, the screening assistant. It's great to have you here"; they could not follow "mention our benefits" (a model follows such instructions in its own words).`,
    );
    // A model greeted (its own words): no such note.
    const byModel = transcript.map((u, i) =>
      i === 0 ? { ...u, text: 'Hi Sam! I am Iris and I will screen you today.' } : u,
    );
    const modelNotes = analyseLocally({
      utterances: byModel,
      botName: 'Iris',
      processInsights: true,
      botGreeting: greeting,
    }).insights!.engine_notes!;
    expect(modelNotes.join(' ')).not.toMatch(/greeting instruction/);
  });

  it('counts an unanswered question kept with an empty answer as not answered', () => {
    const utterances = personaInterview('strong');
    const turns = buildTurns(utterances, 'Ava');
    const qa = extractQaPairs(turns);
    const withGap = { ...qa, pairs: qa.pairs.map((p, i) => (i === 1 ? { ...p, answer: '' } : p)) };
    const e = evaluate({ utterances, turns, qa: withGap, actionItems: [], botName: 'Ava' });
    expect(e.question_assessments[1]).toMatchObject({ answered: 'no', quality: 1, evidence: '' });
    expect(e.unanswered).toEqual([personaQuestions[1]]);
    expect(e.weaknesses[0]).toBe(`Did not answer "${personaQuestions[1]}".`);
  });
});

describe('score basis', () => {
  it('a working meeting is scored on the meeting rubric, not as an interview', () => {
    const utterances = syntheticMeeting(3000, 5);
    const insights = analyseLocally({ utterances, processInsights: true }).insights!;
    expect(insights.score_basis).toBe('meeting');
    // A bot that only takes notes does not make a meeting an interview.
    const withBot = analyseLocally({
      utterances: [
        { ...utterances[0]!, speaker: 'Scribe', text: 'Hello, I am taking notes.' },
        ...utterances,
      ],
      botName: 'Scribe',
      processInsights: true,
    }).insights!;
    expect(withBot.score_basis).toBe('meeting');
  });

  it('the rubric text for models carries every anchor', () => {
    const text = rubricText();
    for (const a of [...interviewAnchors, ...meetingAnchors])
      expect(text).toContain(`${a.score}: ${a.means}`);
    expect(text).toMatch(/quality 1-5: 5 = /);
  });
});
