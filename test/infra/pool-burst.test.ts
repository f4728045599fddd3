// After a scheduled burst of 1,000 the warm pool is back at its size within 15 minutes, never asking ECS for fewer tasks
// than are serving meetings plus the idle pool: the synthesized scaling (alarms, steps, cooldowns) run by a model of
// CloudWatch, Application Auto Scaling and ECS on a virtual clock (pool-scaling-sim.ts); the scheduler's raise goes
// through the real EcsPoolScaler. Before the change the pool shrank by one task per 5 minutes: ~83 h back from 1,050.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EcsPoolScaler } from '../../core/adapters/ecs/ecs-pool-scaler';
import { tunablesSchema } from '../../core/tunables';
import { gapSteps, poolScaleInMinutes } from '../../infra/constructs/bot-pool';
import { PoolWorld, poolScalingFrom } from './pool-scaling-sim';
import { type Synthesized, synthStack } from './synth-stack';

const size = 50;
const poolMax = 1_050;
const burst = 1_000;
const minute = 60;

let s: Synthesized;
beforeAll(() => {
  s = synthStack({ botPoolSize: size, botPoolMax: poolMax }, { bundle: false });
});
afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

/** The scheduler's settings as deployed: it raises the pool up to horizon + lead before join_at, offers lead before. */
const schedule = tunablesSchema.parse({});
const raisedAheadS = (schedule.SCHEDULE_HORIZON_MS + schedule.SCHEDULE_POOL_LEAD_MS) / 1000;
const offeredAheadS = schedule.SCHEDULE_POOL_LEAD_MS / 1000;

/**
 * A steady pool, the scheduler's raise for 1,000 sessions of one join_at as early as it can come, the claims at the
 * offer, the meetings (ending `meetingS(i)` after join_at), then 20 minutes. Checks at every second that the desired
 * count never drops below the busy bots plus the pool's size.
 */
async function scheduledBurst(meetingS: (i: number) => number) {
  const world = new PoolWorld({ scaling: poolScalingFrom(s.json) });
  const run = (until: number) => {
    while (world.t < until) {
      world.tick();
      if (world.count('busy') > 0) expect(world.desired).toBeGreaterThanOrEqual(world.count('busy') + size);
    }
  };
  run(10 * minute);
  const raised = await new EcsPoolScaler(world.ecsClient(), {
    cluster: 'bots',
    service: 'pool',
    max: poolMax,
  }).grow(burst);
  expect(raised.desired).toBe(poolMax);
  const joinAt = world.t + raisedAheadS;
  run(joinAt - offeredAheadS);
  const claimed = world.claim(burst, (i) => joinAt + meetingS(i));
  const lastEnd = joinAt + Math.max(...Array.from({ length: burst }, (_, i) => meetingS(i)));
  let offSize = lastEnd;
  while (world.t < lastEnd + 20 * minute) {
    run(world.t + 1);
    if (world.desired !== size) offSize = world.t;
  }
  return { world, claimed, backAtSizeS: offSize - lastEnd };
}

describe('the warm pool after a scheduled burst', () => {
  it('keeps every pre-warmed bot until join_at, then is back at its size within 15 minutes of meetings ending together', async () => {
    // At the time of writing: 5 actions (−30 on the first minutes of replacements, then −864, −72, −30, −4), 829 s.
    const { world, claimed, backAtSizeS } = await scheduledBurst(() => 30 * minute);
    // The scale-in never read the schedule's pre-warmed bots as a surplus: all 1,000 were there for the offers.
    expect(claimed).toBe(burst);
    expect(backAtSizeS).toBeLessThanOrEqual(15 * minute);
    expect([world.desired, world.count('idle'), world.count('busy')]).toEqual([size, size, 0]);
    // Never asked for fewer tasks than were serving meetings (ECS would keep them, protected; here it never had to).
    expect(world.busyBelowDesired).toBe(0);
    expect(world.actions.filter((a) => a.rule === 'out')).toEqual([]);
  });

  it('is back at its size within 15 minutes of the last meeting when meetings end over 40 minutes', async () => {
    // At the time of writing: 294 s after the last meeting.
    const { world, claimed, backAtSizeS } = await scheduledBurst(
      (i) => 20 * minute + ((i * 7) % (40 * minute)),
    );
    expect(claimed).toBe(burst);
    expect(backAtSizeS).toBeLessThanOrEqual(15 * minute);
    expect(world.desired).toBe(size);
    expect(world.busyBelowDesired).toBe(0);
  });

  it('waits longer than a schedule keeps bots idle ahead, and each scale-in step removes at most the surplus', () => {
    // Pre-warmed bots are idle from the raise plus a task's start (≥ 30 s) until the offers: at most 5 datapoints.
    const prewarmedS = raisedAheadS - 30 - offeredAheadS;
    expect(poolScaleInMinutes).toBeGreaterThan(Math.ceil(prewarmedS / minute) + 1);
    const scaling = poolScalingFrom(s.json);
    expect(scaling.in.steps.length).toBeLessThanOrEqual(20);
    expect(scaling.out.steps.length).toBeLessThanOrEqual(20);
    // Any surplus up to botPoolMax − botPoolSize closes in at most 4 actions, never past the pool's size.
    const steps = gapSteps(poolMax - size);
    for (let surplus = 1; surplus <= poolMax - size; surplus++) {
      let left = surplus;
      let actions = 0;
      while (left > 0) {
        const step = steps.filter((g) => g <= left).at(-1)!;
        left -= step;
        actions++;
      }
      expect(left).toBe(0);
      expect(actions).toBeLessThanOrEqual(4);
    }
  });
});
