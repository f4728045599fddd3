// The vendor-free half of a model-backed insights engine: one call when the transcript fits, else a map call per
// part and a reduce call over their notes; each call's output budget sized from its questions and capped at the
// model's limit; an invalid answer asked for once more (shorter after a cut-off); everything inside one deadline.
// An adapter supplies `ModelCaller`: one forced tool call to its model (the Bedrock engine: insights-engine.ts).
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { Logger } from '../../log';
import {
  hasSpeech,
  type InsightsEngine,
  InsightsError,
  type InsightsRequest,
  type InsightsResult,
  namedBy,
  silentSessionInsights,
  validatedResult,
} from '../../ports/insights-engine';
import { type RetryVerdict, retry } from '../../retry';
import {
  type CallKind,
  checkedNotes,
  joinLines,
  type Lengths,
  type Line,
  type ModelInsights,
  type ModelQaPair,
  mapPrompt,
  mapTool,
  maxQuestionsPerCall,
  mergeParts,
  modelResult,
  outputBudget,
  qaDigest,
  reducePrompt,
  reduceTool,
  renderLines,
  shorter,
  shorterNote,
  singlePassPrompt,
  singlePassTool,
  splitIntoParts,
  systemPrompt,
  type ToolSpec,
} from './insights-prompts';
import { type Filled, type ModelCallSettings, withDefaults } from './model-settings';

export interface ToolCall {
  tool: ToolSpec<unknown>;
  system: string;
  userText: string;
  maxTokens: number;
}

/** The model's answer to one forced tool call: the tool's input (parsed JSON) or why there is none. */
export type ToolAnswer = ({ ok: true; input: unknown } | { ok: false; problem: string }) & {
  /** The answer stopped at the output limit. */
  cutOff: boolean;
};

/** What the model calls of one analysis cost (logged once at its end). */
export interface ModelUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

/** One model call, made by the adapter, with the analysis's usage counter already given (see `callTool`). */
type BoundCaller = (call: ToolCall, deadline: Deadline) => Promise<ToolAnswer>;

/** The settings every model insights engine takes; each adds its model and its own kind of retries. */
export interface ModelInsightsSettings extends ModelCallSettings {
  /**
   * Character budget of one call's transcript. A longer transcript is cut into parts of at most this size,
   * each analysed on its own (map), then one call writes the insights from their notes (reduce).
   */
  chunkChars?: number;
  /** Lines of the neighbouring parts shown around a part, so a question at its edge keeps its answer. */
  overlapLines?: number;
  /**
   * The model's output limit (e.g. Claude 3 Haiku 4,096; Claude 3.5 Sonnet 8,192; Nova 10,000). Each call asks
   * for what its questions need, at most this; a part with more questions than fit is split further.
   */
  maxOutputTokens?: number;
  /** Time budget of the whole analysis (every call, retry and backoff); past it, InsightsError deadline_exceeded. */
  deadlineMs?: number;
  /** Map calls in flight at once. */
  mapConcurrency?: number;
  /** Injected for tests; defaults to Date.now. */
  now?: () => number;
}

/** The defaults both model engines share; each adds its chunk size and its own kind of retries. */
export const modelInsightsDefaults = {
  overlapLines: 4,
  maxOutputTokens: 4096,
  // The results function may run 2 minutes (infra/constructs/delivery.ts); this leaves 30 s to save and deliver.
  deadlineMs: 90_000,
  temperature: 0,
  backoffBaseMs: 1000,
  backoffMaxMs: 20_000,
  mapConcurrency: 2,
} as const;

/** The analysis's settings, every one given (the engine's defaults filled in). */
type AnalysisSettings = Required<Omit<ModelInsightsSettings, keyof ModelCallSettings>> &
  Pick<ModelCallSettings, 'log'>;

/**
 * An insights engine on a model: its defaults under the given settings, the analysis above, the result named
 * `vendor:model`. The adapter makes one forced tool call to its model (`callTool`, a ModelCaller).
 */
export abstract class ModelInsightsEngine<Client, Config extends ModelInsightsSettings>
  implements InsightsEngine
{
  protected readonly config: Filled<Config> & AnalysisSettings;

  constructor(
    protected readonly client: Client,
    config: Config,
    defaults: Omit<Required<Config>, 'log' | 'sleep' | 'random' | 'now' | 'model' | 'modelId'>,
    private readonly name: string,
  ) {
    this.config = withDefaults(defaults, config) as Filled<Config> & AnalysisSettings;
  }

  /** The Q&A pairs and insights of `req`, validated against the API schemas; what the calls cost is logged. */
  async analyse(req: InsightsRequest): Promise<InsightsResult> {
    if (!hasSpeech(req.utterances)) {
      const insights = req.processInsights ? silentSessionInsights() : null;
      return namedBy(this.name, validatedResult({ qaPairs: [], insights }));
    }
    const usage: ModelUsage = { calls: 0, inputTokens: 0, outputTokens: 0 };
    const deadline = new Deadline(this.config.deadlineMs, this.config.now);
    try {
      const caller: BoundCaller = (call, d) => this.callTool(call, d, usage);
      const { result, parts } = await analyse(req, this.config, caller, deadline);
      this.config.log?.info('insights generated by model', {
        parts,
        calls: usage.calls,
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
      });
      return namedBy(this.name, result);
    } finally {
      deadline.dispose();
    }
  }

  /**
   * One model call; it must give up when `deadline.signal` aborts, wait only with `deadline.sleep`, and add what
   * the call cost to `usage`.
   */
  protected abstract callTool(call: ToolCall, deadline: Deadline, usage: ModelUsage): Promise<ToolAnswer>;
}

/**
 * The time budget of one analysis: `signal` aborts when it runs out, `race` settles a promise no later than
 * that, `sleep` refuses a wait that would outlast it. Throttling noted with `throttled()` makes the deadline's
 * error retryable (the time went to a busy service, which a later attempt may not meet).
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly at: number;
  private readonly expired: Promise<never>;
  private timer: NodeJS.Timeout | undefined;
  private wasThrottled = false;

  constructor(
    ms: number,
    private readonly now: () => number,
  ) {
    this.at = now() + ms;
    this.expired = new Promise<never>((_, reject) => {
      this.timer = setTimeout(() => {
        reject(this.error());
        this.controller.abort();
      }, ms);
      this.timer.unref?.();
    });
    this.expired.catch(() => {});
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(): number {
    return this.at - this.now();
  }

  throttled(): void {
    this.wasThrottled = true;
  }

  error(): InsightsError {
    return new InsightsError(
      'deadline_exceeded',
      'Insights could not be generated: the analysis took longer than its time limit.',
      { retryable: this.wasThrottled },
    );
  }

  /** `work`, unless the deadline comes first. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.remainingMs() <= 0) return Promise.reject(this.error());
    return Promise.race([work, this.expired]);
  }

  async sleep(ms: number, sleep: (ms: number) => Promise<void> = (t) => delay(t)): Promise<void> {
    if (ms >= this.remainingMs()) throw this.error();
    await sleep(ms);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

/** The analysis of a transcript with speech; `parts` is 1 for a single pass. */
async function analyse(
  req: InsightsRequest,
  settings: AnalysisSettings,
  caller: BoundCaller,
  deadline: Deadline,
): Promise<{ result: InsightsResult; parts: number }> {
  const withInsights = req.processInsights;
  const ctx = { caller, deadline, settings };
  const lines = renderLines(req.utterances, req.botName);
  const limits = (kind: CallKind) => ({
    chunkChars: settings.chunkChars,
    overlapLines: settings.overlapLines,
    maxQuestions: maxQuestionsPerCall(kind, settings.maxOutputTokens),
  });
  const whole = splitIntoParts(lines, limits(withInsights ? 'single' : 'qa-only'));

  let modelPairs: ModelQaPair[];
  let insights: ModelInsights | null = null;
  let parts = 1;
  if (whole.length === 1) {
    const out = await callTool(
      ctx,
      withInsights ? 'single' : 'qa-only',
      lines,
      (l) => singlePassTool(withInsights, l),
      (l) => singlePassPrompt(joinLines(lines), req, withInsights, l),
    );
    modelPairs = out.qa_pairs;
    insights = out.insights ?? null;
  } else {
    const split = splitIntoParts(lines, limits(withInsights ? 'map' : 'qa-only'));
    parts = split.length;
    const outs = await mapLimit(split, settings.mapConcurrency, (part, i) =>
      callTool(
        ctx,
        withInsights ? 'map' : 'qa-only',
        part.shown,
        (l) => mapTool(withInsights, l),
        (l) =>
          mapPrompt(
            joinLines(part.shown),
            { index: i + 1, count: split.length, first: part.first, last: part.last },
            req,
            withInsights,
            l,
          ),
      ),
    );
    modelPairs = mergeParts(
      outs.map((o) => o.qa_pairs),
      split,
    );
    if (withInsights) {
      const speakers = [...new Set(req.utterances.map((u) => u.speaker))];
      // The map tool's schema requires notes when insights are asked for.
      const notes = outs.map((o) => checkedNotes(o.notes!, speakers));
      const digest = qaDigest(modelPairs, Math.floor(settings.chunkChars / 2));
      insights = await callTool(
        ctx,
        'single',
        [],
        () => reduceTool,
        () => reducePrompt(notes, digest, req),
      );
    }
  }
  return { result: validatedResult(modelResult(modelPairs, insights, req.utterances)), parts };
}

/**
 * One forced tool call whose input must pass the tool's schema. An answer that does not (no tool call, a
 * cut-off answer, a schema failure) is asked for once more with the problems named; after a cut-off the
 * retry asks for shorter answers and the model's whole output limit, never more. A second failure is an
 * InsightsError.
 */
async function callTool<T>(
  { caller, deadline, settings }: { caller: BoundCaller; deadline: Deadline; settings: AnalysisSettings },
  kind: CallKind,
  shown: readonly Line[],
  tool: (l: Lengths) => ToolSpec<T>,
  text: (l: Lengths) => string,
): Promise<T> {
  let { maxTokens, lengths } = outputBudget(shown, kind, settings.maxOutputTokens);
  let problem = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const spec = tool(lengths);
    const userText = attempt === 0 ? text(lengths) : `${text(lengths)}\n\n${retryNote(spec.name, problem)}`;
    const answer = await deadline.race(
      caller(
        { tool: spec as ToolSpec<unknown>, system: systemPrompt(spec.name), userText, maxTokens },
        deadline,
      ),
    );
    if (answer.ok) {
      const parsed = spec.schema.safeParse(answer.input);
      if (parsed.success) return parsed.data;
      problem = z.prettifyError(parsed.error);
    } else {
      problem = answer.problem;
    }
    if (answer.cutOff) {
      lengths = shorter(lengths);
      maxTokens = settings.maxOutputTokens;
      problem = `${shorterNote(lengths)} (${problem.slice(0, 300)})`;
    }
    settings.log?.warn('model answer rejected', { tool: spec.name, attempt, problem: problem.slice(0, 500) });
  }
  throw new InsightsError(
    'invalid_model_output',
    'Insights could not be generated: the language model returned an invalid answer twice.',
    { retryable: false, cause: new Error(problem) },
  );
}

function retryNote(toolName: string, problem: string): string {
  return `Your previous answer was rejected: ${problem.slice(0, 2000)}\nCall ${toolName} again with input that matches its schema exactly.`;
}

async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** The retry settings of a model engine (each names its retry count after what it retries). */
export interface ModelRetrySettings {
  maxRetries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  log?: Logger;
}

/**
 * One model call with the engines' shared retry policy inside the analysis's deadline: a retryable failure is
 * retried with backoff while time remains (a wait that would end past the deadline is not waited: the deadline's
 * error comes at once), and a call that still fails becomes an InsightsError through `failure`.
 */
export async function callWithinDeadline<T>(
  deadline: Deadline,
  settings: ModelRetrySettings,
  call: () => Promise<T>,
  verdict: (err: unknown) => RetryVerdict,
  nameOf: (err: unknown) => string,
  failure: (err: unknown) => InsightsError,
): Promise<T> {
  try {
    return await retry(call, {
      attempts: settings.maxRetries + 1,
      baseMs: settings.backoffBaseMs,
      maxMs: settings.backoffMaxMs,
      clock: { sleep: (ms) => deadline.sleep(ms, settings.sleep), random: settings.random },
      retryable: (err) => (deadline.signal.aborted ? false : verdict(err)),
      onRetry: ({ attempt, delayMs, err }) => {
        deadline.throttled();
        settings.log?.warn('model call throttled, retrying', {
          error: nameOf(err),
          attempt,
          delay_ms: delayMs,
        });
      },
    });
  } catch (err) {
    if (err instanceof InsightsError) throw err;
    if (deadline.signal.aborted) throw deadline.error();
    throw failure(err);
  }
}

/** A model call that failed for good: busy (throttled; retried by the queue later), or failed or refused. */
export function modelCallError(err: unknown, how: { throttled: boolean; retryable: boolean }): InsightsError {
  if (how.throttled) {
    return new InsightsError(
      'model_throttled',
      'Insights could not be generated: the analysis service is busy. Please try again later.',
      { retryable: true, cause: err },
    );
  }
  return new InsightsError(
    'model_error',
    how.retryable
      ? 'Insights could not be generated: the analysis service failed temporarily.'
      : 'Insights could not be generated: the analysis service rejected the request.',
    { retryable: how.retryable, cause: err },
  );
}
