// The embedded default InsightsEngine: deterministic rules, no model (README.md in this folder explains them).

import type { Utterance } from '../../../bots/transcript';
import type { InsightsEngine, InsightsRequest, InsightsResult } from '../../../ports/insights-engine';
import {
  askedAt,
  hasSpeech,
  namedBy,
  silentSessionInsights,
  validatedResult,
} from '../../../ports/insights-engine';
import type { QaPair } from '../../../schemas/results';
import { greetingPlan } from '../conversation/greeting';
import { type Evaluation, evaluate } from './evaluation';
import type { ExtractedPair, QaExtraction, QaOptions } from './qa-pairs';
import { defaultQaOptions, extractQaPairs } from './qa-pairs';
import { parseSummaryFormat, summarise, summaryFormatNote } from './summary';
import type { InterviewDigestInput } from './summary-interview';
import { buildTurns, isBotUtterance, quote, type Turn } from './text';
import { extractActionItems, extractTopics, interviewTopics } from './topics';

/** `insights.engine` of the rules engine. */
export const localEngineName = 'local-rules';

export class LocalInsightsEngine implements InsightsEngine {
  private readonly qaOptions: QaOptions;

  constructor(options: Partial<QaOptions> = {}) {
    this.qaOptions = { ...defaultQaOptions, ...options };
  }

  async analyse(req: InsightsRequest): Promise<InsightsResult> {
    return namedBy(localEngineName, analyseLocally(req, this.qaOptions));
  }
}

/** The whole local analysis, synchronous: turns → Q&A pairs → (when asked for) summary, evaluation, topics. */
export function analyseLocally(
  req: InsightsRequest,
  qaOptions: QaOptions = defaultQaOptions,
): InsightsResult {
  if (!hasSpeech(req.utterances)) {
    return validatedResult({ qaPairs: [], insights: req.processInsights ? silentSessionInsights() : null });
  }
  const turns = buildTurns(req.utterances, req.botName);
  const qa = extractQaPairs(turns, qaOptions);
  const qaPairs = qa.pairs.map((p) => toQaPair(p, req.utterances));
  if (!req.processInsights) return validatedResult({ qaPairs, insights: null });

  const actionItems = extractActionItems(turns);
  const evaluation = evaluate({
    utterances: req.utterances,
    turns,
    qa,
    // The meeting rubric counts every commitment, not only the ones listed.
    actionItems: extractActionItems(turns, Number.POSITIVE_INFINITY),
    botName: req.botName,
    analysisPrompt: req.analysisPrompt,
  });
  const interview = digest(evaluation, qa, turns);
  // An interview's topics are what its questions asked about, each one, before the words that recurred.
  const questions = qa.exchanges.filter((e, i) => e.askedByBot && !qa.asked[i]?.toBot).map((e) => e.question);
  return validatedResult({
    qaPairs,
    insights: {
      summary: summarise(turns, parseSummaryFormat(req.summaryFormatPrompt), interview),
      overall_score: evaluation.overall_score,
      strengths: evaluation.strengths,
      weaknesses: evaluation.weaknesses,
      topics: interview ? interviewTopics(questions, turns) : extractTopics(turns),
      action_items: actionItems,
      score_basis: evaluation.score_basis,
      question_assessments: evaluation.question_assessments,
      unanswered: evaluation.unanswered,
      engine_notes: [
        rulesNote(evaluation),
        ...notes(greetingNote(req.botGreeting, req.utterances, req.botName)),
        ...evaluation.engine_notes,
        ...notes(summaryFormatNote(req.summaryFormatPrompt)),
      ],
    },
  });
}

const notes = (note: string | null) => (note ? [note] : []);

/** What rules cannot judge, said once in every result of the rules engine. */
function rulesNote({ score_basis: basis, words }: Evaluation): string {
  return basis === 'interview'
    ? `Judged by rules, not a model: the answers were scored on what can be counted (figures, ${words.named}s, ${words.result}s, what the candidate did themselves, dodges, filler words). The local engine cannot judge whether an answer is true, how sound the reasoning is, or how well the candidate fits the role.`
    : 'Judged by rules, not a model: the meeting was scored on what can be counted (decisions, next steps, answered questions, specifics, who spoke, filler words). The local engine cannot judge whether what was said is right, or how good the decisions are.';
}

/**
 * What the rules said for a greeting instruction and what they could not follow; null when bot_greeting is a
 * sentence to say, or when the bot's first words are not the rules' greeting (a model greeted).
 */
function greetingNote(
  greeting: string | undefined,
  utterances: readonly Utterance[],
  botName?: string,
): string | null {
  const first = utterances.find((u) => isBotUtterance(u, botName))?.text.trim();
  if (!greeting?.trim() || !first) return null;
  const humans = [...new Set(utterances.filter((u) => !isBotUtterance(u, botName)).map((u) => u.speaker))];
  const rooms = [undefined, ...humans.map((h) => [h]), humans.length > 1 ? humans : []];
  const opened = (botName ?? '').trim();
  for (const people of rooms) {
    const plan = greetingPlan({ botName: opened, greeting, people, questions: 0 });
    if (!plan.instruction || !first.startsWith(plan.text.split('. ')[0]!)) continue;
    const said = `The bot's local rules (no model) followed the greeting instruction ${quoted(greeting)} as far as rules can: they said ${quoted(plan.text)}`;
    return plan.unfollowed.length
      ? `${said}; they could not follow ${plan.unfollowed.map(quoted).join(', ')} (a model follows such instructions in its own words).`
      : `${said}, not words of their own.`;
  }
  return null;
}

const quoted = (text: string) => quote(text.trim().replace(/[.!]+$/, ''));

/**
 * What an interview the bot led is summarised from: its questions one by one. A conversation people led (a podcast,
 * a meeting) keeps the meeting summary, which reads its talk better than a question-by-question digest.
 */
function digest(
  evaluation: Evaluation,
  qa: QaExtraction,
  turns: readonly Turn[],
): InterviewDigestInput | undefined {
  if (evaluation.score_basis !== 'interview' || !qa.exchanges.some((e) => e.askedByBot)) return undefined;
  const dodged = new Set(
    evaluation.question_assessments.filter((a) => a.answered === 'no').map((a) => a.question),
  );
  const answeredBack = new Map(
    evaluation.question_assessments
      .filter((a) => a.answered === 'yes' && !qa.pairs.some((p) => p.question === a.question))
      .map((a) => [a.question, a.evidence] as const),
  );
  return { turns, qa, dodged, askedBack: answeredBack };
}

function toQaPair(p: ExtractedPair, utterances: readonly Utterance[]): QaPair {
  return {
    question: p.question,
    answer: p.answer,
    asked_by: p.askedBy,
    answered_by: p.answeredBy,
    asked_at: askedAt(utterances[p.utterance]),
  };
}
