// The warm pool's claim protocol under concurrency against dynalite: 50 joins at once, each waking the pool once, a pool
// of 5 bots that refill as they claim, and each join's cold-start fallback racing them — every session is served exactly once
// (claimed by one pooled bot, or cold-started), none twice, none lost; a late claim after the fallback loses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimFromPool } from '../../bot-task/pool';
import { type StartColdRequest, startColdIfUnclaimed } from '../../core/bots/pool-fallback';
import { coldClaimant } from '../../core/bots/session';
import { startBot } from '../../core/bots/start-bot';
import type { ServiceDeps } from '../../core/deps';
import { createLogger } from '../../core/log';
import type { TaskRunner } from '../../core/ports/task-runner';
import { startTestStack, type TestStack } from '../support/local-stack';
import { MemoryPoolQueue } from '../support/memory-pool-queue';
import { elapse } from '../support/until';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.close());

const log = createLogger('silent');

/** The join's deps with the pool on, a runner that records cold starts and a results queue the test drives. */
function poolDeps(timeoutMs: number) {
  const coldStarts: string[] = [];
  const fallbacks: { request: StartColdRequest; delaySeconds?: number }[] = [];
  const queue = new MemoryPoolQueue();
  const runner: TaskRunner = {
    start: async (botId) => {
      coldStarts.push(botId);
      return { taskRef: `cold:${botId}` };
    },
    stop: async () => {},
  };
  const deps: ServiceDeps = {
    ...stack.deps,
    config: { ...stack.deps.config, BOT_POOL_SIZE: 5, POOL_CLAIM_TIMEOUT_MS: timeoutMs },
    runner,
    poolQueue: queue,
    outbox: {
      send: async (body, options) => {
        fallbacks.push({ request: body as StartColdRequest, delaySeconds: options?.delaySeconds });
      },
    },
    log,
  };
  const fallbackDeps = { stores: stack.deps, config: deps.config, runner, outbox: deps.outbox, log };
  return { deps, coldStarts, fallbacks, fallbackDeps, queue };
}

const join = (deps: ServiceDeps, accountId: string, room: string) =>
  startBot(
    deps,
    { accountId, keyId: 'k' },
    { provider: 'local', room_url: `http://127.0.0.1:1/rooms/${room}` },
    undefined,
  );

describe('warm pool claim protocol', () => {
  it('50 joins, a pool of 5 refilling, each fallback racing the pool: every session served exactly once', async () => {
    const { accountId } = await stack.account(100);
    const { deps, coldStarts, fallbacks, fallbackDeps, queue } = poolDeps(2000);
    const claims = new Map<string, string[]>();
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    // Five pool slots: each bot claims one session and is replaced at once by a new bot (the runner's refill).
    const slots = Array.from({ length: 5 }, async (_, slot) => {
      for (let n = 0; ; n++) {
        const poolBotId = `pool-${slot}-${n}`;
        const session = await claimFromPool(
          { sessions: stack.deps.sessions, queue, log },
          { poolBotId, stopped },
        );
        if (!session) return;
        claims.set(session.botId, [...(claims.get(session.botId) ?? []), poolBotId]);
        // Serving takes a while: for that long this slot's next bot is starting.
        await elapse(30);
      }
    });

    const joined = await Promise.all(Array.from({ length: 50 }, (_, i) => join(deps, accountId, `r${i}`)));
    const botIds = joined.map((j) => (j.body as { bot_id: string }).bot_id);
    expect(fallbacks.map((f) => f.delaySeconds)).toEqual(botIds.map(() => 2));
    // The fallbacks come due while pooled bots are still claiming: both race for the same sessions.
    await elapse(100);
    const outcomes = new Map(
      await Promise.all(
        fallbacks.map(
          async (f) => [f.request.bot_id, await startColdIfUnclaimed(fallbackDeps, f.request)] as const,
        ),
      ),
    );
    stop();
    await Promise.all(slots);

    const sessions = await Promise.all(botIds.map((id) => stack.deps.sessions.get(id)));
    for (const [i, s] of sessions.entries()) {
      const id = botIds[i]!;
      const pooledBy = claims.get(id) ?? [];
      const cold = coldStarts.filter((c) => c === id).length;
      // One server each: a pooled bot or a cold task, never both, never two, never none.
      expect(pooledBy.length + cold, id).toBe(1);
      if (cold) {
        expect(s).toMatchObject({ startPath: 'cold', claimedBy: coldClaimant });
        expect(outcomes.get(id)).toBe('started');
      } else {
        expect(s).toMatchObject({ startPath: 'pool', claimedBy: pooledBy[0] });
        expect(outcomes.get(id)).toBe('claimed');
      }
      expect(Date.parse(s!.claimedAt!)).toBeGreaterThanOrEqual(Date.parse(s!.createdAt));
    }
    expect(claims.size).toBeGreaterThanOrEqual(5);
    // One wake-up per join; each a pooled bot took was taken off the queue once its claim was decided.
    expect(queue.sent.sort()).toEqual([...botIds].sort());
    for (const id of claims.keys()) expect(queue.done.filter((d) => d === id)).toHaveLength(1);
  });

  it('a pooled bot that comes after the fallback cannot take the session; the fallback after a pooled claim starts nothing', async () => {
    const { accountId } = await stack.account(10);
    const { deps, coldStarts, fallbacks, fallbackDeps } = poolDeps(0);
    const [late, early] = [await join(deps, accountId, 'late'), await join(deps, accountId, 'early')].map(
      (j) => (j.body as { bot_id: string }).bot_id,
    );
    expect(await startColdIfUnclaimed(fallbackDeps, fallbacks[0]!.request)).toBe('started');
    const at = new Date().toISOString();
    expect(await stack.deps.sessions.claim(late!, { by: 'pool-late', path: 'pool', at })).toBe(false);
    // On ECS the claim names the pooled task too, so a leave's StopTask backstop finds it (stop-bot.ts).
    const taskRef = 'arn:aws:ecs:us-east-1:123456789012:task/bots/early';
    expect(await stack.deps.sessions.claim(early!, { by: 'pool-early', path: 'pool', at, taskRef })).toBe(
      true,
    );
    expect(await stack.deps.sessions.get(early!)).toMatchObject({ claimedBy: 'pool-early', taskRef });
    expect(await stack.deps.sessions.claim(early!, { by: 'pool-other', path: 'pool', at })).toBe(false);
    expect(await startColdIfUnclaimed(fallbackDeps, fallbacks[1]!.request)).toBe('claimed');
    expect(coldStarts).toEqual([late]);
    // A claimant lost before joining hands the session to a cold start once; a stranger's loss moves nothing.
    const lost = { kind: 'start_cold' as const, bot_id: early!, reason: 'lost' };
    expect(await startColdIfUnclaimed(fallbackDeps, { ...lost, claimant: 'pool-other' })).toBe('claimed');
    expect(await startColdIfUnclaimed(fallbackDeps, { ...lost, claimant: 'pool-early' })).toBe('started');
    expect(await startColdIfUnclaimed(fallbackDeps, { ...lost, claimant: 'pool-early' })).toBe('claimed');
    expect(coldStarts).toEqual([late, early]);
    expect(await stack.deps.sessions.get(early!)).toMatchObject({
      startPath: 'cold',
      claimedBy: coldClaimant,
    });
  });
});
