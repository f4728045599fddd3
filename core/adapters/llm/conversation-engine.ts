// The part of a model-backed ConversationEngine that does not depend on the vendor: the prompt of a turn, the
// streamed text filtered and handed on as it arrives (so the bot speaks its first sentence while the rest is being
// written), retries of a busy model before anything was said, and the turn's time budget. The Bedrock and
// OpenAI-compatible adapters only open their stream and say which of their errors are worth a retry.
//
// Failures: every error leaves greet()/reply() as a thrown ConversationError. The ConversationController
// (bot-task/conversation.ts) decides what the bot does about it: a holding line, retries with backoff, and after
// repeated failures the local engine, so a failing model never leaves the bot mute.
import type { ConversationContext, ConversationEngine } from '../../ports/conversation-engine';
import { backoffMs, type RetryVerdict } from '../../retry';
import { type ConversationPrompt, type ConversationTurn, conversationPrompt } from './conversation-prompt';
import { type Filled, type ModelCallSettings, withDefaults } from './model-settings';
import { SpokenText } from './spoken-text';

export interface ModelConversationConfig extends ModelCallSettings {
  /** Character budget of the transcript sent with each call; the oldest lines are dropped first. */
  maxContextChars?: number;
  /** The model's output budget: spoken replies are a few sentences. */
  maxTokens?: number;
  /** Retries of a busy or unavailable model, as long as nothing of the reply was said yet. */
  maxThrottleRetries?: number;
  /**
   * Time budget of one turn spent waiting on the model: connecting, backing off, generating (not the time the
   * bot spends speaking what it already has). Past it the turn is abandoned as failed (model_timeout).
   */
  turnTimeoutMs?: number;
}

export const conversationDefaults = {
  maxContextChars: 24_000,
  maxTokens: 300,
  temperature: 0.5,
  maxThrottleRetries: 3,
  // Someone is waiting for an answer: short waits (worst case ≈ 0.4 + 0.8 + 1.6 s), then give up.
  backoffBaseMs: 400,
  backoffMaxMs: 4000,
  // A participant waits in silence; past this the moment has passed.
  turnTimeoutMs: 15_000,
} as const;

/** One piece of a model's streamed answer, in vendor-neutral terms. */
export interface ModelChunk {
  text?: string;
  /** Why generation stopped; `max_tokens` when the output budget ran out. */
  stopReason?: string;
  usage?: { inputTokens: number; outputTokens: number };
}

export type ConversationErrorCode = 'model_throttled' | 'model_error' | 'model_timeout';

/** A greeting or reply that could not be generated (or was cut off). The bot stays in the call, listening. */
export class ConversationError extends Error {
  override readonly name = 'ConversationError';
  readonly code: ConversationErrorCode;
  /** Part of the reply had already been yielded (and perhaps spoken) when the model failed. */
  readonly partial: boolean;

  constructor(code: ConversationErrorCode, message: string, options: { partial: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.code = code;
    this.partial = options.partial;
  }
}

/** `Config` adds the model the vendor's `Request` names; the vendor's SDK is `Client`. */
export abstract class ModelConversationEngine<Client, Config extends ModelConversationConfig, Request>
  implements ConversationEngine
{
  protected readonly settings: Filled<ModelConversationConfig>;

  constructor(
    protected readonly client: Client,
    protected readonly config: Config,
  ) {
    this.settings = withDefaults(conversationDefaults, config);
  }

  greet(ctx: ConversationContext): AsyncIterable<string> {
    return this.generate('greet', ctx);
  }

  reply(ctx: ConversationContext): AsyncIterable<string> {
    const last = ctx.transcript.at(-1);
    // Nothing new from the participants since the bot last spoke: nothing to answer, no model call.
    if (!last || last.is_bot) return nothing();
    return this.generate('reply', ctx);
  }

  /** The vendor's request for a turn (public for tests and benchmarks). */
  abstract request(kind: ConversationTurn, ctx: ConversationContext): Request;

  /** Opens the model's answer to `request` as a stream; `signal` aborts it (barge-in, a failed attempt). */
  protected abstract open(request: Request, signal: AbortSignal): Promise<AsyncIterable<ModelChunk>>;

  /** Whether a failure before any text is worth another attempt (a busy or unavailable model). */
  protected abstract retryVerdict(err: unknown): RetryVerdict;

  /** A short name of a failure for logs and messages ("ThrottlingException", "HTTP 503"). */
  protected abstract errorName(err: unknown): string;

  /** The vendor-neutral prompt of a turn: system text and alternating turns. */
  protected prompt(kind: ConversationTurn, ctx: ConversationContext): ConversationPrompt {
    const maxContextChars = this.settings.maxContextChars;
    return conversationPrompt(kind, ctx, {
      maxContextChars,
      // The bot's own earlier questions stay in the prompt after their lines are dropped (a sixth of the budget).
      maxEarlierQuestionsChars: Math.max(500, Math.floor(maxContextChars / 6)),
    });
  }

  private async *generate(kind: ConversationTurn, ctx: ConversationContext): AsyncGenerator<string> {
    const { log, turnTimeoutMs } = this.settings;
    const input = this.request(kind, ctx);
    const started = Date.now();
    const budget = new TurnBudget(turnTimeoutMs);
    let yielded = false;
    for (let attempt = 0; ; attempt++) {
      // Aborts the HTTP stream when the consumer stops early (barge-in) or the attempt fails.
      const abort = new AbortController();
      let iterator: AsyncIterator<ModelChunk> | undefined;
      let done = false;
      // A reply's first mark says whether the person finished, unless they already stopped mid-thought (answer now).
      const spoken = new SpokenText(ctx.botName, kind === 'reply' && !ctx.stoppedMidThought);
      let stopReason: string | undefined;
      let firstTextMs: number | undefined;
      const usage = { inputTokens: 0, outputTokens: 0 };
      try {
        const stream = await budget.wait(this.open(input, abort.signal), abort);
        iterator = stream[Symbol.asyncIterator]();
        for (;;) {
          const next = await budget.wait(iterator.next(), abort);
          if (next.done) break;
          const chunk = next.value;
          if (chunk.text) {
            const text = spoken.push(chunk.text);
            if (spoken.silent) break;
            if (text) {
              firstTextMs ??= Date.now() - started;
              yielded = true;
              yield text;
            }
          }
          if (chunk.stopReason) stopReason = chunk.stopReason;
          if (chunk.usage) Object.assign(usage, chunk.usage);
        }
        const rest = spoken.end();
        if (rest) {
          firstTextMs ??= Date.now() - started;
          yielded = true;
          yield rest;
        }
        // A silent reply stopped reading early: the rest of the stream is abandoned (aborted below).
        done = !spoken.silent;
        const fields = {
          kind,
          attempt,
          stop_reason: stopReason ?? null,
          first_text_ms: firstTextMs ?? null,
          total_ms: Date.now() - started,
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          ...(spoken.unfinished && { unfinished: spoken.unfinished }),
        };
        if (spoken.unfinished) ctx.onUnfinished?.(spoken.unfinished);
        if (!yielded) log?.info('conversation model chose to listen', fields);
        else if (stopReason === 'max_tokens') log?.warn('conversation reply cut off at max_tokens', fields);
        else log?.info('conversation reply generated', fields);
        return;
      } catch (err) {
        if (err instanceof TurnTimeout) {
          log?.warn('conversation turn abandoned at its time budget', {
            kind,
            attempt,
            partial: yielded,
            turn_timeout_ms: turnTimeoutMs,
          });
          throw timeoutError(turnTimeoutMs, yielded);
        }
        const name = this.errorName(err);
        const verdict = this.retryVerdict(err);
        if (!yielded && verdict.retry && attempt < this.settings.maxThrottleRetries) {
          const { backoffBaseMs: baseMs, backoffMaxMs: maxMs, random } = this.settings;
          const ms = backoffMs(attempt, { baseMs, maxMs, random }, verdict.afterMs);
          // A wait that would outlast the turn's budget is not worth it: the answer would come too late.
          if (ms < budget.remaining()) {
            log?.warn('conversation model throttled, retrying', { kind, error: name, attempt, delay_ms: ms });
            budget.spend(ms);
            await this.settings.sleep(ms);
            continue;
          }
        }
        throw conversationError(err, name, { partial: yielded, attempt, busy: verdict.retry });
      } finally {
        if (!done) {
          abort.abort();
          iterator?.return?.().catch(() => {});
        }
      }
    }
  }
}

/** The turn ran out of its time budget while waiting on the model. */
class TurnTimeout extends Error {
  override readonly name = 'TurnTimeout';
}

/**
 * The time a turn may spend waiting on the model. Only waits count: while the consumer is busy speaking a
 * sentence the generator is suspended and the clock is not running.
 */
class TurnBudget {
  private spent = 0;

  constructor(private readonly totalMs: number) {}

  remaining(): number {
    return this.totalMs - this.spent;
  }

  spend(ms: number): void {
    this.spent += ms;
  }

  /** `pending`, or a TurnTimeout (and the attempt aborted) when the budget runs out first. */
  async wait<T>(pending: Promise<T>, abort: AbortController): Promise<T> {
    const left = this.remaining();
    const from = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const out = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          abort.abort();
          reject(new TurnTimeout(`no answer within ${this.totalMs} ms`));
        },
        Math.max(0, left),
      );
    });
    try {
      return await Promise.race([pending, out]);
    } finally {
      clearTimeout(timer);
      this.spent += Date.now() - from;
    }
  }
}

function timeoutError(budgetMs: number, partial: boolean): ConversationError {
  const seconds = `${Math.round(budgetMs / 100) / 10} s`;
  return new ConversationError(
    'model_timeout',
    partial
      ? `Conversation model stalled mid-reply past the turn's ${seconds} budget; the reply was cut short.`
      : `Conversation model did not answer within the turn's ${seconds} budget.`,
    { partial },
  );
}

function conversationError(
  err: unknown,
  name: string,
  o: { partial: boolean; attempt: number; busy: boolean },
): ConversationError {
  const what = name || 'Error';
  if (o.busy && !o.partial) {
    return new ConversationError(
      'model_throttled',
      `Conversation model busy (${what}) after ${o.attempt + 1} attempts.`,
      { partial: false, cause: err },
    );
  }
  const detail = err instanceof Error && err.message ? `: ${err.message.slice(0, 300)}` : '';
  return new ConversationError(
    'model_error',
    o.partial
      ? `Conversation model failed mid-reply (${what}${detail}); the reply was cut short.`
      : `Conversation model failed (${what}${detail}).`,
    { partial: o.partial, cause: err },
  );
}

async function* nothing(): AsyncGenerator<string> {}
