// A pooled bot's wait (bot-task/pool.ts) with a fake store: it claims the oldest offer it can win, reports each claim
// it tries, stops while idle, and counts a claim whose answer was lost by what the session says.
import { describe, expect, it } from 'vitest';
import { claimFromPool } from '../../bot-task/pool';
import type { BotSession, SessionClaim } from '../../core/bots/session';
import { createLogger } from '../../core/log';
import type { PoolQueue } from '../../core/ports/pool-queue';
import { until } from '../support/until';

const log = createLogger('silent');
const session = (botId: string, claimedBy?: string) =>
  ({ botId, accountId: 'a', createdAt: new Date().toISOString(), claimedBy }) as BotSession;

function fakeSessions(offers: string[], taken: Set<string>, options: { lostAnswer?: string } = {}) {
  const claimedBy = new Map<string, string>();
  const tried: string[] = [];
  return {
    tried,
    store: {
      listPoolOffers: async () => offers.filter((o) => !claimedBy.has(o)),
      claim: async (botId: string, claim: SessionClaim) => {
        tried.push(botId);
        if (taken.has(botId) || claimedBy.has(botId)) return false;
        claimedBy.set(botId, claim.by);
        if (botId === options.lostAnswer) throw new Error('socket hang up');
        return true;
      },
      get: async (botId: string) => session(botId, claimedBy.get(botId)),
    },
  };
}

describe('a pooled bot waiting for its session', () => {
  it('goes round the offers from where it starts, taking the first it can win, reporting each try and clearing the failed ones', async () => {
    const { store, tried } = fakeSessions(['a', 'b', 'c'], new Set(['a']));
    const reports: (string | null)[] = [];
    const got = await claimFromPool(
      { sessions: store, log },
      {
        poolBotId: 'p1',
        pollMs: 10,
        offerWindowMs: 1000,
        stopped: new Promise(() => {}),
        onClaiming: (b) => reports.push(b),
        random: () => 0,
      },
    );
    expect(got?.botId).toBe('b');
    expect(tried).toEqual(['a', 'b']);
    expect(reports).toEqual(['a', null, 'b']);
  });

  it('starts at a random offer, so idle bots spread over a burst instead of all trying the oldest', async () => {
    const { store, tried } = fakeSessions(['a', 'b', 'c'], new Set(['c']));
    const got = await claimFromPool(
      { sessions: store, log },
      { poolBotId: 'p1', pollMs: 10, offerWindowMs: 1000, stopped: new Promise(() => {}), random: () => 0.7 },
    );
    expect(tried).toEqual(['c', 'a']);
    expect(got?.botId).toBe('a');
  });

  it('a claim whose answer was lost counts when the session names this bot', async () => {
    const { store } = fakeSessions(['a'], new Set(), { lostAnswer: 'a' });
    const got = await claimFromPool(
      { sessions: store, log },
      { poolBotId: 'p1', pollMs: 10, offerWindowMs: 1000, stopped: new Promise(() => {}) },
    );
    expect(got?.claimedBy).toBe('p1');
  });

  it('told to stop while idle, it returns null without claiming', async () => {
    const { store, tried } = fakeSessions([], new Set());
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const waiting = claimFromPool(
      { sessions: store, log },
      { poolBotId: 'p1', pollMs: 10_000, offerWindowMs: 1000, stopped },
    );
    setTimeout(stop, 20);
    expect(await waiting).toBeNull();
    expect(tried).toEqual([]);
  });

  it('woken by the pool queue, it claims the offer it was handed and takes the wake-up off, won or lost', async () => {
    // No offers to scan: only the wake-ups can lead to a claim. The first is for a session another bot has.
    const { store, tried } = fakeSessions([], new Set(['x']));
    const handed = ['x', 'y'];
    const done: string[] = [];
    const queue: PoolQueue = {
      offer: async () => {},
      next: async () => {
        const botId = handed.shift();
        return botId ? { botId, done: async () => void done.push(botId) } : null;
      },
    };
    const got = await claimFromPool(
      { sessions: store, queue, log },
      { poolBotId: 'p1', pollMs: 60_000, offerWindowMs: 1000, stopped: new Promise(() => {}) },
    );
    expect(got?.botId).toBe('y');
    expect(tried).toEqual(['x', 'y']);
    expect(done).toEqual(['x', 'y']);
  });

  it('with the queue failing, it still finds offers by scanning, and stopping aborts a wait in progress', async () => {
    // The offer is written after the first scan, and the queue fails each time it is read: the next scan finds it.
    const offers: string[] = [];
    const { store } = fakeSessions(offers, new Set());
    let failures = 0;
    const failing: PoolQueue = {
      offer: async () => {},
      next: async () => {
        failures++;
        offers.push('a');
        throw new Error('queue unreachable');
      },
    };
    let clock = 0;
    const tick = () => {
      clock += 10;
      return new Date(clock);
    };
    const got = await claimFromPool(
      { sessions: store, queue: failing, log, now: tick },
      { poolBotId: 'p1', pollMs: 100, offerWindowMs: 1e12, stopped: new Promise(() => {}) },
    );
    expect(got?.botId).toBe('a');
    expect(failures).toBeGreaterThan(0);

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
    const idle = claimFromPool(
      { sessions: fakeSessions([], new Set()).store, queue: hanging, log },
      { poolBotId: 'p2', pollMs: 60_000, offerWindowMs: 1000, stopped },
    );
    await until(() => waits.length === 1);
    stop();
    expect(await idle).toBeNull();
    expect(waits[0]!.aborted).toBe(true);
  });
});
