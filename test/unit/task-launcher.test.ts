// The one place bot tasks are launched (core/bots/task-launcher.ts): its pacing, its retries, and what the control
// plane does with a start the platform kept throttling (re-queued, never a failure while young); the pool's growth.
import { describe, expect, it } from 'vitest';
import { type StartColdRequest, startColdIfUnclaimed } from '../../core/bots/pool-fallback';
import { PoolGrowth } from '../../core/bots/pool-growth';
import { coldClaimant } from '../../core/bots/session';
import { TaskLauncher, TokenBucket } from '../../core/bots/task-launcher';
import { createLogger } from '../../core/log';
import {
  type LaunchTry,
  TaskCapacityError,
  type TaskPlatform,
  type TaskRunner,
} from '../../core/ports/task-runner';

const log = createLogger('silent');

/** A virtual clock: sleeps resolve at once and move it on. */
function virtualClock() {
  const clock = {
    t: 0,
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.t += ms;
    },
    random: () => 0.5,
  };
  return clock;
}

describe('TokenBucket', () => {
  it('lets a burst of one second through at once, then queues the takers 1/rate apart, in order', async () => {
    // Forty takers at the same instant: the first 20 go now, the rest are told to wait 50, 100, ... 1000 ms.
    const waits: number[] = [];
    const bucket = new TokenBucket(20, 20, { now: () => 0, sleep: async (ms) => void waits.push(ms) });
    await Promise.all(Array.from({ length: 40 }, () => bucket.take()));
    expect(waits).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 50));
  });

  it('refills with time: one caller after another runs at the rate and no faster', async () => {
    const clock = virtualClock();
    const bucket = new TokenBucket(20, 20, clock);
    for (let i = 0; i < 60; i++) await bucket.take();
    expect(clock.t).toBe(2_000);
  });
});

describe('TaskLauncher', () => {
  const policy = { budgetMs: 15_000, attempts: 2, baseMs: 200, retryAfterSeconds: 15 };

  function platform(answers: LaunchTry[]): TaskPlatform & { calls: string[] } {
    const calls: string[] = [];
    return {
      calls,
      providers: () => ['FARGATE_SPOT', 'FARGATE'],
      tryLaunch: async (_bot, provider) => {
        calls.push(provider);
        return answers.shift() ?? { taskRef: 'arn:task' };
      },
    };
  }

  it('takes a token before every call, the retries too', async () => {
    const clock = virtualClock();
    let taken = 0;
    const p = platform([
      { refused: 'throttled', detail: 'ThrottlingException: Rate exceeded' },
      { refused: 'throttled', detail: 'ThrottlingException: Rate exceeded' },
    ]);
    const launcher = new TaskLauncher(p, policy, { take: async () => void taken++ }, clock, log);
    expect(await launcher.start('b1')).toEqual({ taskRef: 'arn:task' });
    expect(taken).toBe(3);
    expect(p.calls).toEqual(['FARGATE_SPOT', 'FARGATE_SPOT', 'FARGATE_SPOT']);
  });

  it('gives up a start throttled past the budget as a TaskCapacityError that is not "exhausted"', async () => {
    const clock = virtualClock();
    const p = platform(
      Array.from({ length: 100 }, () => ({ refused: 'throttled' as const, detail: 'Rate exceeded' })),
    );
    const err = await new TaskLauncher(p, policy, { take: async () => {} }, clock)
      .start('b1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskCapacityError);
    expect((err as TaskCapacityError).exhausted).toBe(false);
    expect((err as TaskCapacityError).retryAfterSeconds).toBe(15);
    expect(clock.t).toBeLessThanOrEqual(15_000);
  });

  it("says 'exhausted' (retry after 60 s) when the account's concurrency quota was the last refusal", async () => {
    const clock = virtualClock();
    const p = platform(
      Array.from({ length: 100 }, () => ({
        refused: 'quota' as const,
        detail: 'reached the limit on vCPUs',
      })),
    );
    const err = (await new TaskLauncher(p, policy, { take: async () => {} }, clock)
      .start('b1')
      .catch((e: unknown) => e)) as TaskCapacityError;
    expect(err.exhausted).toBe(true);
    expect(err.retryAfterSeconds).toBe(60);
  });
});

describe('PoolGrowth', () => {
  it('sums the demand of one window into one resize, and the next window into another', async () => {
    const grown: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const growth = new PoolGrowth(
      {
        grow: async (by) => {
          grown.push(by);
          return { desired: by, max: 100 };
        },
      },
      { sleep: () => gate },
    );
    const first = Array.from({ length: 7 }, () => growth.demand(1));
    release();
    await Promise.all(first);
    expect(grown).toEqual([7]);
    await Promise.all([growth.demand(2), growth.demand(1)]);
    expect(grown).toEqual([7, 3]);
  });

  it('rejects the demands of a resize that failed (the fallback logs it; its cold start goes on)', async () => {
    const growth = new PoolGrowth(
      {
        grow: async () => {
          throw new Error('AccessDenied');
        },
      },
      { sleep: async () => {} },
    );
    await expect(growth.demand(1)).rejects.toThrow('AccessDenied');
  });
});

describe('the control plane with a start ECS keeps throttling', () => {
  const createdAt = '2026-01-05T10:00:00.000Z';
  function fakes(runner: TaskRunner) {
    const session = {
      botId: '5f0c7d9e-1c2b-4a3d-9e8f-0a1b2c3d4e5f',
      accountId: 'acct',
      status: 'running',
      createdAt,
      claimedBy: undefined as string | undefined,
    };
    const sent: { body: unknown; delaySeconds?: number }[] = [];
    const demanded: number[] = [];
    const claims: unknown[] = [];
    const deps = {
      stores: {
        sessions: {
          claim: async (_id: string, c: { by: string }) => {
            claims.push(c);
            session.claimedBy = c.by;
            return true;
          },
          get: async () => session,
          writeStep: async () => true,
        },
        ledger: {},
        accounts: { get: async () => null },
        retention: { add: async () => {} },
      },
      config: { CREDITS_PER_MINUTE: 1, RETENTION_DAYS: 30, START_GIVE_UP_MS: 300_000 },
      runner,
      outbox: {
        send: async (body: unknown, options?: { delaySeconds?: number }) => {
          sent.push({ body, delaySeconds: options?.delaySeconds });
        },
      },
      log,
      poolDemand: async (n: number) => void demanded.push(n),
      random: () => 0.5,
    } as unknown as Parameters<typeof startColdIfUnclaimed>[0];
    return { deps, session, sent, demanded, claims };
  }
  const throttledRunner: TaskRunner = {
    start: async () => {
      throw new TaskCapacityError('ECS did not launch the bot task within 15 s: Rate exceeded', 15);
    },
    stop: async () => {},
  };
  const request = (more: Partial<StartColdRequest> = {}): StartColdRequest => ({
    kind: 'start_cold',
    bot_id: '5f0c7d9e-1c2b-4a3d-9e8f-0a1b2c3d4e5f',
    reason: 'no pooled bot claimed the session in time',
    ...more,
  });

  it('an unclaimed offer: claimed cold, the pool asked to grow by one, the throttled start re-queued 5–15 s later', async () => {
    const { deps, sent, demanded } = fakes(throttledRunner);
    const outcome = await startColdIfUnclaimed(deps, request(), new Date(Date.parse(createdAt) + 2_000));
    expect(outcome).toBe('requeued');
    expect(demanded).toEqual([1]);
    expect(sent).toEqual([
      { body: expect.objectContaining({ kind: 'start_cold', claimed: true, tries: 1 }), delaySeconds: 10 },
    ]);
  });

  it('a start already claimed (a hand-over or a re-queued try) does not claim again nor grow the pool', async () => {
    const { deps, session, sent, demanded, claims } = fakes(throttledRunner);
    session.claimedBy = coldClaimant;
    const outcome = await startColdIfUnclaimed(
      deps,
      request({ claimed: true, tries: 3 }),
      new Date(Date.parse(createdAt) + 60_000),
    );
    expect(outcome).toBe('requeued');
    expect(claims).toEqual([]);
    expect(demanded).toEqual([]);
    expect(sent[0]!.body).toMatchObject({ tries: 4 });
  });

  it('a quota refusal is not re-queued: no wait of seconds fixes it', async () => {
    const quota: TaskRunner = {
      start: async () => {
        throw new TaskCapacityError('reached the limit on the number of vCPUs', 60, true);
      },
      stop: async () => {},
    };
    const { deps, sent } = fakes(quota);
    const outcome = await startColdIfUnclaimed(
      deps,
      request(),
      new Date(Date.parse(createdAt) + 2_000),
    ).catch(() => 'failed path reached');
    expect(outcome).not.toBe('requeued');
    expect(sent.some((m) => (m.body as { kind?: string }).kind === 'start_cold')).toBe(false);
  });
});
