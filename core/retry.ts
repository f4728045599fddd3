// Trying again, the one way the service does it: exponential backoff with jitter, a server's Retry-After honoured,
// a number of attempts or a time budget, and an abort signal that ends the waiting. A retry that is scheduled rather
// than awaited (a re-send's spacing, a refill's delay) takes its wait from backoffMs alone.

/** `equal` keeps half of a wait and draws the rest (callers failed together spread out), `full` draws all of it. */
export type Jitter = 'equal' | 'full' | 'none';

export interface Backoff {
  /** The wait before the first retry; each next one doubles. */
  baseMs: number;
  /** No wait is longer (default: none). */
  maxMs?: number;
  /** Default `equal`. */
  jitter?: Jitter;
  random?: () => number;
}

/** The wait before retry n (0: the first): min(max, base·2ⁿ) with its jitter, at least a Retry-After up to the max. */
export function backoffMs(retry: number, b: Backoff, afterMs?: number): number {
  const maxMs = b.maxMs ?? Number.POSITIVE_INFINITY;
  const ceiling = Math.min(maxMs, b.baseMs * 2 ** retry);
  const r = (b.random ?? Math.random)();
  const ms = Math.round(b.jitter === 'none' ? ceiling : ceiling * (b.jitter === 'full' ? r : 0.5 + 0.5 * r));
  return afterMs === undefined ? ms : Math.max(ms, Math.min(afterMs, maxMs));
}

/** What a failed attempt means: give up, or try again (no sooner than `afterMs` when the server said so). */
export type RetryVerdict = { retry: false } | { retry: true; afterMs?: number };

/** The one clock port (retries, RunTask pacing, pool growth): real, or virtual in tests and simulations. */
export interface RetryClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
}

export const realClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', abort);
        resolve();
      }, ms);
      const abort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
    }),
  random: Math.random,
};

export interface RetryOptions extends Backoff {
  /** Tries in all, the first included (default: no limit; then the deadline or the signal ends it). */
  attempts?: number;
  /** The time budget from the first try: a wait that would end past it is not waited, the last error is thrown. */
  deadlineMs?: number;
  /** Ends the retrying: no try starts after it aborts and a wait is cut short; its reason is thrown. */
  signal?: AbortSignal;
  /** Whether a failure is worth another try (default: every one is). */
  retryable?: (err: unknown) => boolean | RetryVerdict;
  /** Hears of each wait before it (a log line, a metric). */
  onRetry?: (info: { attempt: number; delayMs: number; err: unknown }) => void;
  clock?: Partial<RetryClock>;
}

/** Runs `fn` (given the attempt, 0 first) until it succeeds or the options say stop; the last error is thrown as it was. */
export async function retry<T>(fn: (attempt: number) => Promise<T>, o: RetryOptions): Promise<T> {
  const clock = { ...realClock, ...o.clock };
  const attempts = o.attempts ?? Number.POSITIVE_INFINITY;
  const deadline = clock.now() + (o.deadlineMs ?? Number.POSITIVE_INFINITY);
  for (let attempt = 0; ; attempt++) {
    o.signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (err) {
      const answer = o.retryable ? o.retryable(err) : true;
      const verdict: RetryVerdict = typeof answer === 'boolean' ? { retry: answer } : answer;
      if (!verdict.retry || attempt + 1 >= attempts) throw err;
      o.signal?.throwIfAborted();
      const delayMs = backoffMs(attempt, { ...o, random: clock.random }, verdict.afterMs);
      if (clock.now() + delayMs > deadline) throw err;
      o.onRetry?.({ attempt, delayMs, err });
      await clock.sleep(delayMs, o.signal);
    }
  }
}
