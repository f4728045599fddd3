import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs, type RetryPolicy, retryDelayMs, withRetries } from './retry';

const policy = (sleeps: number[], maxRetries = 3): RetryPolicy => ({
  maxRetries,
  backoffBaseMs: 100,
  backoffMaxMs: 1000,
  sleep: async (ms) => {
    sleeps.push(ms);
  },
  random: () => 1,
});

describe('backoff', () => {
  it('stays within [50%, 100%] of min(max, base·2ⁿ)', () => {
    fc.assert(
      fc.property(
        fc.nat(30),
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, base, r) => {
          const ceiling = Math.min(60_000, base * 2 ** n);
          const ms = backoffMs(n, base, 60_000, () => r);
          expect(ms).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
          expect(ms).toBeLessThanOrEqual(Math.ceil(ceiling));
        },
      ),
    );
  });

  it('waits at least a Retry-After, but never past the maximum', () => {
    expect(retryDelayMs(0, policy([]), 700)).toBe(700);
    expect(retryDelayMs(0, policy([]), 10)).toBe(100);
    expect(retryDelayMs(0, policy([]), 60_000)).toBe(1000);
  });
});

describe('withRetries', () => {
  it('retries what the classifier allows, up to the limit, then throws the last error', async () => {
    const sleeps: number[] = [];
    let n = 0;
    const err = await withRetries(
      async () => {
        n++;
        throw new Error(`busy ${n}`);
      },
      policy(sleeps),
      () => ({ retry: true }),
    ).catch((e: unknown) => e);
    expect((err as Error).message).toBe('busy 4');
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('does not retry a final error, and returns the first success', async () => {
    const sleeps: number[] = [];
    await expect(
      withRetries(
        async () => Promise.reject(new Error('no')),
        policy(sleeps),
        () => ({ retry: false }),
      ),
    ).rejects.toThrow('no');
    expect(sleeps).toEqual([]);
    let n = 0;
    expect(
      await withRetries(
        async () => (++n < 3 ? Promise.reject(new Error('busy')) : n),
        policy(sleeps),
        () => ({ retry: true }),
      ),
    ).toBe(3);
  });
});
