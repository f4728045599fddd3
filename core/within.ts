// Waiting for work at most so long: its outcome, or `timedOut` once the time is up. The work itself runs on (a
// promise cannot be stopped); the caller decides what an abandoned piece of work means, and the timer never outlives
// the wait.

/** What `within` resolves with when the time ran out first. */
export const timedOut: unique symbol = Symbol('timed out');

export async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof timedOut> {
  if (!Number.isFinite(ms)) return work;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
