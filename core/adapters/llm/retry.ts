// How the language-model adapters (Bedrock, OpenAI-compatible) wait for a busy or failing model: exponential
// backoff with jitter, a server's Retry-After honoured, and a bounded number of retries.
import { setTimeout as delay } from 'node:timers/promises';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Backoff before retry n: min(max, base·2ⁿ), with jitter in [50%, 100%] of it. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

/** A real timer and Math.random: what an engine uses unless a test injects its own. */
export const realClock = { sleep: (ms: number) => delay(ms), random: Math.random } as const;

/** What a failed attempt means: give up, or try again (no sooner than `afterMs` when the server said so). */
export type RetryVerdict = { retry: false } | { retry: true; afterMs?: number };

/** Backoff before retry n: min(max, base·2ⁿ), with jitter in [50%, 100%] of it. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

/** The wait before retry n: the backoff, or the server's Retry-After when longer (capped at the policy's max). */
export function retryDelayMs(attempt: number, policy: RetryPolicy, afterMs?: number): number {
  const ms = backoffMs(attempt, policy.backoffBaseMs, policy.backoffMaxMs, policy.random);
  return afterMs === undefined ? ms : Math.max(ms, Math.min(afterMs, policy.backoffMaxMs));
}

/**
 * Runs `call` until it succeeds, `classify` says a failure is final, or the retries are spent; the last error
 * is thrown as it was. `onRetry` hears of each wait (for a log line).
 */
export async function withRetries<T>(
  call: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  classify: (err: unknown) => RetryVerdict,
  onRetry?: (info: { attempt: number; delayMs: number; err: unknown }) => void,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call(attempt);
    } catch (err) {
      const verdict = classify(err);
      if (!verdict.retry || attempt >= policy.maxRetries) throw err;
      const delayMs = retryDelayMs(attempt, policy, verdict.afterMs);
      onRetry?.({ attempt, delayMs, err });
      await policy.sleep(delayMs);
    }
  }
}

/** The settings of a config object with the undefined ones removed, so defaults spread before them apply. */
export function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
