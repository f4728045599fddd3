// The storm benchmark's simulated world, on the virtual clock the code under test sleeps on (bench/virtual-clock.ts):
// an ECS + Fargate that obeys AWS's published launch quotas (RunTask calls and Fargate task launches as token buckets,
// the account's concurrency quota) and answers refusals shaped as the SDK throws them, the warm pool's service and wake-up queue,
// and the delayed control queue; and the world both storms run in (startStormWorld). Only the platform is simulated:
// joins, offers, claims, pacing, retries, fallbacks and pool growth are the service's own code (bench/storm.ts),
// against a real DynamoDB stand-in (dynalite).
import type { ECSClient } from '@aws-sdk/client-ecs';
import { ECSServiceException } from '@aws-sdk/client-ecs';
import { claimFromPool } from '../bot-task/pool';
import { EcsTaskRunner } from '../core/adapters/ecs/ecs-task-runner';
import { coldClaimant } from '../core/bots/session';
import { startBot } from '../core/bots/start-bot';
import type { Config } from '../core/config';
import type { ControlMessage } from '../core/control/messages';
import type { Outbox } from '../core/control/outbox';
import type { ServiceDeps } from '../core/deps';
import { ApiError } from '../core/errors';
import { createLogger } from '../core/log';
import type { PoolOffer, PoolQueue } from '../core/ports/pool-queue';
import type { TaskRunner } from '../core/ports/task-runner';
import { controlMessageOverheadMs } from '../functions/control/handler';
import { sqsBatchHandler } from '../functions/sqs-batch';
import { eventSourceLimits, functionLimits, queueLimits, runTaskCallsPerSecond } from '../infra/limits';
import { parseSettings } from '../infra/settings';
import { startLocalStack } from '../local/stack';
import { mulberry32 } from './random';
import type { VirtualTime } from './virtual-clock';

/** The control function's own sends go through the handled code's outbox; the consumer's are not used here. */
const noSend = { send: async () => {} };

/** A seeded generator (mulberry32): the same run gives the same figures. */
export const seeded = mulberry32;

/** A token bucket as AWS describes its throttling: `capacity` tokens, refilled at `perSecond`. */
class QuotaBucket {
  private tokens: number;
  private updatedAt: number;
  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly now: () => number,
  ) {
    this.tokens = capacity;
    this.updatedAt = now();
  }
  available(): number {
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((t - this.updatedAt) / 1000) * this.perSecond);
    this.updatedAt = t;
    return this.tokens;
  }
  take(n: number): boolean {
    if (this.available() < n) return false;
    this.tokens -= n;
    return true;
  }
}

/**
 * How long a Fargate task takes from RunTask to its bot ready (a cold bot then joins; a pooled one waits). No
 * published percentile table exists for Fargate start times; this is the component estimate of docs/warm-pool.md,
 * drawn per task: scheduling and the task's ENI 10–20 s (uniform), the ~320 MB image pulled without a layer cache
 * (log-normal, median 28 s, 95th percentile ~55 s, within 15–90 s; AWS names the image pull as what decides a
 * Fargate task's start: docs.aws.amazon.com/AmazonECS/latest/developerguide/fargate-pull-behavior.html), then Node,
 * Chromium and daily-js on 1 vCPU 5–10 s (uniform).
 */
export function taskStartMs(random: () => number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const pull = Math.min(90_000, Math.max(15_000, 28_000 * Math.exp(0.41 * normal)));
  return 10_000 + 10_000 * random() + pull + 5_000 + 5_000 * random();
}

/** An idle default bot task (1 vCPU, 2 GB, x86, public IPv4) per hour, us-east-1 on-demand (docs/cost.md). */
export const idleBotHourUsd = 0.0544;

/** The Daily join itself: 1–3 s cold (page, daily-js and token first), 1–2 s for a pooled bot with its page warm. */
export const joinMs = (random: () => number, warm: boolean) =>
  warm ? 1_000 + 1_000 * random() : 1_000 + 2_000 * random();

export interface EcsQuotas {
  /** RunTask calls: a bucket of `runTaskBurst` refilled at `runTaskPerSecond` (per account and region). */
  runTaskBurst: number;
  runTaskPerSecond: number;
  /** Fargate task launches: a bucket of 100 refilled at 20 per second (per account and region). */
  launchBurst: number;
  launchPerSecond: number;
  /** The account's Fargate On-Demand vCPU quota, in 1-vCPU bot tasks. */
  concurrentTasks: number;
}

export const awsQuotas: EcsQuotas = {
  runTaskBurst: 20,
  runTaskPerSecond: 20,
  launchBurst: 100,
  launchPerSecond: 20,
  concurrentTasks: 5_000,
};

export interface SimTask {
  arn: string;
  /** The session a cold task was started for; undefined for a pooled task of the service. */
  botId?: string;
  launchedAt: number;
}

/**
 * ECS and Fargate: RunTask (idempotent by client token), DescribeServices and UpdateService for the pool's service,
 * whose scheduler launches up to the desired count every second within the same launch bucket. A refused RunTask
 * throws what the SDK throws: ThrottlingException "Rate exceeded" past the API or launch rate, a ClientException at
 * the concurrency quota.
 */
export class SimEcs {
  readonly stats = {
    runTaskCalls: 0,
    runTaskThrottled: 0,
    quotaRefusals: 0,
    serviceLaunches: 0,
    updateService: 0,
  };
  desired: number;
  private readonly api: QuotaBucket;
  private readonly launches: QuotaBucket;
  private readonly tokens = new Map<string, string>();
  private live = 0;
  private servicePending = 0;
  private serviceRunning = 0;
  private n = 0;

  constructor(
    private readonly time: VirtualTime,
    private readonly quotas: EcsQuotas,
    private readonly random: () => number,
    /** A task is ready (its bot started). */
    private readonly onReady: (task: SimTask) => void,
    initialPool: number,
    /** Idle pooled tasks already running when the storm starts. */
    onInitialPool: (task: SimTask) => void,
  ) {
    this.api = new QuotaBucket(quotas.runTaskBurst, quotas.runTaskPerSecond, time.now);
    this.launches = new QuotaBucket(quotas.launchBurst, quotas.launchPerSecond, time.now);
    this.desired = initialPool;
    for (let i = 0; i < initialPool; i++) {
      this.live++;
      this.serviceRunning++;
      onInitialPool({ arn: this.arn(), launchedAt: time.now() });
    }
    this.schedule();
  }

  /** What the code under test sees as its ECSClient. */
  client(): ECSClient {
    return { send: (command: { input: unknown }) => this.send(command) } as unknown as ECSClient;
  }

  /** A pooled task that served its session and exited (not during this benchmark: sessions outlast it). */
  get idleCapacity() {
    return { desired: this.desired, running: this.serviceRunning, pending: this.servicePending };
  }

  private async send(command: { input: unknown }): Promise<unknown> {
    // An API round trip.
    await this.time.sleep(50 + 100 * this.random());
    const name = command.constructor.name;
    if (name === 'RunTaskCommand') return this.runTask(command.input as RunTaskInput);
    if (name === 'DescribeServicesCommand') return { services: [{ desiredCount: this.desired }] };
    if (name === 'UpdateServiceCommand') {
      this.stats.updateService++;
      this.desired = (command.input as { desiredCount: number }).desiredCount;
      return {};
    }
    throw new Error(`the simulated ECS does not answer ${name}`);
  }

  private runTask(input: RunTaskInput): unknown {
    this.stats.runTaskCalls++;
    if (!this.api.take(1)) return this.throttled();
    const known = input.clientToken && this.tokens.get(input.clientToken);
    if (known) return { tasks: [{ taskArn: known }], failures: [] };
    const count = input.count ?? 1;
    if (this.live + count > this.quotas.concurrentTasks) {
      this.stats.quotaRefusals++;
      throw sdkError(
        'ClientException',
        "You've reached the limit on the number of vCPUs you can run concurrently",
      );
    }
    if (!this.launches.take(count)) return this.throttled();
    const botId = input.overrides?.containerOverrides?.[0]?.environment?.find(
      (e) => e.name === 'BOT_ID',
    )?.value;
    const tasks = Array.from({ length: count }, () => {
      const task: SimTask = { arn: this.arn(), ...(botId && { botId }), launchedAt: this.time.now() };
      this.live++;
      this.time.at(this.time.now() + taskStartMs(this.random), () => this.onReady(task));
      return { taskArn: task.arn };
    });
    if (input.clientToken) this.tokens.set(input.clientToken, tasks[0]!.taskArn);
    return { tasks, failures: [] };
  }

  private throttled(): never {
    this.stats.runTaskThrottled++;
    throw sdkError('ThrottlingException', 'Rate exceeded');
  }

  /** The service scheduler: once a second, launches toward the desired count within the launch bucket. */
  private schedule() {
    this.time.at(this.time.now() + 1_000, () => {
      const want = this.desired - this.serviceRunning - this.servicePending;
      const room = Math.min(
        want,
        Math.floor(this.launches.available()),
        this.quotas.concurrentTasks - this.live,
      );
      if (room > 0 && this.launches.take(room)) {
        for (let i = 0; i < room; i++) {
          const task: SimTask = { arn: this.arn(), launchedAt: this.time.now() };
          this.live++;
          this.servicePending++;
          this.stats.serviceLaunches++;
          this.time.at(this.time.now() + taskStartMs(this.random), () => {
            this.servicePending--;
            this.serviceRunning++;
            this.onReady(task);
          });
        }
      }
      if (!this.stopped) this.schedule();
    });
  }

  stopped = false;

  private arn() {
    return `arn:aws:ecs:us-east-1:111122223333:task/bots/${(this.n++).toString(16).padStart(32, '0')}`;
  }
}

interface RunTaskInput {
  count?: number;
  clientToken?: string;
  overrides?: { containerOverrides?: { environment?: { name?: string; value?: string }[] }[] };
}

function sdkError(name: string, message: string) {
  return new ECSServiceException({ name, message, $fault: 'client', $metadata: { httpStatusCode: 400 } });
}

/** The pool's wake-up queue on the virtual clock: an offer goes to the longest-waiting idle bot, else waits. */
export class SimPoolQueue implements PoolQueue {
  private readonly offers: string[] = [];
  private readonly waiters: ((offer: PoolOffer | null) => void)[] = [];

  constructor(private readonly time: VirtualTime) {}

  async offer(botId: string): Promise<void> {
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.wrap(botId));
    else this.offers.push(botId);
  }

  next(waitMs: number, signal: AbortSignal): Promise<PoolOffer | null> {
    const queued = this.offers.shift();
    if (queued) return Promise.resolve(this.wrap(queued));
    return new Promise((resolve, reject) => {
      let settled = false;
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        if (!settled) {
          settled = true;
          reject(signal.reason);
        }
      };
      const waiter = (offer: PoolOffer | null) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        resolve(offer);
      };
      this.waiters.push(waiter);
      this.time.at(this.time.now() + waitMs, () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        waiter(null);
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private wrap(botId: string): PoolOffer {
    return { botId, done: async () => {} };
  }
}

/**
 * The control queue and its event source as deployed (infra/limits.ts): Lambda takes batches of up to `batchSize`
 * visible messages (no batching window) into at most `maxConcurrency` invocations at once; each invocation runs the
 * control function's batch consumer (functions/sqs-batch.ts, with the control handler's reserve) and is stopped at the
 * function's timeout; a message that failed or was in a stopped invocation is visible again after the visibility
 * timeout, and goes to the DLQ on the receive past maxReceiveCount.
 */
const controlSource = eventSourceLimits.control;
const controlFunction = functionLimits.control;
const controlQueueLimits = queueLimits.control;
const controlInstances = controlSource.maxConcurrency;
/** Lambda's pollers answer a long poll as a message arrives; the invocation then starts (an assumed 20 ms). */
const pollToInvokeMs = 20;

export interface StormWorldOptions {
  time: VirtualTime;
  random: () => number;
  accounts: number;
  /** The accounts are named `<accountName>-<i>`. */
  accountName: string;
  /** Idle pooled bots when the storm starts. */
  pool: number;
  quotas?: EcsQuotas;
  /** A bot has its session: `warm` when a pooled bot claimed it, else its cold task started. */
  inRoom: (botId: string, warm: boolean) => void;
  /** A pooled bot begins waiting for offers (`again` after a restart); what it returns is called on its claim. */
  onPooledWait?: (task: SimTask, again: boolean) => (() => void) | undefined;
}

export type StormWorld = Awaited<ReturnType<typeof startStormWorld>>;

/**
 * What both storms (bench/storm.ts, bench/storm-scheduled.ts) run in: the local stack (dynalite), its accounts with
 * credit, its stores on the virtual clock, the simulated ECS with its pooled and cold bots, and the control queue
 * handled by the control instances, each pacing RunTask at half the account's rate, so together they stay within it.
 */
export async function startStormWorld(o: StormWorldOptions) {
  const { time, random } = o;
  const log = createLogger('silent');
  const stack = await startLocalStack({
    port: 0,
    dataDir: null,
    // The stack's own timers (sweep, scheduler) run on real time against sessions stamped in virtual time: a day
    // apart, they never run during a storm (the sweep would take the simulated bots, which write no heartbeat, for
    // lost ones; the scheduler's queries would load dynalite). The scheduled storm runs the scheduler itself.
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
    for (let i = 0; i < o.accounts; i++) {
      const { account } = await stack.deps.accounts.create(`${o.accountName}-${i}`);
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
      retention: time.tracked(stack.deps.retention),
    };
    const config = {
      ...stack.config,
      POOL_CLAIM_TIMEOUT_MS: 2_000,
      RUN_TASK_RETRY_BUDGET_MS: 15_000,
      MAX_RUNNING_BOTS_PER_ACCOUNT: 1_000,
    };
    const counts = {
      poolClaims: 0,
      coldStarts: 0,
      idlePooled: 0,
      /** Store calls of a simulated bot that failed and were tried again (dynalite overloaded, not the design). */
      botErrors: 0,
      /** Control messages whose handling threw (redelivered by the simulated queue). */
      controlErrors: 0,
      /** Control function invocations, those stopped at the timeout, and messages returned as batch item failures. */
      controlInvocations: 0,
      controlTimeouts: 0,
      controlReturned: 0,
      /** Control messages moved to the DLQ (past maxReceiveCount). */
      controlDeadLettered: 0,
    };
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const clock = { now: time.now, sleep: time.sleep, random };
    const runnerSettings = {
      cluster: 'bots',
      taskDefinition: 'bot:1',
      containerName: 'bot',
      subnets: ['subnet-a'],
      securityGroups: ['sg-1'],
      assignPublicIp: true,
      capacityProviders: ['FARGATE_SPOT', 'FARGATE'],
      retryBudgetMs: config.RUN_TASK_RETRY_BUDGET_MS,
      retryBaseMs: config.RUN_TASK_RETRY_BASE_MS,
    };

    const queue = new SimPoolQueue(time);
    const pooledBot = async (task: SimTask, again = false): Promise<void> => {
      const claimed = o.onPooledWait?.(task, again);
      counts.idlePooled++;
      const session = await claimFromPool(
        { sessions: stores.sessions, queue, log, now: time.date },
        { poolBotId: task.arn, taskRef: task.arn, stopped },
      ).catch(() => 'error' as const);
      counts.idlePooled--;
      if (session === 'error') {
        // A store call that failed (dynalite slow on a loaded machine) crashes the real bot; its service starts
        // another, here the same one a second later.
        counts.botErrors++;
        await time.sleep(1_000);
        return pooledBot(task, true);
      }
      if (!session) return;
      claimed?.();
      counts.poolClaims++;
      o.inRoom(session.botId, true);
    };
    const coldBot = async (task: SimTask): Promise<void> => {
      // The bot-task reads its session and joins it (bot-task/main.ts), unless it ended meanwhile. A read that fails
      // (dynalite slow on a loaded machine) is tried again a second later, as the bot's store client retries.
      const session = await stores.sessions.get(task.botId!).catch(() => 'error' as const);
      if (session === 'error') {
        counts.botErrors++;
        await time.sleep(1_000);
        return coldBot(task);
      }
      if (session?.status !== 'running' || session.claimedBy !== coldClaimant) return;
      counts.coldStarts++;
      o.inRoom(session.botId, false);
    };
    const ecs = new SimEcs(
      time,
      o.quotas ?? awsQuotas,
      random,
      (task) => void (task.botId ? coldBot(task) : pooledBot(task)),
      o.pool,
      (task) => void pooledBot(task),
    );
    const controlRunners = Array.from(
      { length: controlInstances },
      () =>
        new EcsTaskRunner(
          ecs.client(),
          { ...runnerSettings, callsPerSecond: runTaskCallsPerSecond / controlInstances },
          clock,
        ),
    );

    /**
     * The control queue as an outbox, consumed as deployed: a message of `kinds` becomes visible after its delay, is
     * received in a batch by one of the control function's `controlInstances` invocations (each with its own RunTask
     * pacer, as each Lambda instance has), handled by the function's batch consumer within its timeout, and comes
     * back after the visibility timeout when it failed, was postponed or its invocation timed out, up to the DLQ
     * (`dead` is then called).
     */
    const controlQueue = <K extends ControlMessage['kind']>(
      kinds: readonly K[],
      handle: (m: Extract<ControlMessage, { kind: K }>, runner: EcsTaskRunner) => Promise<unknown>,
      dead?: () => void,
    ): Outbox => {
      type Held = { id: string; message: Extract<ControlMessage, { kind: K }>; receives: number };
      const visible: Held[] = [];
      const busy = new Set<number>();
      let ids = 0;
      const reserveMs = config.RUN_TASK_RETRY_BUDGET_MS + controlMessageOverheadMs;
      const later = (held: Held, at: number) =>
        time.at(at, () => {
          visible.push(held);
          poll();
        });
      /** Starts invocations while an instance is free and messages are visible. */
      const poll = () => {
        for (let slot = 0; slot < controlInstances && visible.length > 0; slot++) {
          if (busy.has(slot)) continue;
          const batch: Held[] = [];
          while (batch.length < controlSource.batchSize && visible.length > 0) {
            const held = visible.shift()!;
            held.receives++;
            if (held.receives > controlQueueLimits.maxReceiveCount) {
              counts.controlDeadLettered++;
              dead?.();
              continue;
            }
            batch.push(held);
          }
          if (batch.length > 0) invoke(slot, batch);
        }
      };
      const invoke = (slot: number, batch: Held[]) => {
        busy.add(slot);
        counts.controlInvocations++;
        const startedAt = time.now();
        const runner = controlRunners[slot]!;
        const byId = new Map(batch.map((h) => [h.id, h]));
        const consumer = sqsBatchHandler(
          { log, outbox: noSend, deliveryQueue: noSend },
          'control',
          (body) => body as Extract<ControlMessage, { kind: K }>,
          (_deps, m) =>
            handle(m, runner).catch((err: unknown) => {
              counts.controlErrors++;
              throw err;
            }),
          { reserveMs },
        );
        const context = {
          getRemainingTimeInMillis: () => startedAt + controlFunction.timeoutSeconds * 1000 - time.now(),
        };
        let over = false;
        const finish = (failed: Held[]) => {
          if (over) return;
          over = true;
          busy.delete(slot);
          for (const held of failed)
            later(held, startedAt + controlQueueLimits.visibilityTimeoutSeconds * 1000);
          time.at(time.now() + pollToInvokeMs, poll);
        };
        // Lambda stops an invocation at its timeout: its whole batch comes back (the simulation cannot stop the
        // abandoned work, which runs on; it is counted, and must stay 0).
        time.at(startedAt + controlFunction.timeoutSeconds * 1000, () => {
          if (over) return;
          counts.controlTimeouts++;
          finish(batch);
        });
        void consumer(
          {
            Records: batch.map((h) => ({
              messageId: h.id,
              receiptHandle: h.id,
              body: JSON.stringify(h.message),
              attributes: {
                ApproximateReceiveCount: String(h.receives),
                SentTimestamp: '0',
                SenderId: 'sim',
                ApproximateFirstReceiveTimestamp: '0',
              },
              messageAttributes: {},
              md5OfBody: '',
              eventSource: 'aws:sqs',
              eventSourceARN: 'arn:aws:sqs:us-east-1:111122223333:control',
              awsRegion: 'us-east-1',
            })),
          },
          context,
        ).then((result) => {
          counts.controlReturned += result.batchItemFailures.length;
          finish(result.batchItemFailures.map((f) => byId.get(f.itemIdentifier)!));
        });
      };
      return {
        send: async (message, options) => {
          const m = message as ControlMessage;
          if (!(kinds as readonly string[]).includes(m.kind)) return;
          const held: Held = {
            id: `c${ids++}`,
            message: m as Extract<ControlMessage, { kind: K }>,
            receives: 0,
          };
          later(held, time.now() + (options?.delaySeconds ?? 0) * 1000 + pollToInvokeMs);
        },
      };
    };

    /** Service deps for a join: the stack's, with the stores on the virtual clock and the given runner and outbox. */
    const serviceDeps = (
      c: Config,
      runner: TaskRunner,
      outbox: Outbox,
      poolQueue: PoolQueue | undefined,
    ): ServiceDeps => ({
      ...stack.deps,
      ...stores,
      config: c,
      runner,
      outbox,
      ...(poolQueue && { poolQueue }),
      log,
      now: time.date,
    });

    /**
     * Sends `joins` joins spread evenly over `windowMs` from now, from the accounts in turn, tallying the answers by
     * status: `joined` gets each accepted one's bot and when it was sent, `refused` is called for each thrown one.
     */
    const sendJoins = (
      joins: number,
      windowMs: number,
      deps: (i: number) => ServiceDeps,
      body: (i: number) => Record<string, string>,
      joined: (botId: string, sentAt: number) => void,
      refused: () => void,
    ): Record<string, number> => {
      const answers: Record<string, number> = {};
      const start = time.now();
      for (let i = 0; i < joins; i++) {
        time.at(start + Math.floor((i / joins) * windowMs), () => {
          const sentAt = time.now();
          startBot(deps(i), { accountId: accounts[i % o.accounts]!, keyId: 'k' }, body(i), undefined).then(
            (r) => {
              joined((r.body as { bot_id: string }).bot_id, sentAt);
              answers[String(r.status)] = (answers[String(r.status)] ?? 0) + 1;
            },
            (err: unknown) => {
              const status = err instanceof ApiError ? err.status : 500;
              answers[String(status)] = (answers[String(status)] ?? 0) + 1;
              refused();
            },
          );
        });
      }
      return answers;
    };

    return {
      stack,
      log,
      accounts,
      stores,
      config,
      counts,
      stopped,
      clock,
      runnerSettings,
      queue,
      ecs,
      controlRunners,
      controlQueue,
      serviceDeps,
      sendJoins,
      /** Ends the storm: idle pooled bots stop waiting, the pool's service launches no more, the stack closes. */
      close: async () => {
        stop();
        ecs.stopped = true;
        await stack.close();
      },
    };
  } catch (err) {
    await stack.close();
    throw err;
  }
}

/** The control function's side of a storm: invocations, those stopped at the timeout, returned and dead messages. */
export interface ControlFigures {
  invocations: number;
  timeouts: number;
  /** Messages returned as batch item failures (failed, or postponed for lack of time), each received again later. */
  returned: number;
  dead_lettered: number;
}

export function controlFigures(counts: StormWorld['counts']): ControlFigures {
  return {
    invocations: counts.controlInvocations,
    timeouts: counts.controlTimeouts,
    returned: counts.controlReturned,
    dead_lettered: counts.controlDeadLettered,
  };
}

/**
 * A warm pool's size and maximum as `cdk deploy` takes them (infra/settings.ts parses the CDK context): a benchmark of
 * a shape that cannot be deployed proves nothing, so a refused setting throws here.
 */
export function deployablePool(pool: { botPoolSize: number; botPoolMax: number }): {
  size: number;
  max: number;
} {
  const settings = parseSettings(pool);
  return { size: settings.botPoolSize, max: settings.botPoolMax };
}
