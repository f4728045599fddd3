// The embedded default: the whole service on one machine, no cloud account, no network (ARCHITECTURE.md).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureTable } from '../core/adapters/dynamodb/table';
import { FileRecordingStore } from '../core/adapters/files/recording-store';
import { describeEngine, languageEngines } from '../core/adapters/language-engines';
import { MemoryRateLimiter } from '../core/adapters/memory/rate-limiter';
import { wireAdapters } from '../core/adapters/wiring';
import { reconcileHolds, reconcileSettings } from '../core/bots/reconcile-holds';
import { runScheduler } from '../core/bots/scheduled-joins';
import { sweepSettings, sweepStaleSessions } from '../core/bots/sweep-stale';
import { onTaskStopped } from '../core/bots/task-stopped';
import { type Config, type Group, groupNames, loadConfig } from '../core/config';
import type { OutboxMessage } from '../core/control/outbox';
import { finishPendingDeletions, sweepDeletionBudgetMs } from '../core/data/delete-meeting-data';
import { retentionDeadline, sweepRetention } from '../core/data/retention';
import type { ServiceDeps } from '../core/deps';
import { createLogger, type Logger } from '../core/log';
import { makeControlHandler } from '../functions/control/handler';
import { makeDeliveryHandler } from '../functions/delivery/handler';
import { makeResultsHandler } from '../functions/results/handler';
import { eventSourceLimits, functionLimits, queueConsumers } from '../infra/limits';
import { apiDocs } from './api-docs';
import { startApiServer } from './api-server';
import { type BotContainer, detectEngine } from './container-engine';
import { startDynalite } from './dynalite';
import { mailViewer } from './mail-viewer';
import { type PollerOptions, QueuePoller } from './queue-poller';
import { startLocalQueues } from './queues';
import { recordingDownloads } from './recordings';
import { createRoomServer } from './room/room-server';
import { startLocalSes } from './ses';
import { stackFileName } from './stack-file';
import { LocalTaskRunner } from './task-runner';

export interface LocalStackOptions {
  port?: number;
  /** Where dynalite's files and bot logs live; null keeps the database in memory (tests). */
  dataDir?: string | null;
  /**
   * Settings on top of the local defaults and the process environment; tests may name tunables and the names of
   * LOCAL_STACK here too.
   */
  env?: Record<string, string>;
  /** Create (first start) or reuse the dev account and print its key. */
  devAccount?: boolean;
  log?: Logger;
}

type Consumer = keyof typeof queueConsumers;

/**
 * Handlers of one event source running at once here. Where the deployed event source sets a maximum concurrency
 * (the control queue), that; elsewhere Lambda scales with the queue, which one local process cannot: a local choice.
 */
const localConcurrency: Record<Consumer, number> = {
  control: eventSourceLimits.control.maxConcurrency,
  botEvents: 2,
  results: 1,
  delivery: 4,
};

export interface DevAccount {
  account_id: string;
  api_key: string;
  webhook_secret: string;
}

export type LocalStack = Awaited<ReturnType<typeof startLocalStack>>;

/** How long a bot has, once the stack shuts down, to save its transcript and ask for its replacement. */
const botShutdownGraceMs = 2_000;

/**
 * The local event sources' long poll: a message wakes a waiting receive at once, so the wait only sets how often an
 * idle queue is asked: SQS's longest (each poll's request timeout covers it: aws-clients.ts `longPollOptions`); at
 * 1 s, the 8 pollers asked 8 times a second.
 */
const pollWaitSeconds = 20;

/** BOT_RUNNER=container: the engine and image bots run in; undefined for bot processes. */
function botContainer(config: Config): BotContainer | undefined {
  if (config.BOT_RUNNER !== 'container') return undefined;
  const engine = detectEngine();
  if (!engine) throw new Error('BOT_RUNNER=container needs docker (its daemon running) or podman');
  return { engine, image: config.BOT_IMAGE, runArgs: config.BOT_CONTAINER_ARGS };
}

/** What local mode changes from the AWS defaults. */
const localDefaults: Record<string, string> = {
  AWS_REGION: 'local',
  // One warm bot process, so `npm start` shows the pool's join time; BOT_POOL_SIZE=0 turns it off.
  BOT_POOL_SIZE: '1',
  // Node 20 is supported locally; the SDK's notice about its future Node 22 floor is noise here.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** Under each JSON variable (core/config.ts), what local mode changes from its defaults. */
const localGroups: Partial<Record<Group, Record<string, unknown>>> = {
  LOCAL_STACK: {
    ALLOW_INSECURE_WEBHOOKS: true,
    ALLOW_LOCAL_ROOMS: true,
    // Its pooled bots expect local rooms (npm start's demo room); BOT_POOL_PROVIDER=daily warms Chromium instead.
    BOT_POOL_PROVIDER: 'local',
  },
  MEETING_BOT_TEST_TUNABLES: {
    // A bot process starts in a second or two here (no image pull, no Fargate placement): a scheduled session's
    // task starts 15 s before join_at rather than the AWS default's 90 s.
    SCHEDULE_COLD_LEAD_MS: 15_000,
  },
};

/**
 * The stack's environment with each JSON variable of core/config.ts filled in, the one way its names reach this
 * process's config and its bots: the local defaults, over them the variable as given, then the names given one by one
 * (a local-stack name such as BOT_RUNNER from the environment or the `env` option; a tunable only from the option, a
 * test's), then `own`, what this stack sets itself (its endpoints and queues).
 */
function grouped(
  env: Record<string, string | undefined>,
  given: Record<string, string> = {},
  own: Partial<Record<Group, Record<string, unknown>>> = {},
) {
  const all = { ...env, ...given };
  const out: Record<string, string | undefined> = { ...all };
  for (const [group, names] of Object.entries(groupNames) as [Group, ReadonlySet<string>][]) {
    const from = group === 'MEETING_BOT_TEST_TUNABLES' ? given : all;
    for (const name of names) delete out[name];
    out[group] = JSON.stringify({
      ...localGroups[group],
      ...JSON.parse(all[group] ?? '{}'),
      ...Object.fromEntries(Object.entries(from).filter(([k]) => names.has(k))),
      ...own[group],
    });
  }
  return out;
}

export async function startLocalStack(options: LocalStackOptions = {}) {
  const dataDir = options.dataDir === undefined ? resolve(process.env.DATA_DIR ?? '.data') : options.dataDir;
  // Before the first SDK client (the local queues build one): the SDK reads this when a client is created.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Before anything starts: without a container engine there is nothing to close.
  const requested = loadConfig(grouped({ ...localDefaults, ...process.env }, options.env));
  const container = botContainer(requested);
  const dynamo = await startDynalite({ path: dataDir ? join(dataDir, 'dynamodb') : undefined });
  // The queues' deployed visibility, redrive, retention and message size (infra/limits.ts).
  const queues = await startLocalQueues({ stateFile: dataDir ? join(dataDir, 'queues.json') : undefined });
  const ses = await startLocalSes();
  // Recordings are files (the bots, child processes, write their pieces there too); a stack without a data directory
  // keeps them in a temporary one. Download links are signed with a key of this run.
  const recordingsDir = dataDir
    ? join(dataDir, 'recordings')
    : mkdtempSync(join(tmpdir(), 'meeting-bot-recordings-'));
  const recordingsKey = randomBytes(32).toString('base64url');
  const env = {
    ...grouped({ ...localDefaults, ...process.env }, options.env, {
      LOCAL_STACK: {
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        SQS_ENDPOINT: queues.endpoint,
        SES_ENDPOINT: ses.endpoint,
        RECORDINGS_DIR: recordingsDir,
        RECORDINGS_URL_KEY: recordingsKey,
      },
      QUEUE_URLS: {
        RESULTS_QUEUE_URL: queues.results.url,
        CONTROL_QUEUE_URL: queues.control.url,
        BOT_EVENTS_QUEUE_URL: queues.botEvents.url,
        DELIVERY_QUEUE_URL: queues.delivery.url,
        DELIVERY_DLQ_URL: queues.deliveryDlq.url,
        POOL_QUEUE_URL: queues.pool.url,
      },
    }),
    // Containers cannot be pooled (see LocalTaskRunner): with no pool, a join starts its bot at once instead of
    // offering the session to nobody and falling back after POOL_CLAIM_TIMEOUT_MS.
    ...(container && { BOT_POOL_SIZE: '0' }),
  };
  const config = loadConfig(env);
  const log =
    options.log ??
    createLogger(config.LOG_LEVEL, { component: 'local-stack' }, { format: config.LOG_FORMAT });
  if (queues.damagedStateFile) {
    log.warn('the local queues state file was unreadable: moved aside, queues start empty', {
      file: queues.damagedStateFile,
    });
  }
  if (queues.restored > 0) log.info('queued messages restored from the last run', { count: queues.restored });
  // The same composition root as the deployed functions; only the endpoints in `config` differ.
  const adapters = wireAdapters(config, log);
  // The links and rooms name the API's address, known once it listens (a test's port 0).
  let baseUrl = '';
  const recordings = adapters.own(
    'recordings',
    () => new FileRecordingStore(recordingsDir, { baseUrl: () => baseUrl, key: recordingsKey }),
  );
  log.info('language engines', {
    conversation: describeEngine(config, 'conversation'),
    insights: describeEngine(config, 'insights'),
  });
  const { table, stores, sqs, outbox } = adapters;
  await ensureTable(table);

  const botEnv = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  if (container) {
    log.info('bots run as containers', { engine: container.engine.kind, image: container.image });
    if (requested.BOT_POOL_SIZE > 0)
      log.warn('BOT_RUNNER=container runs no warm pool: every join starts a container', {
        bot_pool_size: requested.BOT_POOL_SIZE,
      });
  }
  const runner = new LocalTaskRunner({
    ...(container && { container }),
    env: botEnv,
    logDir: join(dataDir ?? join(resolve('.data'), 'tmp'), 'bots'),
    onExit: (botId, code, signal, attempt, claimant) => {
      const reason = signal ? `killed by ${signal}` : `exited with code ${code}`;
      void onTaskStopped(
        { stores, config, outbox, log },
        { botId, reason, clean: code === 0, attempt, ...(claimant && { claimant }) },
      ).catch((err) => log.error('task-stopped handling failed', { bot_id: botId, err }));
    },
    poolSize: config.BOT_POOL_SIZE,
    onPoolError: (err) => log.warn('a pooled bot could not be started; retrying', { err }),
  });
  // One process serves every request here, so counting in memory is exact (Lambda counts in DynamoDB).
  const deps = adapters.serviceDeps({ runner, rateLimiter: new MemoryRateLimiter() });

  const now = () => new Date();
  /** The last messages the control and results stages processed, in the order they were (newest last). */
  const messagesSeen: OutboxMessage[] = [];
  const seen = (m: OutboxMessage) => {
    messagesSeen.push(m);
    if (messagesSeen.length > 400) messagesSeen.shift();
  };
  // The Lambda event sources' stand-ins: each long-polls its queue and hands batches of the deployed size to the
  // function's handler, within the function's timeout.
  // Each event source's poller settings: the deployed batch and function timeout (test/infra/limits.test.ts).
  const eventSources = {} as Record<Consumer, PollerOptions>;
  const eventSource = (consumer: Consumer, handler: ConstructorParameters<typeof QueuePoller>[2]) => {
    const queue = queues[consumer];
    eventSources[consumer] = {
      queueArn: queue.arn,
      region: config.AWS_REGION,
      waitSeconds: pollWaitSeconds,
      batchSize: eventSourceLimits[consumer].batchSize,
      timeoutMs: functionLimits[queueConsumers[consumer].function].timeoutSeconds * 1000,
      concurrency: localConcurrency[consumer],
    };
    const poller = new QueuePoller(sqs, queue.url, handler, eventSources[consumer], log);
    poller.start();
    return poller;
  };
  const stage = {
    stores,
    config,
    outbox,
    deliveryQueue: adapters.deliveryQueue,
    log,
    now,
    onProcessed: seen,
  };
  const resultsPoller = eventSource(
    'results',
    makeResultsHandler({
      ...stage,
      insights: languageEngines(adapters).insights,
      recordings: adapters.recordings,
    }),
  );
  // The control function's two event sources: cold starts and replacements (started here as child processes, as the
  // control function starts ECS tasks), and the bots' events, FIFO per bot.
  const control = makeControlHandler({
    ...stage,
    runner,
    ...(adapters.poolQueue && { poolQueue: adapters.poolQueue }),
  });
  const controlPollers = [eventSource('control', control), eventSource('botEvents', control)];
  const deliveryPoller = eventSource(
    'delivery',
    makeDeliveryHandler({ stores, mailer: adapters.mailer, config, log, now }, adapters.deliveryQueues),
  );
  // The sweeper Lambda's steps, in its order; each runs even when one before it failed.
  const failed =
    (what: string, level: 'warn' | 'error' = 'error') =>
    (err: unknown) =>
      log[level](`${what} failed`, { err });
  const sweeper = setInterval(async () => {
    await sweepStaleSessions({ stores, config, outbox, log }, sweepSettings(config)).catch(
      failed('heartbeat sweep', 'warn'),
    );
    // Holds whose session was never written (a join that died half-way) are released.
    await reconcileHolds({ stores, log }, reconcileSettings(config)).catch(
      failed('hold reconciliation', 'warn'),
    );
    // Deletions cut off half-way are finished.
    const deadline = new Date(Date.now() + sweepDeletionBudgetMs);
    await finishPendingDeletions({ stores, recordings, log, now, deadline }).catch(
      failed('finishing pending deletions'),
    );
    // Content past its account's retention is deleted (the tombstone stays).
    await sweepRetention({
      stores,
      config,
      recordings,
      outbox,
      log,
      now,
      deadline: retentionDeadline(now()),
    }).catch(failed('retention sweep'));
  }, config.HEARTBEAT_MS);

  // The scheduler: EventBridge runs it every minute on AWS; here a timer, often enough that a join's horizon is short.
  const poolScaler = config.BOT_POOL_SIZE > 0 ? runner : undefined;
  const scheduler = setInterval(() => {
    void runScheduler({ stores, outbox, config, log, ...(poolScaler && { poolScaler }) }, now()).catch(
      failed('scheduler run', 'warn'),
    );
  }, config.SCHEDULE_TICK_MS);

  const rooms = createRoomServer({ baseUrl: () => baseUrl });
  rooms.createRoom('demo', false);
  const port = options.port ?? Number(process.env.PORT ?? 3000);
  const api = await startApiServer(deps, {
    port,
    mounts: [
      rooms.handle,
      mailViewer(() => ses.mails()),
      apiDocs(),
      recordingDownloads(recordings, recordingsKey),
    ],
  });
  baseUrl = api.baseUrl;
  api.server.on('upgrade', (req, socket, head) => {
    if (!rooms.upgrade(req, socket, head)) socket.destroy();
  });
  const devAccount = options.devAccount ? await ensureDevAccount(deps, dataDir, env) : undefined;
  // Idle bots need nothing but the database; they wait for the first join from here.
  runner.fillPool();

  if (dataDir) {
    writeFileSync(
      join(dataDir, stackFileName),
      JSON.stringify({
        pid: process.pid,
        base_url: api.baseUrl,
        dynamodb_endpoint: dynamo.endpoint,
        sqs_endpoint: queues.endpoint,
        delivery_queue_url: queues.delivery.url,
        delivery_dlq_url: queues.deliveryDlq.url,
        bot_events_queue_url: queues.botEvents.url,
        ses_endpoint: ses.endpoint,
        recordings_dir: recordingsDir,
      }),
    );
  }

  let closing: Promise<void> | undefined;
  return {
    baseUrl: api.baseUrl,
    config,
    deps,
    table,
    runner,
    api,
    rooms,
    queues,
    /** Local SES v2 endpoint; GET <sesEndpoint>/store lists the mails sent. */
    sesEndpoint: ses.endpoint,
    messagesSeen,
    /** Where a bot's messages go, each to its queue (the bots' own outbox, on this stack's queues). */
    outbox,
    dynamoEndpoint: dynamo.endpoint,
    /** OS thread id of the dynalite worker (Linux only; for benchmarks' CPU accounting). */
    dynamoThreadId: dynamo.threadId,
    eventSources,
    devAccount,
    close(): Promise<void> {
      closing ??= (async () => {
        clearInterval(sweeper);
        clearInterval(scheduler);
        // The stack going away stops its bots as the platform would (Spot, scale-in): each asks for a replacement
        // and saves its transcript. The control and results stages stop first, so no replacement starts now: the
        // requests wait in the queue (kept in DATA_DIR) and the next start replaces the bots — in the demo room the
        // conversation goes on; a room that went with this process is gone, and that session fails with its
        // partial transcript.
        const stages = [resultsPoller, ...controlPollers];
        await Promise.all(stages.map((p) => p.stop()));
        await runner.closeAll(botShutdownGraceMs);
        // What the stopped pollers' abandoned waits took during the bots' shutdown goes back to ready (queues.ts).
        for (const p of stages) await queues.releaseUnreceived(p.url, (r) => p.received(r));
        // The rooms' sockets go before the API server, which waits for every connection to end.
        rooms.close();
        await api.close();
        await deliveryPoller.stop();
        await queues.releaseUnreceived(deliveryPoller.url, (r) => deliveryPoller.received(r));
        await ses.close();
        await queues.stop();
        adapters.destroy();
        await dynamo.close();
        if (dataDir) rmSync(join(dataDir, stackFileName), { force: true });
      })();
      return closing;
    },
  };
}

/** The dev account of this data directory: created on first start, its key kept in DATA_DIR (local only). */
async function ensureDevAccount(
  deps: ServiceDeps,
  dataDir: string | null,
  env: Record<string, string | undefined>,
): Promise<DevAccount> {
  const file = dataDir ? join(dataDir, 'dev-account.json') : null;
  if (file && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DevAccount;
    if (await deps.accounts.get(saved.account_id)) return saved;
  }
  const { account, apiKey } = await deps.accounts.create('Local developer');
  await deps.ledger.grant(account.accountId, Number(env.DEV_CREDITS ?? 1000), 'dev account');
  const dev = { account_id: account.accountId, api_key: apiKey, webhook_secret: account.webhookSecret };
  if (file) {
    mkdirSync(dataDir!, { recursive: true });
    writeFileSync(file, JSON.stringify(dev, null, 2), { mode: 0o600 });
  }
  return dev;
}
