// Port: turns a finished session's transcript into Q&A pairs and insights (Bedrock in AWS, rules locally).
import { z } from 'zod';
import type { Utterance } from '../bots/transcript';
import { type Insights, insightsSchema, type QaPair, qaPairSchema } from '../schemas/results';

export interface InsightsRequest {
  utterances: Utterance[];
  /** The bot's display name; its lines are the interviewer's, not the participants'. */
  botName?: string;
  /** The start request's `analysis_prompt`: steers the evaluation. */
  analysisPrompt?: string;
  /** The start request's `summary_format_prompt`: steers the form of the summary. */
  summaryFormatPrompt?: string;
  /**
   * bot_config.bot_greeting: the rules engine says in `engine_notes` what of a greeting instruction its conversation
   * rules could not follow (a model follows it in its own words).
   */
  botGreeting?: string;
  /** The start request's `process_insights`. Q&A pairs are extracted either way (the status shows them). */
  processInsights: boolean;
}

export interface InsightsResult {
  qaPairs: QaPair[];
  /** null when `processInsights` is false. */
  insights: Insights | null;
}

export interface InsightsEngine {
  /** Throws InsightsError when no valid result can be produced. */
  analyse(req: InsightsRequest): Promise<InsightsResult>;
}

export type InsightsErrorCode =
  /** The model's answer did not match the schema, even after one retry. */
  | 'invalid_model_output'
  /** The model service kept throttling (or was unavailable) after all retries. */
  | 'model_throttled'
  /** The model service refused or failed the request. */
  | 'model_error'
  /** The engine produced a result that fails the API schema (a bug). */
  | 'invalid_result'
  /** The analysis did not finish within its time budget (retryable when the time went to throttling). */
  | 'deadline_exceeded';

/**
 * Why insights could not be produced. `message` is written for the webhook's `insights_error`:
 * no stack, no model ids, no internal names. `retryable`: the same request may succeed later (throttling,
 * a transient service fault), so the results stage may let its queue redeliver.
 */
export class InsightsError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: InsightsErrorCode,
    message: string,
    options: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InsightsError';
    this.retryable = options.retryable ?? false;
  }
}

const resultSchema = z.object({ qaPairs: z.array(qaPairSchema), insights: insightsSchema.nullable() });

/** Checks an engine's result against the API schemas (the status view and webhooks carry it as is). */
export function validatedResult(result: InsightsResult): InsightsResult {
  const parsed = resultSchema.safeParse(result);
  if (!parsed.success) {
    throw new InsightsError(
      'invalid_result',
      'Insights could not be generated: the analysis produced an invalid result.',
      { cause: parsed.error },
    );
  }
  return parsed.data;
}

/** The result with `insights.engine` naming the engine that produced it ("local-rules", "bedrock:<model id>", …). */
export function namedBy(engine: string, result: InsightsResult): InsightsResult {
  return result.insights ? { ...result, insights: { ...result.insights, engine } } : result;
}

/** The insights of a session in which nothing was said: both engines answer this without analysis. */
export function silentSessionInsights(): Insights {
  return {
    summary: 'Nothing was said during the session.',
    overall_score: 0,
    strengths: [],
    weaknesses: ['Nothing was said, so there is nothing to evaluate.'],
    topics: [],
    action_items: [],
    score_basis: 'none',
    question_assessments: [],
    unanswered: [],
    engine_notes: [],
  };
}

const isoDateTime = z.iso.datetime({ offset: true });

/** `asked_at` of a question spoken in `utterance`: its start time, when that is a valid ISO date-time. */
export function askedAt(utterance: Utterance | undefined): string | null {
  const at = utterance?.started_at;
  return at !== undefined && isoDateTime.safeParse(at).success ? at : null;
}

/** Whether any utterance has words in it. */
export function hasSpeech(utterances: readonly Utterance[]): boolean {
  return utterances.some((u) => /[\p{L}\p{N}]/u.test(u.text));
}
