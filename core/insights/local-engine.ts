// The embedded default InsightsEngine: deterministic rules, no model (README.md in this folder explains them).

import type { Utterance } from '../bots/transcript';
import {
  askedAt,
  hasSpeech,
  type InsightsEngine,
  type InsightsRequest,
  type InsightsResult,
  namedBy,
  silentSessionInsights,
  validatedResult,
} from '../ports/insights-engine';
import type { QaPair } from '../schemas/api';
import { type Evaluation, evaluate } from './evaluation';
import {
  defaultQaOptions,
  type ExtractedPair,
  extractQaPairs,
  type QaExtraction,
  type QaOptions,
} from './qa-pairs';
import { parseSummaryFormat, summarise, summaryFormatNote } from './summary';
import { type InterviewDigestInput, maxDigestQuestions } from './summary-interview';
import { buildTurns, type Turn } from './text';
import { extractActionItems, extractTopics } from './topics';

export type LocalInsightsOptions = Partial<QaOptions>;

/** `insights.engine` of the rules engine. */
export const localEngineName = 'local-rules';

export class LocalInsightsEngine implements InsightsEngine {
  private readonly qaOptions: QaOptions;

  constructor(options: LocalInsightsOptions = {}) {
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
  return validatedResult({
    qaPairs,
    insights: {
      summary: summarise(turns, parseSummaryFormat(req.summaryFormatPrompt), digest(evaluation, qa, turns)),
      overall_score: evaluation.overall_score,
      strengths: evaluation.strengths,
      weaknesses: evaluation.weaknesses,
      topics: extractTopics(turns),
      action_items: actionItems,
      score_basis: evaluation.score_basis,
      question_assessments: evaluation.question_assessments,
      unanswered: evaluation.unanswered,
      engine_notes: [...evaluation.engine_notes, ...notes(summaryFormatNote(req.summaryFormatPrompt))],
    },
  });
}

const notes = (note: string | null) => (note ? [note] : []);

/**
 * What an interview's summary is told from: its questions one by one (a bot-led interview, or a short human-led
 * one; a podcast of fifty questions is summarised as a conversation).
 */
function digest(
  evaluation: Evaluation,
  qa: QaExtraction,
  turns: readonly Turn[],
): InterviewDigestInput | undefined {
  if (evaluation.score_basis !== 'interview') return undefined;
  const put = qa.asked.filter((q) => !q.toBot).length;
  const botLed = qa.exchanges.some((e) => e.askedByBot);
  if (!botLed && put > maxDigestQuestions) return undefined;
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
