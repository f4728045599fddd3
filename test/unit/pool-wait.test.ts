// A pooled bot's wait (bot-task/pool.ts) with a fake store and the in-memory wake-up queue: it claims the session a
// wake-up names, takes the wake-up off once its claim was decided (won or lost) and leaves it for another try when the
// claim could not be decided, counts a claim whose answer was lost by what the session says, and stops while idle.
import { describe, expect, it } from 'vitest';
import { claimFromPool } from '../../bot-task/pool';
import type { BotSession, SessionClaim } from '../../core/bots/session';
import { createLogger } from '../../core/log';
import type { PoolQueue } from '../../core/ports/pool-queue';
import { MemoryPoolQueue } from '../support/memory-pool-queue';
import { until } from '../support/until';

const log = createLogger('silent');
const never = new Promise<void>(() => {});

function fakeSessions(taken: Set<string>, options: { failing?: string; lostAnswer?: string } = {}) {
  const claimedBy = new Map<string, string>();
  const tried: string[] = [];
  return {
    tried,
    store: {
      claim: async (botId: string, claim: SessionClaim) => {
        tried.push(botId);
        if (botId === options.failing) throw new Error('throttled');
        if (taken.has(botId) || claimedBy.has(botId)) return false;
        claimedBy.set(botId, claim.by);
        if (botId === options.lostAnswer) throw new Error('socket hang up');
        return true;
      },
      get: async (botId: string) =>
        ({
          botId,
          accountId: 'a',
          status: 'running',
          createdAt: new Date().toISOString(),
          claimedBy: claimedBy.get(botId) ?? (taken.has(botId) ? 'other' : undefined),
        }) as BotSession,
    },
  };
}

describe('a pooled bot waiting for its session', () => {
  it('claims what a wake-up names; a wake-up for a session another has is taken off too, and reported', async () => {
    const { store, tried } = fakeSessions(new Set(['x']));
    const queue = new MemoryPoolQueue();
    await queue.offer('x');
    await queue.offer('y');
    const reports: (string | null)[] = [];
    const got = await claimFromPool(
      { sessions: store, queue, log },
      { poolBotId: 'p1', stopped: never, onClaiming: (b) => reports.push(b) },
    );
    expect(got?.botId).toBe('y');
    expect(tried).toEqual(['x', 'y']);
    expect(reports).toEqual(['x', null, 'y']);
    expect(queue.done).toEqual(['x', 'y']);
  });

  it('a claim whose answer was lost counts when the session names this bot', async () => {
    const { store } = fakeSessions(new Set(), { lostAnswer: 'a' });
    const queue = new MemoryPoolQueue();
    await queue.offer('a');
    const got = await claimFromPool({ sessions: store, queue, log }, { poolBotId: 'p1', stopped: never });
    expect(got?.claimedBy).toBe('p1');
    expect(queue.done).toEqual(['a']);
  });

  it('a claim that could not be decided leaves its wake-up to come back, and the next try takes it', async () => {
    const failing = fakeSessions(new Set(), { failing: 'a' });
    const queue = new MemoryPoolQueue(50);
    await queue.offer('a');
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const first = claimFromPool({ sessions: failing.store, queue, log }, { poolBotId: 'p1', stopped });
    await until(() => failing.tried.length === 2);
    expect(queue.done).toEqual([]);
    stop();
    expect(await first).toBeNull();
    // The wake-up comes back after the visibility timeout, to a bot whose store answers.
    const { store } = fakeSessions(new Set());
    const got = await claimFromPool({ sessions: store, queue, log }, { poolBotId: 'p2', stopped: never });
    expect(got?.claimedBy).toBe('p2');
    expect(queue.done).toEqual(['a']);
  });

  it('told to stop while idle, it returns null without claiming, aborting the wait in progress', async () => {
    const { store, tried } = fakeSessions(new Set());
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const waits: AbortSignal[] = [];
    const hanging: PoolQueue = {
      offer: async () => {},
      next: (_ms, signal) =>
        new Promise((_, reject) => {
          waits.push(signal);
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    };
    const idle = claimFromPool({ sessions: store, queue: hanging, log }, { poolBotId: 'p1', stopped });
    await until(() => waits.length === 1);
    stop();
    expect(await idle).toBeNull();
    expect(waits[0]!.aborted).toBe(true);
    expect(tried).toEqual([]);
  });

  it('with the queue failing, it asks again and claims once the queue answers', async () => {
    const { store } = fakeSessions(new Set());
    const queue = new MemoryPoolQueue();
    let failures = 0;
    const flaky: PoolQueue = {
      offer: (botId) => queue.offer(botId),
      next: (ms, signal) => {
        if (failures++ < 1) return Promise.reject(new Error('queue unreachable'));
        return queue.next(ms, signal);
      },
    };
    await flaky.offer('a');
    const got = await claimFromPool(
      { sessions: store, queue: flaky, log },
      { poolBotId: 'p1', stopped: never },
    );
    expect(got?.botId).toBe('a');
    expect(failures).toBe(2);
  });
});
