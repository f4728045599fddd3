// InsightsEngine on Amazon Bedrock: the Converse API with a forced JSON-schema tool; long transcripts map-reduced.
import { setTimeout as delay } from 'node:timers/promises';
import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { z } from 'zod';
import type { Utterance } from '../../bots/transcript';
import { isBotUtterance } from '../../insights/text';
import type { Logger } from '../../log';
import {
  askedAt,
  hasSpeech,
  type InsightsEngine,
  InsightsError,
  type InsightsRequest,
  type InsightsResult,
  silentSessionInsights,
  validatedResult,
} from '../../ports/insights-engine';
import type { Insights, QaPair } from '../../schemas/api';
import {
  type ChunkNotes,
  type ModelQaPair,
  mapPrompt,
  mapTool,
  type PromptOptions,
  reducePrompt,
  reduceTool,
  singlePassPrompt,
  singlePassTool,
  systemPrompt,
  type ToolSpec,
  toolInputSchema,
} from './insights-prompts';
import { bedrockThrottlingErrors, throttleBackoffMs } from './throttling';

export interface BedrockInsightsConfig {
  /** Bedrock model id or inference profile (e.g. a Claude model); it must support forced tool use. */
  modelId: string;
  /**
   * Character budget of one call's transcript. A longer transcript is cut into parts of at most this size,
   * each analysed on its own (map), then one call writes the insights from their notes (reduce).
   */
  chunkChars?: number;
  /** Lines of the neighbouring parts shown around a part, so a question at its edge keeps its answer. */
  overlapLines?: number;
  /** The model's output budget per call; doubled for the retry after an answer cut off at max_tokens. */
  maxTokens?: number;
  temperature?: number;
  /** Retries of a throttled call (ThrottlingException, ServiceUnavailableException, ModelNotReadyException). */
  maxThrottleRetries?: number;
  /** Backoff before retry n: min(max, base·2ⁿ), with jitter in [50%, 100%] of it. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Map calls in flight at once. */
  mapConcurrency?: number;
  /** Sets `strict` on the tool (grammar-constrained input) for models that support it. */
  strictToolUse?: boolean;
  /** Injected for tests; defaults to a real timer and Math.random. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  log?: Logger;
}

export const bedrockDefaults = {
  chunkChars: 60_000,
  overlapLines: 4,
  maxTokens: 4096,
  temperature: 0,
  maxThrottleRetries: 5,
  backoffBaseMs: 1000,
  backoffMaxMs: 20_000,
  mapConcurrency: 2,
} as const;

/** Faults a later attempt (a queue redelivery) may not see again. */
const transientErrors = new Set(['InternalServerException', 'ModelTimeoutException', 'ModelErrorException']);

interface Line {
  /** Index of the utterance: the number the model cites as `line`. */
  index: number;
  text: string;
}

interface Part {
  /** Lines the part owns (its questions are extracted here) and the context lines shown around them. */
  first: number;
  last: number;
  shown: Line[];
}

export class BedrockInsightsEngine implements InsightsEngine {
  private readonly config: Required<Omit<BedrockInsightsConfig, 'log' | 'strictToolUse'>> &
    Pick<BedrockInsightsConfig, 'log' | 'strictToolUse'>;

  constructor(
    private readonly client: BedrockRuntimeClient,
    config: BedrockInsightsConfig,
  ) {
    this.config = {
      ...bedrockDefaults,
      sleep: (ms) => delay(ms),
      random: Math.random,
      ...stripUndefined(config),
    };
  }

  async analyse(req: InsightsRequest): Promise<InsightsResult> {
    const withInsights = req.processInsights;
    if (!hasSpeech(req.utterances)) {
      return validatedResult({ qaPairs: [], insights: withInsights ? silentSessionInsights() : null });
    }
    const prompts: PromptOptions = {
      botName: req.botName,
      analysisPrompt: req.analysisPrompt,
      summaryFormatPrompt: req.summaryFormatPrompt,
    };
    const lines = renderLines(req.utterances, req.botName);
    const parts = splitIntoParts(lines, this.config.chunkChars, this.config.overlapLines);
    const usage = { calls: 0, inputTokens: 0, outputTokens: 0 };

    let modelPairs: ModelQaPair[];
    let insights: Insights | null = null;
    if (parts.length === 1) {
      const tool = singlePassTool(withInsights);
      const out = await this.callTool(tool, singlePassPrompt(joinLines(lines), prompts, withInsights), usage);
      modelPairs = out.qa_pairs;
      insights = out.insights ?? null;
    } else {
      const tool = mapTool(withInsights);
      const outs = await mapLimit(parts, this.config.mapConcurrency, (part, i) =>
        this.callTool(
          tool,
          mapPrompt(
            joinLines(part.shown),
            { index: i + 1, count: parts.length, first: part.first, last: part.last },
            prompts,
            withInsights,
          ),
          usage,
        ),
      );
      modelPairs = mergeParts(
        outs.map((o) => o.qa_pairs),
        parts,
      );
      if (withInsights) {
        const notes = outs.map((o) => o.notes ?? emptyNotes);
        const digest = qaDigest(modelPairs, Math.floor(this.config.chunkChars / 2));
        insights = await this.callTool(reduceTool, reducePrompt(notes, digest, prompts), usage);
      }
    }
    this.config.log?.info('insights generated by model', {
      parts: parts.length,
      calls: usage.calls,
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
    });
    const qaPairs = [...modelPairs].sort((a, b) => a.line - b.line).map((p) => toQaPair(p, req.utterances));
    return validatedResult({ qaPairs, insights });
  }

  /**
   * One forced tool call whose input must pass `tool.schema`. An answer that does not (no tool call, a
   * cut-off answer, a schema failure) is asked for once more, with the problems named; a second failure
   * is an InsightsError.
   */
  private async callTool<T>(tool: ToolSpec<T>, userText: string, usage: Usage): Promise<T> {
    let problem = '';
    let maxTokens = this.config.maxTokens;
    for (let attempt = 0; attempt < 2; attempt++) {
      const text = attempt === 0 ? userText : `${userText}\n\n${retryNote(tool.name, problem)}`;
      const out = await this.converse(this.request(tool, text, maxTokens), usage);
      const found = toolInput(out, tool.name);
      if (found.ok) {
        const parsed = tool.schema.safeParse(found.input);
        if (parsed.success) return parsed.data;
        problem = z.prettifyError(parsed.error);
      } else {
        problem = found.problem;
      }
      if (out.stopReason === 'max_tokens') maxTokens *= 2;
      this.config.log?.warn('model answer rejected', {
        tool: tool.name,
        attempt,
        problem: problem.slice(0, 500),
      });
    }
    throw new InsightsError(
      'invalid_model_output',
      'Insights could not be generated: the language model returned an invalid answer twice.',
      { retryable: false, cause: new Error(problem) },
    );
  }

  private request<T>(tool: ToolSpec<T>, userText: string, maxTokens: number): ConverseCommandInput {
    return {
      modelId: this.config.modelId,
      system: [{ text: systemPrompt(tool.name) }],
      messages: [{ role: 'user', content: [{ text: userText }] }],
      inferenceConfig: { maxTokens, temperature: this.config.temperature },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: tool.name,
              description: tool.description,
              inputSchema: { json: toolInputSchema(tool.schema) as never },
              ...(this.config.strictToolUse ? { strict: true } : {}),
            },
          },
        ],
        toolChoice: { tool: { name: tool.name } },
      },
    };
  }

  /** One Converse call; throttling is retried with exponential backoff and jitter. */
  private async converse(input: ConverseCommandInput, usage: Usage): Promise<ConverseCommandOutput> {
    for (let attempt = 0; ; attempt++) {
      try {
        usage.calls++;
        const out = await this.client.send(new ConverseCommand(input));
        usage.inputTokens += out.usage?.inputTokens ?? 0;
        usage.outputTokens += out.usage?.outputTokens ?? 0;
        return out;
      } catch (err) {
        const name = err instanceof Error ? err.name : '';
        if (bedrockThrottlingErrors.has(name) && attempt < this.config.maxThrottleRetries) {
          const ms = this.backoff(attempt);
          this.config.log?.warn('model call throttled, retrying', { error: name, attempt, delay_ms: ms });
          await this.config.sleep(ms);
          continue;
        }
        throw modelError(err, name);
      }
    }
  }

  private backoff(attempt: number): number {
    return throttleBackoffMs(
      attempt,
      this.config.backoffBaseMs,
      this.config.backoffMaxMs,
      this.config.random,
    );
  }
}

interface Usage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

const emptyNotes: ChunkNotes = {
  key_points: [],
  strengths: [],
  weaknesses: [],
  topics: [],
  action_items: [],
};

function modelError(err: unknown, name: string): InsightsError {
  if (bedrockThrottlingErrors.has(name)) {
    return new InsightsError(
      'model_throttled',
      'Insights could not be generated: the analysis service is busy. Please try again later.',
      { retryable: true, cause: err },
    );
  }
  const retryable = transientErrors.has(name) || !(err instanceof Error && '$metadata' in err);
  return new InsightsError(
    'model_error',
    retryable
      ? 'Insights could not be generated: the analysis service failed temporarily.'
      : 'Insights could not be generated: the analysis service rejected the request.',
    { retryable, cause: err },
  );
}

type Found = { ok: true; input: unknown } | { ok: false; problem: string };

/** The input of the model's call of `toolName` (a JSON string is parsed, as some models send one). */
function toolInput(out: ConverseCommandOutput, toolName: string): Found {
  const blocks = out.output?.message?.content ?? [];
  const use = blocks.find((b) => b.toolUse?.name === toolName)?.toolUse;
  if (!use)
    return {
      ok: false,
      problem: `the answer did not call ${toolName} (stop reason ${out.stopReason ?? 'none'})`,
    };
  if (typeof use.input !== 'string') return { ok: true, input: use.input };
  try {
    return { ok: true, input: JSON.parse(use.input) };
  } catch {
    return { ok: false, problem: `the input of ${toolName} is not valid JSON` };
  }
}

function retryNote(toolName: string, problem: string): string {
  return `Your previous answer was rejected: ${problem.slice(0, 2000)}\nCall ${toolName} again with input that matches its schema exactly.`;
}

/** One numbered line per utterance: "12\tAlice: text" ("(bot)" marks the bot's lines). */
function renderLines(utterances: readonly Utterance[], botName?: string): Line[] {
  return utterances.map((u, index) => {
    const bot = isBotUtterance(u, botName) ? ' (bot)' : '';
    // The transcript sits inside <transcript> tags; a speaker must not be able to close them.
    const text = u.text.replace(/<\/?(?:transcript|notes|qa_pairs)>/gi, '').replace(/\s+/g, ' ');
    return { index, text: `${index}\t${u.speaker}${bot}: ${text}` };
  });
}

function joinLines(lines: readonly Line[]): string {
  return lines.map((l) => l.text).join('\n');
}

/**
 * Parts of at most `budget` characters, cut at line ends (a single longer line is a part of its own). Each
 * part is shown with `overlap` lines of its neighbours on both sides.
 */
function splitIntoParts(lines: readonly Line[], budget: number, overlap: number): Part[] {
  const ranges: [number, number][] = [];
  let start = 0;
  let size = 0;
  lines.forEach((line, i) => {
    const n = line.text.length + 1;
    if (i > start && size + n > budget) {
      ranges.push([start, i - 1]);
      start = i;
      size = 0;
    }
    size += n;
  });
  if (lines.length) ranges.push([start, lines.length - 1]);
  if (ranges.length === 1) return [{ first: 0, last: lines.length - 1, shown: [...lines] }];
  return ranges.map(([first, last]) => ({
    first,
    last,
    shown: lines.slice(Math.max(0, first - overlap), Math.min(lines.length, last + 1 + overlap)),
  }));
}

/**
 * The Q&A pairs of all parts. A part owns the questions on its own lines; a pair it reports on a context
 * line (the model strayed, or miscounted) is kept only when no part owns a pair on that line.
 */
function mergeParts(pairsOfParts: readonly ModelQaPair[][], parts: readonly Part[]): ModelQaPair[] {
  const owns = (p: ModelQaPair, i: number) => p.line >= parts[i]!.first && p.line <= parts[i]!.last;
  const owned = pairsOfParts.flatMap((pairs, i) => pairs.filter((p) => owns(p, i)));
  const taken = new Set(owned.map((p) => p.line));
  const strays: ModelQaPair[] = [];
  pairsOfParts.forEach((pairs, i) => {
    for (const p of pairs) {
      if (owns(p, i) || taken.has(p.line)) continue;
      taken.add(p.line);
      strays.push(p);
    }
  });
  return [...owned, ...strays].sort((a, b) => a.line - b.line);
}

/** The merged Q&A pairs as evidence for the reduce call, cut to `budget` characters. */
function qaDigest(pairs: readonly ModelQaPair[], budget: number): string {
  const out: string[] = [];
  let size = 0;
  for (const p of pairs) {
    const line = `Q (${p.asked_by}): ${p.question}\nA (${p.answered_by}): ${p.answer}`;
    if (size + line.length > budget) {
      out.push(`… and ${pairs.length - out.length} more pairs.`);
      break;
    }
    out.push(line);
    size += line.length + 2;
  }
  return out.join('\n\n') || '(none)';
}

function toQaPair(p: ModelQaPair, utterances: readonly Utterance[]): QaPair {
  const u = utterances[p.line];
  return {
    question: p.question,
    answer: p.answer,
    asked_by: u?.speaker ?? p.asked_by,
    answered_by: p.answered_by,
    asked_at: askedAt(u),
  };
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

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
