// within(): the work's outcome when it settles in time (its rejection too), timedOut when the time runs out first,
// and no timer left behind either way.
import { describe, expect, it, vi } from 'vitest';
import { timedOut, within } from '../../core/within';

describe('within', () => {
  it('gives the outcome of work that settles in time, rejections included', async () => {
    expect(await within(Promise.resolve(7), 1_000)).toBe(7);
    await expect(within(Promise.reject(new Error('no')), 1_000)).rejects.toThrow('no');
  });

  it('gives timedOut once the time is up, and clears its timer when the work wins', async () => {
    vi.useFakeTimers();
    try {
      const slow = within(new Promise(() => {}), 500);
      await vi.advanceTimersByTimeAsync(500);
      expect(await slow).toBe(timedOut);
      await within(Promise.resolve(1), 500);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits as long as the work takes without a finite limit', async () => {
    expect(await within(new Promise((r) => setTimeout(() => r('late'), 20)), Number.POSITIVE_INFINITY)).toBe(
      'late',
    );
  });
});
