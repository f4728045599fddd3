import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffMs, retry } from './retry';

/** A function that fails `failures` times with `err`, then returns the number of calls. */
function failing(failures: number, err: unknown = new Error('busy')) {
  let calls = 0;
  const fn = async () => {
    calls++;
    if (calls <= failures) throw err;
    return calls;
  };
  return Object.assign(fn, { calls: () => calls });
}

describe('backoffMs', () => {
  it('equal jitter stays within [50%, 100%] of min(max, base·2ⁿ), full jitter within [0, 100%]', () => {
    fc.assert(
      fc.property(
        fc.nat(30),
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, baseMs, r) => {
          const ceiling = Math.min(60_000, baseMs * 2 ** n);
          const equal = backoffMs(n, { baseMs, maxMs: 60_000, random: () => r });
          expect(equal).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
          expect(equal).toBeLessThanOrEqual(Math.ceil(ceiling));
          const full = backoffMs(n, { baseMs, maxMs: 60_000, jitter: 'full', random: () => r });
          expect(full).toBeGreaterThanOrEqual(0);
          expect(full).toBeLessThanOrEqual(Math.ceil(ceiling));
        },
      ),
    );
  });

  it('without jitter doubles up to the maximum', () => {
    const waits = [0, 1, 2, 3, 4].map((n) => backoffMs(n, { baseMs: 100, maxMs: 1000, jitter: 'none' }));
    expect(waits).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffMs(60, { baseMs: 100, jitter: 'none' })).toBe(100 * 2 ** 60);
  });

  it('waits at least a Retry-After, but never past the maximum', () => {
    const b = { baseMs: 100, maxMs: 1000, jitter: 'none' } as const;
    expect(backoffMs(0, b, 700)).toBe(700);
    expect(backoffMs(0, b, 10)).toBe(100);
    expect(backoffMs(0, b, 60_000)).toBe(1000);
  });
});

describe('retry', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('waits base·2ⁿ between tries on a real timer, then returns the first success', async () => {
    const fn = failing(3);
    const onRetry = vi.fn();
    const result = retry(fn, { attempts: 5, baseMs: 100, jitter: 'none', onRetry });
    await vi.advanceTimersByTimeAsync(100 + 200 + 399);
    expect(fn.calls()).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(await result).toBe(4);
    expect(onRetry.mock.calls.map(([i]) => [i.attempt, i.delayMs])).toEqual([
      [0, 100],
      [1, 200],
      [2, 400],
    ]);
  });

  it('throws the last error as it was once the attempts are spent', async () => {
    const err = new Error('still busy');
    const fn = failing(10, err);
    const result = retry(fn, { attempts: 3, baseMs: 100 }).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await result).toBe(err);
    expect(fn.calls()).toBe(3);
  });

  it('does not retry what retryable refuses, and honours a Retry-After it returns', async () => {
    const final = failing(1, new Error('bad request'));
    await expect(retry(final, { attempts: 5, baseMs: 100, retryable: () => false })).rejects.toThrow(
      'bad request',
    );
    expect(final.calls()).toBe(1);
    const sleeps: number[] = [];
    const clock = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 1 };
    await retry(failing(1), { baseMs: 100, clock, retryable: () => ({ retry: true, afterMs: 5_000 }) });
    expect(sleeps).toEqual([5_000]);
  });

  it('stops at its deadline: a wait that would end past it is not waited', async () => {
    let t = 0;
    const clock = {
      now: () => t,
      sleep: async (ms: number) => {
        t += ms;
      },
      random: () => 1,
    };
    const fn = failing(100);
    await expect(retry(fn, { deadlineMs: 1_000, baseMs: 100, clock })).rejects.toThrow('busy');
    // Waits of 100, 200, 400 fit in 1 s (700 ms); the next, 800, would end at 1.5 s.
    expect(fn.calls()).toBe(4);
    expect(t).toBe(700);
  });

  it('an abort cuts the wait short and throws its reason; no try starts after it', async () => {
    const abort = new AbortController();
    const fn = failing(100);
    const result = retry(fn, { baseMs: 10_000, signal: abort.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(fn.calls()).toBe(1);
    abort.abort(new Error('left'));
    expect(((await result) as Error).message).toBe('left');
    expect(fn.calls()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    await expect(retry(failing(0), { baseMs: 1, signal: abort.signal })).rejects.toThrow('left');
  });
});
