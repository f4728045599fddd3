// The scheduled storm: 1,000 joins sent within 10 s, all for one `join_at` 10 minutes ahead, against the simulated
// ECS + Fargate of bench/storm-sim.ts. The real code: the join with join_at (startBot: the hold, the session listed
// for the scheduler), the scheduler's per-minute run (runScheduler: its horizon, the pool raised ahead through
// EcsPoolScaler), the delayed start of each session (startScheduled: the offer and its wake-up), the pooled bot's
// claim (claimFromPool), the cold fallback (startColdIfUnclaimed, the launcher, EcsTaskRunner). A bot joins at
// join_at, as bot-task/bot.ts waits for it. Reported: the share in the room within 5 s of join_at and the pool's cost
// of getting there. Method and limits: docs/benchmarks.md.
import { EcsPoolScaler } from '../core/adapters/ecs/ecs-pool-scaler';
import { startColdIfUnclaimed } from '../core/bots/pool-fallback';
import { runScheduler, startScheduled } from '../core/bots/scheduled-joins';
import type { Outbox } from '../core/control/outbox';
import { tunablesSchema } from '../core/tunables';
import {
  type ControlFigures,
  controlFigures,
  idleBotHourUsd,
  joinMs,
  seeded,
  startStormWorld,
} from './storm-sim';
import { percentile } from './support';
import { VirtualTime } from './virtual-clock';

/** The scheduler runs every minute (an EventBridge rule). */
const schedulerEveryMs = 60_000;

export interface ScheduledScenario {
  joins: number;
  /** How far ahead join_at lies when the joins are sent. */
  aheadMs: number;
  /** Over how long the joins are sent. */
  windowMs: number;
  accounts: number;
  /** The warm pool before (BOT_POOL_SIZE's service). */
  pool: number;
  /** The pool's maximum (BOT_POOL_MAX), the bound of the scheduler's raise. */
  poolMax: number;
  seed?: number;
}

export interface ScheduledFigures {
  joins: number;
  pool: number;
  pool_max: number;
  answers: Record<string, number>;
  in_room: number;
  /** In the room within 5 s of join_at (and not before it). */
  on_time: number;
  on_time_share: number;
  /** in the room − join_at. */
  offset_ms: { p50: number; p95: number; max: number };
  early: number;
  pool_claims: number;
  cold_starts: number;
  run_task_calls: number;
  scheduler_runs: number;
  scheduler_errors: number;
  bot_errors: number;
  control: ControlFigures;
  /** When the scheduler's run that raised the pool took place, before join_at. */
  pool_raised_s_before_join_at: number;
  pool_desired_after: number;
  service_launches: number;
  /** Pool tasks launched for these joins: bot-hours from their launch to join_at (or to their claim, if later). */
  pool_bot_hours_before_join_at: number;
  pool_cost_before_join_at_usd: number;
  /** Pooled bots left idle once every session is in the room (the pool's scale-in takes them back). */
  pool_idle_after: number;
  virtual_s: number;
  wall_s: number;
}

/** The scheduler's settings as deployed (the schema's defaults, not the local stack's shorter cold lead). */
const deployedSchedule = tunablesSchema
  .pick({ SCHEDULE_POOL_LEAD_MS: true, SCHEDULE_COLD_LEAD_MS: true, SCHEDULE_HORIZON_MS: true })
  .parse({});

export async function runScheduledStorm(s: ScheduledScenario): Promise<ScheduledFigures> {
  const wallStart = Date.now();
  const random = seeded(s.seed ?? 25);
  const time = new VirtualTime(Date.parse('2026-01-05T09:49:50Z'));
  const start = time.now();
  const joinAt = start + s.aheadMs;
  const joinAtIso = new Date(joinAt).toISOString();
  const inRoomAt = new Map<string, number>();
  const launchedForJoins: { launchedAt: number; claimedAt?: number }[] = [];
  const world = await startStormWorld({
    time,
    random,
    accounts: s.accounts,
    accountName: 'scheduled',
    pool: s.pool,
    /** The bot joins at join_at, not before (bot-task/bot.ts), then takes the Daily join's time. */
    inRoom: (botId, warm) => {
      time.at(Math.max(time.now(), joinAt) + joinMs(random, warm), () => {
        if (!inRoomAt.has(botId)) inRoomAt.set(botId, time.now());
      });
    },
    // The pool's tasks launched for these joins, from their launch to their claim: what getting there costs.
    onPooledWait: (task, again) => {
      if (task.launchedAt <= start || again) return undefined;
      const mine: { launchedAt: number; claimedAt?: number } = { launchedAt: task.launchedAt };
      launchedForJoins.push(mine);
      return () => {
        mine.claimedAt = time.now();
      };
    },
  });
  try {
    const { stores, log, ecs, counts, queue } = world;
    const config = { ...world.config, ...deployedSchedule, BOT_POOL_SIZE: 1 };
    const botIds: string[] = [];
    let settled = 0;
    let schedulerRuns = 0;
    let schedulerErrors = 0;
    let raisedAt: number | undefined;
    const poolScaler = new EcsPoolScaler(ecs.client(), { cluster: 'bots', service: 'pool', max: s.poolMax });
    // The control queue: start_scheduled and start_cold, each handled after its delay by one control instance.
    const outbox: Outbox = world.controlQueue(['start_cold', 'start_scheduled'], (m, runner) => {
      const deps = { stores, config, runner, outbox, log, random };
      return m.kind === 'start_cold'
        ? startColdIfUnclaimed(deps, m, time.date())
        : startScheduled({ ...deps, poolQueue: queue }, m, time.date());
    });
    // The scheduler's runs, a minute apart, at the worst phase for these joins: the first run that sees them does so
    // just short of the horizon's reach, so the pool is raised as late as the settings allow.
    const lead = config.SCHEDULE_POOL_LEAD_MS;
    const reach = config.SCHEDULE_HORIZON_MS + lead;
    const missed = joinAt - reach - 1_000;
    const firstRun = missed - schedulerEveryMs * Math.floor((missed - start) / schedulerEveryMs);
    const runSchedulerAt = (at: number) =>
      time.at(at, () => {
        schedulerRuns++;
        // A failed run is EventBridge's failed invocation: the next minute's run finds what it left.
        void runScheduler({ stores, outbox, config, log, poolScaler }, time.date()).then(
          (queued) => {
            if (queued > 0 && raisedAt === undefined) raisedAt = at;
          },
          () => schedulerErrors++,
        );
        if (at + schedulerEveryMs < joinAt) runSchedulerAt(at + schedulerEveryMs);
      });
    runSchedulerAt(firstRun);

    const answers = world.sendJoins(
      s.joins,
      s.windowMs,
      () => world.serviceDeps(config, world.controlRunners[0]!, outbox, queue),
      (i) => ({ provider: 'daily', room_url: `https://acme.daily.co/at-ten-${i}`, join_at: joinAtIso }),
      (botId) => botIds.push(botId),
      () => settled++,
    );
    await time.runUntil(() => settled + inRoomAt.size >= s.joins, s.aheadMs + 10 * 60_000);
    const virtualS = (time.now() - start) / 1000;

    const offsets = botIds.flatMap((id) => (inRoomAt.has(id) ? [inRoomAt.get(id)! - joinAt] : []));
    const onTime = offsets.filter((o) => o >= 0 && o <= 5_000).length;
    const botMs = launchedForJoins.reduce(
      (sum, t) => sum + Math.max(0, Math.max(joinAt, t.claimedAt ?? joinAt) - t.launchedAt),
      0,
    );
    const botHours = botMs / 3_600_000;
    return {
      joins: s.joins,
      pool: s.pool,
      pool_max: s.poolMax,
      answers,
      in_room: offsets.length,
      on_time: onTime,
      on_time_share: offsets.length ? onTime / s.joins : 0,
      offset_ms: offsets.length
        ? { p50: percentile(offsets, 50), p95: percentile(offsets, 95), max: Math.max(...offsets) }
        : { p50: Number.NaN, p95: Number.NaN, max: Number.NaN },
      early: offsets.filter((o) => o < 0).length,
      pool_claims: counts.poolClaims,
      cold_starts: counts.coldStarts,
      run_task_calls: ecs.stats.runTaskCalls,
      scheduler_runs: schedulerRuns,
      scheduler_errors: schedulerErrors,
      bot_errors: counts.botErrors,
      control: controlFigures(counts),
      pool_raised_s_before_join_at:
        raisedAt === undefined ? Number.NaN : Math.round((joinAt - raisedAt) / 1000),
      pool_desired_after: ecs.desired,
      service_launches: ecs.stats.serviceLaunches,
      pool_bot_hours_before_join_at: Math.round(botHours * 10) / 10,
      pool_cost_before_join_at_usd: Math.round(botHours * idleBotHourUsd * 100) / 100,
      pool_idle_after: Math.max(0, counts.idlePooled) + ecs.idleCapacity.pending,
      virtual_s: Math.round(virtualS),
      wall_s: Math.round((Date.now() - wallStart) / 1000),
    };
  } finally {
    await world.close();
  }
}
