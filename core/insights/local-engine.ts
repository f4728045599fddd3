// The embedded default InsightsEngine: deterministic rules, no model (README.md in this folder explains them).

import type { Utterance } from '../bots/transcript';
import {
  askedAt,
  hasSpeech,
  type InsightsEngine,
  type InsightsRequest,
  type InsightsResult,
  silentSessionInsights,
  validatedResult,
} from '../ports/insights-engine';
import type { QaPair } from '../schemas/api';
import { evaluate } from './evaluation';
import { defaultQaOptions, type ExtractedPair, extractQaPairs, type QaOptions } from './qa-pairs';
import { parseSummaryFormat, summarise, summaryFormatNote } from './summary';
import { buildTurns } from './text';
import { extractActionItems, extractTopics } from './topics';

export type LocalInsightsOptions = Partial<QaOptions>;

export class LocalInsightsEngine implements InsightsEngine {
  private readonly qaOptions: QaOptions;

  constructor(options: LocalInsightsOptions = {}) {
    this.qaOptions = { ...defaultQaOptions, ...options };
  }

  async analyse(req: InsightsRequest): Promise<InsightsResult> {
    return analyseLocally(req, this.qaOptions);
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
      summary: summarise(turns, parseSummaryFormat(req.summaryFormatPrompt)),
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

function toQaPair(p: ExtractedPair, utterances: readonly Utterance[]): QaPair {
  return {
    question: p.question,
    answer: p.answer,
    asked_by: p.askedBy,
    answered_by: p.answeredBy,
    asked_at: askedAt(utterances[p.utterance]),
  };
}
