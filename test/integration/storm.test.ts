// The storm at a small scale and with tight quotas (bench/storm.ts drives the real join, claim, fallback, launcher
// and ECS adapter against a simulated ECS on a virtual clock): however hard ECS throttles RunTask, no join answers a
// 5xx and every session gets exactly one bot; only the account's concurrency quota answers 503 capacity_exhausted.
// Joins scheduled for one join_at (bench/storm-scheduled.ts) are all in the room within 5 s of it.
import { describe, expect, it } from 'vitest';
import { runStorm } from '../../bench/storm';
import { runScheduledStorm } from '../../bench/storm-scheduled';

/** RunTask at 2 calls/s and Fargate launches at 5/s: a tenth of AWS's, so 60 joins in 10 s are a storm. */
const tight = {
  runTaskBurst: 2,
  runTaskPerSecond: 2,
  launchBurst: 10,
  launchPerSecond: 5,
  concurrentTasks: 5_000,
};

describe('the storm', () => {
  it('scheduled for one join_at 10 min ahead: the scheduler raises the pool ahead, every bot joins within 5 s of it', async () => {
    const f = await runScheduledStorm({
      joins: 40,
      aheadMs: 600_000,
      windowMs: 10_000,
      accounts: 4,
      pool: 2,
      poolMax: 42,
    });
    expect(f.answers).toEqual({ 201: 40 });
    expect(f.on_time, JSON.stringify(f)).toBe(40);
    expect(f.early).toBe(0);
    // Served by the pool the scheduler raised (woken at the session's moment), none by the cold fallback.
    expect(f.pool_claims).toBe(40);
    expect(f.cold_starts).toBe(0);
    expect(f.pool_desired_after).toBe(42);
  }, 180_000);

  it('RunTask throttled hard, no pool: every join 201, every session in the room once, no 5xx', async () => {
    const f = await runStorm({
      joins: 60,
      windowMs: 10_000,
      accounts: 6,
      pool: 0,
      poolMax: 0,
      quotas: tight,
    });
    expect(f.run_task_throttled).toBeGreaterThan(0);
    expect(f.answers).toEqual({ 201: 60 });
    expect(f.http_5xx).toBe(0);
    expect(f.in_room, JSON.stringify(f)).toBe(60);
    expect(f.failed_after_201).toBe(0);
    expect(f.served_twice).toBe(0);
    // Each bot's RunTask went through the pacers: far fewer calls than a retry per join per 200 ms would make.
    expect(f.cold_starts).toBe(60);
  }, 120_000);

  it('with a small pool: the pool serves what it can, the fallbacks the rest, and the pool grows', async () => {
    const f = await runStorm({
      joins: 60,
      windowMs: 10_000,
      accounts: 6,
      pool: 5,
      poolMax: 10,
      quotas: tight,
    });
    expect(f.http_5xx).toBe(0);
    expect(f.in_room, JSON.stringify(f)).toBe(60);
    expect(f.served_twice).toBe(0);
    expect(f.pool_claims).toBeGreaterThanOrEqual(5);
    expect(f.pool_claims + f.cold_starts).toBe(60);
    expect(f.pool_desired_after).toBe(10);
  }, 120_000);

  it("at the account's concurrency quota: 503 capacity_exhausted for what cannot run, never a 500", async () => {
    const f = await runStorm({
      joins: 40,
      windowMs: 10_000,
      accounts: 4,
      pool: 0,
      poolMax: 0,
      quotas: { ...tight, concurrentTasks: 25 },
    });
    expect(f.answers['500']).toBeUndefined();
    expect(f.in_room, JSON.stringify(f)).toBe(25);
    // A join that saw the quota answers 503; one handed over while ECS throttled (201) learns it later, its session
    // failed with capacity_exhausted (bot_join_failed), never charged.
    expect(f.answers['503']).toBeGreaterThan(0);
    expect(f.answers['503']! + f.failed_after_201).toBe(15);
    expect(f.answers['201']).toBe(25 + f.failed_after_201);
    expect(f.served_twice).toBe(0);
  }, 120_000);
});
