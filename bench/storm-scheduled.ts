// The scheduled storm: 1,000 joins sent within 10 s, all for one `join_at` 10 minutes ahead, against the simulated
// ECS + Fargate of bench/storm-sim.ts. The real code: the join with join_at (startBot: the hold, the session listed
// for the scheduler), the scheduler's per-minute run (runScheduler: its horizon, the pool raised ahead through
// EcsPoolScaler), the delayed start of each session (startScheduled: the offer and its wake-up), the pooled bot's
// claim (claimFromPool), the cold fallback (startColdIfUnclaimed, the launcher, EcsTaskRunner). A bot joins at
// join_at, as bot-task/bot.ts waits for it. Reported: the share in the room within 5 s of join_at and the pool's cost
// of getting there. Method and limits: docs/benchmarks.md.
import { claimFromPool } from '../bot-task/pool';
import { EcsPoolScaler } from '../core/adapters/ecs/ecs-pool-scaler';
import { EcsTaskRunner } from '../core/adapters/ecs/ecs-task-runner';
import { type StartColdRequest, startColdIfUnclaimed } from '../core/bots/pool-fallback';
import { runScheduler, type StartScheduledRequest, startScheduled } from '../core/bots/scheduled-joins';
import { coldClaimant } from '../core/bots/session';
import { startBot } from '../core/bots/start-bot';
import { configSchema } from '../core/config';
import type { ControlMessage } from '../core/control/messages';
import type { Outbox } from '../core/control/outbox';
import type { ServiceDeps } from '../core/deps';
import { ApiError } from '../core/errors';
import { createLogger } from '../core/log';
import { startLocalStack } from '../local/stack';
import {
  awsQuotas,
  idleBotHourUsd,
  joinMs,
  SimEcs,
  SimPoolQueue,
  type SimTask,
  seeded,
  VirtualTime,
} from './storm-sim';
import { percentile } from './support';

/** The scheduler runs every minute (an EventBridge rule). */
const schedulerEveryMs = 60_000;
/** The control function's instances, each pacing RunTask at half the account's rate (as in bench/storm.ts). */
const controlInstances = 2;
const visibilityMs = 30_000;
const maxReceives = 5;
/** How often an idle pooled bot scans the offers here (1 s on AWS): the wake-ups carry the offers. */
const simPollMs = 30_000;

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
const deployedSchedule = configSchema
  .pick({ SCHEDULE_POOL_LEAD_MS: true, SCHEDULE_COLD_LEAD_MS: true, SCHEDULE_HORIZON_MS: true })
  .parse({});

export async function runScheduledStorm(s: ScheduledScenario): Promise<ScheduledFigures> {
  const wallStart = Date.now();
  const random = seeded(s.seed ?? 25);
  const time = new VirtualTime(Date.parse('2026-01-05T09:49:50Z'));
  const log = createLogger('silent');
  const stack = await startLocalStack({
    port: 0,
    dataDir: null,
    // The stack's own timers (sweep, scheduler) run on real time; a day apart, they never run here: the scheduler
    // is run below, on the virtual clock.
    env: {
      LOG_LEVEL: 'silent',
      BOT_POOL_SIZE: '0',
      RATE_LIMIT_PER_MINUTE: '1000000',
      HEARTBEAT_MS: String(86_400_000),
      SCHEDULE_TICK_MS: String(86_400_000),
    },
  });
  try {
    const accounts: string[] = [];
    for (let i = 0; i < s.accounts; i++) {
      const { account } = await stack.deps.accounts.create(`scheduled-${i}`);
      await stack.deps.ledger.grant(account.accountId, 1_000, 'bench');
      accounts.push(account.accountId);
    }
    const stores = {
      accounts: time.tracked(stack.deps.accounts),
      sessions: time.tracked(stack.deps.sessions),
      ledger: time.tracked(stack.deps.ledger),
      idempotency: time.tracked(stack.deps.idempotency),
      transcripts: time.tracked(stack.deps.transcripts),
      deliveries: time.tracked(stack.deps.deliveries),
    };
    const config = {
      ...stack.config,
      ...deployedSchedule,
      BOT_POOL_SIZE: 1,
      POOL_CLAIM_TIMEOUT_MS: 2_000,
      RUN_TASK_RETRY_BUDGET_MS: 15_000,
      MAX_RUNNING_BOTS_PER_ACCOUNT: 1_000,
    };
    const start = time.now();
    const joinAt = start + s.aheadMs;
    const joinAtIso = new Date(joinAt).toISOString();

    const inRoomAt = new Map<string, number>();
    const answers: Record<string, number> = {};
    const botIds: string[] = [];
    let settled = 0;
    let poolClaims = 0;
    let coldStarts = 0;
    let idlePooled = 0;
    let schedulerRuns = 0;
    let schedulerErrors = 0;
    /** Store calls of a simulated bot that failed and were tried again (dynalite overloaded, not the design). */
    let botErrors = 0;
    let raisedAt: number | undefined;
    const launchedForJoins: { launchedAt: number; claimedAt?: number }[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const clock = { now: time.now, sleep: time.sleep, random };

    /** The bot joins at join_at, not before (bot-task/bot.ts), then takes the Daily join's time. */
    const inRoom = (botId: string, warm: boolean) => {
      time.at(Math.max(time.now(), joinAt) + joinMs(random, warm), () => {
        if (!inRoomAt.has(botId)) inRoomAt.set(botId, time.now());
      });
    };
    const queue = new SimPoolQueue(time);
    const pooledBot = async (task: SimTask, again = false): Promise<void> => {
      const mine: { launchedAt: number; claimedAt?: number } | undefined =
        task.launchedAt > start && !again ? { launchedAt: task.launchedAt } : undefined;
      if (mine) launchedForJoins.push(mine);
      idlePooled++;
      const session = await claimFromPool(
        { sessions: stores.sessions, queue, log, now: time.date },
        {
          poolBotId: task.arn,
          taskRef: task.arn,
          pollMs: simPollMs,
          offerWindowMs: 600_000,
          stopped,
          random,
        },
      ).catch(() => 'error' as const);
      idlePooled--;
      if (session === 'error') {
        // A store call that failed (dynalite slow on a loaded machine) crashes the real bot; its service starts
        // another, here the same one a second later.
        botErrors++;
        await time.sleep(1_000);
        return pooledBot(task, true);
      }
      if (!session) return;
      if (mine) mine.claimedAt = time.now();
      poolClaims++;
      inRoom(session.botId, true);
    };
    const coldBot = async (task: SimTask): Promise<void> => {
      const session = await stores.sessions.get(task.botId!).catch(() => 'error' as const);
      if (session === 'error') {
        botErrors++;
        await time.sleep(1_000);
        return coldBot(task);
      }
      if (session?.status !== 'running' || session.claimedBy !== coldClaimant) return;
      coldStarts++;
      inRoom(session.botId, false);
    };
    const ecs = new SimEcs(
      time,
      awsQuotas,
      random,
      (task) => void (task.botId ? coldBot(task) : pooledBot(task)),
      s.pool,
      (task) => void pooledBot(task),
    );
    const poolScaler = new EcsPoolScaler(ecs.client(), { cluster: 'bots', service: 'pool', max: s.poolMax });
    const runners = Array.from(
      { length: controlInstances },
      () =>
        new EcsTaskRunner(
          ecs.client(),
          {
            cluster: 'bots',
            taskDefinition: 'bot:1',
            containerName: 'bot',
            subnets: ['subnet-a'],
            securityGroups: ['sg-1'],
            assignPublicIp: true,
            capacityProviders: ['FARGATE_SPOT', 'FARGATE'],
            retryBudgetMs: config.RUN_TASK_RETRY_BUDGET_MS,
            retryBaseMs: config.RUN_TASK_RETRY_BASE_MS,
            callsPerSecond: awsQuotas.runTaskPerSecond / controlInstances,
          },
          clock,
        ),
    );
    let next = 0;
    // The control queue: start_scheduled and start_cold, each handled after its delay by one control instance; one
    // whose handling threw comes back after the visibility timeout, up to the DLQ.
    const outbox: Outbox = {
      send: async (message, options) => {
        const m = message as ControlMessage;
        if (m.kind !== 'start_cold' && m.kind !== 'start_scheduled') return;
        time.at(time.now() + (options?.delaySeconds ?? 0) * 1000 + 20, () => deliver(m, 1));
      },
    };
    const deliver = (m: StartColdRequest | StartScheduledRequest, receipt: number) => {
      const deps = { stores, config, runner: runners[next++ % controlInstances]!, outbox, log, random };
      const handled =
        m.kind === 'start_cold'
          ? startColdIfUnclaimed(deps, m, time.date())
          : startScheduled({ ...deps, poolQueue: queue }, m, time.date());
      handled.catch(() => {
        if (receipt < maxReceives) time.at(time.now() + visibilityMs, () => deliver(m, receipt + 1));
      });
    };
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

    const deps = (): ServiceDeps => ({
      ...stack.deps,
      ...stores,
      config,
      runner: runners[0]!,
      outbox,
      poolQueue: queue,
      log,
      now: time.date,
    });
    for (let i = 0; i < s.joins; i++) {
      time.at(start + Math.floor((i / s.joins) * s.windowMs), () => {
        startBot(
          deps(),
          { accountId: accounts[i % s.accounts]!, keyId: 'k' },
          { provider: 'daily', room_url: `https://acme.daily.co/at-ten-${i}`, join_at: joinAtIso },
          undefined,
        ).then(
          (r) => {
            botIds.push((r.body as { bot_id: string }).bot_id);
            answers[String(r.status)] = (answers[String(r.status)] ?? 0) + 1;
          },
          (err: unknown) => {
            const status = err instanceof ApiError ? err.status : 500;
            answers[String(status)] = (answers[String(status)] ?? 0) + 1;
            settled++;
          },
        );
      });
    }
    await time.runUntil(() => settled + inRoomAt.size >= s.joins, s.aheadMs + 10 * 60_000);
    const virtualS = (time.now() - start) / 1000;
    stop();
    ecs.stopped = true;

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
      pool_claims: poolClaims,
      cold_starts: coldStarts,
      run_task_calls: ecs.stats.runTaskCalls,
      scheduler_runs: schedulerRuns,
      scheduler_errors: schedulerErrors,
      bot_errors: botErrors,
      pool_raised_s_before_join_at:
        raisedAt === undefined ? Number.NaN : Math.round((joinAt - raisedAt) / 1000),
      pool_desired_after: ecs.desired,
      service_launches: ecs.stats.serviceLaunches,
      pool_bot_hours_before_join_at: Math.round(botHours * 10) / 10,
      pool_cost_before_join_at_usd: Math.round(botHours * idleBotHourUsd * 100) / 100,
      pool_idle_after: Math.max(0, idlePooled) + ecs.idleCapacity.pending,
      virtual_s: Math.round(virtualS),
      wall_s: Math.round((Date.now() - wallStart) / 1000),
    };
  } finally {
    await stack.close();
  }
}
