// When a failed delivery is tried again: exponential backoff with upward jitter, Retry-After honoured, capped at
// SQS's 12-hour visibility limit — 15 attempts spread over about 76 hours (≥ 12 attempts over ≥ 72 h).

/** Seconds to wait after the n-th failed attempt (1-based), before jitter. */
export const baseDelaysSeconds = [
  30, 120, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 43_200, 43_200, 43_200, 43_200, 43_200,
];

export const maxAttempts = baseDelaysSeconds.length + 1;
const maxDelaySeconds = 43_200;

export interface RetryDecision {
  retry: boolean;
  delaySeconds: number;
}

/**
 * `failedAttempts` counts the attempts made so far (all failed). Jitter only lengthens a delay (0–20 %), so the
 * schedule never gets shorter than its 72-hour floor. `scale` compresses the schedule for tests.
 */
export function nextRetry(
  failedAttempts: number,
  options: { retryAfterSeconds?: number; scale?: number; random?: () => number } = {},
): RetryDecision {
  if (failedAttempts >= maxAttempts) return { retry: false, delaySeconds: 0 };
  const base = baseDelaysSeconds[Math.max(0, failedAttempts - 1)]!;
  const jittered = base * (1 + 0.2 * (options.random ?? Math.random)());
  const wanted = Math.max(jittered, options.retryAfterSeconds ?? 0);
  const scaled = Math.min(maxDelaySeconds, wanted) * (options.scale ?? 1);
  return { retry: true, delaySeconds: Math.min(maxDelaySeconds, Math.round(scaled)) };
}

/** A Retry-After header: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
