// The composition root: every adapter the service runs on, built from configuration, each at most once per process.
// The language engines and the voice are added by language-engines.ts, imported only where a process converses or
// analyses, so the HTTP functions' bundles carry no model SDK.
// The Lambda handlers, the bot-task, the admin CLI and the local stack all wire through here, so AWS and the local
// stand-ins differ only in the endpoints of the configuration (STYLE.md: one place builds SDK clients).
import type { SQSClient } from '@aws-sdk/client-sqs';
import { PoolGrowth } from '../bots/pool-growth';
import type { Config } from '../config';
import { type Outbox, routedOutbox } from '../control/outbox';
import { buildServiceDeps, type ServiceDeps, type Stores } from '../deps';
import type { Logger } from '../log';
import type { Mailer } from '../ports/mailer';
import type { PoolQueue } from '../ports/pool-queue';
import type { PoolScaler } from '../ports/pool-scaler';
import type { MessageQueue } from '../ports/queue';
import type { RateLimiter } from '../ports/rate-limiter';
import type { RecordingStore } from '../ports/recordings';
import type { TaskRunner } from '../ports/task-runner';
import { dynamoDocumentClient, ecsClient, s3Client, sesClient, sqsClient } from './aws-clients';
import { DynamoRateLimiter } from './dynamodb/rate-limiter';
import { buildStores } from './dynamodb/stores';
import type { TableHandle } from './dynamodb/table';
import { EcsPoolScaler } from './ecs/ecs-pool-scaler';
import { EcsTaskRunner } from './ecs/ecs-task-runner';
import { runTaskCallsPerSecond } from './ecs/run-task-errors';
import { FileRecordingStore } from './files/recording-store';
import { S3RecordingStore } from './s3/recording-store';
import { SesMailer } from './ses/ses-mailer';
import { SqsPoolQueue } from './sqs/pool-queue';
import { SqsQueue } from './sqs/sqs-queue';

/** The SQS client and queue URLs the delivery consumer moves its own messages with (retries, DLQ). */
export interface DeliveryQueues {
  sqs: SQSClient;
  queueUrl: string;
  dlqUrl: string;
}

export interface Adapters {
  readonly config: Config;
  readonly log: Logger;
  readonly table: TableHandle;
  readonly stores: Stores;
  readonly sqs: SQSClient;
  /** Where a bot that left hands over its session for results. */
  readonly resultsQueue: MessageQueue;
  /** Decisions about bot tasks (cold starts, replacements). */
  readonly controlQueue: MessageQueue;
  /** Events of a bot's life, FIFO per bot. */
  readonly botEventsQueue: MessageQueue;
  /** Every message of a bot's life, each to its queue (core/control/outbox.ts). */
  readonly outbox: Outbox;
  /** One job per channel of a finished session. */
  readonly deliveryQueue: MessageQueue;
  readonly deliveryQueues: DeliveryQueues;
  /** The warm pool's wake-up queue (POOL_QUEUE_URL); undefined without one. */
  readonly poolQueue: PoolQueue | undefined;
  readonly mailer: Mailer;
  /**
   * Meeting recordings: files under RECORDINGS_DIR when set (the local stack, which may put its own under the key
   * `recordings` with `own` first: its links name a port known only once it listens), else RECORDINGS_BUCKET on S3.
   */
  readonly recordings: RecordingStore;
  /** ECS RunTask/StopTask on the cluster of BOT_CLUSTER_ARN (the deployed join and leave functions). */
  readonly ecsRunner: TaskRunner;
  /** The same, pacing RunTask at `callsPerSecond` (the control function's share of ECS's rate: infra/limits.ts). */
  ecsRunnerAt(callsPerSecond: number): TaskRunner;
  /**
   * The warm pool's ECS service (BOT_POOL_SERVICE), raised by the scheduler ahead of scheduled sessions and by the
   * storm's growth; undefined without one.
   */
  readonly poolScaler: PoolScaler | undefined;
  /** The storm's growth of the pool, through `poolScaler`; undefined without one. */
  readonly poolGrowth: PoolGrowth | undefined;
  /** What the HTTP use cases need; the runner is ECS unless another is given (the local stack's child processes). */
  serviceDeps(parts?: { runner?: TaskRunner; rateLimiter?: RateLimiter; log?: Logger }): ServiceDeps;
  /**
   * A client or adapter built once under `key` and, when it has `destroy`, closed by `destroy()` (how
   * language-engines.ts adds the model clients without this module importing them).
   */
  own<T>(key: string, make: () => T): T;
  /** Closes the SDK clients built so far (sockets kept alive would hold a CLI or a test open). */
  destroy(): void;
}

/** Builds adapters lazily: a Lambda that never mails never builds an SES client. */
export function wireAdapters(config: Config, log: Logger): Adapters {
  const built = new Map<string, unknown>();
  const destroyers: (() => void)[] = [];
  const once = <T>(key: string, make: () => T): T => {
    if (!built.has(key)) built.set(key, make());
    return built.get(key) as T;
  };
  const own = <T>(key: string, make: () => T): T =>
    once(key, () => {
      const made = make();
      const d = (made as { destroy?: unknown }).destroy;
      if (typeof d === 'function') destroyers.push(() => d.call(made));
      return made;
    });
  const ecs = () => own('ecs', () => ecsClient(config));
  const queue = (key: string, url: string) => once(key, () => new SqsQueue(adapters.sqs, url));

  const adapters: Adapters = {
    config,
    log,
    get table() {
      const doc = () => own('dynamodb', () => dynamoDocumentClient(config));
      return once<TableHandle>('table', () => ({ doc: doc(), tableName: config.TABLE_NAME }));
    },
    get stores() {
      return once('stores', () => buildStores(adapters.table, config));
    },
    get sqs() {
      return own('sqs', () => sqsClient(config));
    },
    get resultsQueue() {
      return queue('resultsQueue', config.RESULTS_QUEUE_URL);
    },
    get controlQueue() {
      return queue('controlQueue', config.CONTROL_QUEUE_URL);
    },
    get botEventsQueue() {
      return queue('botEventsQueue', config.BOT_EVENTS_QUEUE_URL);
    },
    get outbox() {
      const { controlQueue: control, botEventsQueue: botEvents, resultsQueue: results } = adapters;
      return once('outbox', () => routedOutbox({ control, botEvents, results }));
    },
    get deliveryQueue() {
      return queue('deliveryQueue', config.DELIVERY_QUEUE_URL);
    },
    get poolQueue() {
      if (!config.POOL_QUEUE_URL) return undefined;
      return once('poolQueue', () => new SqsPoolQueue(adapters.sqs, config.POOL_QUEUE_URL));
    },
    get deliveryQueues() {
      return { sqs: adapters.sqs, queueUrl: config.DELIVERY_QUEUE_URL, dlqUrl: config.DELIVERY_DLQ_URL };
    },
    get mailer() {
      const ses = () => own('ses', () => sesClient(config));
      return once('mailer', () => new SesMailer(ses(), config.SES_FROM_ADDRESS));
    },
    get recordings() {
      const s3 = () => own('s3', () => s3Client(config));
      return once<RecordingStore>('recordings', () =>
        config.RECORDINGS_DIR
          ? new FileRecordingStore(config.RECORDINGS_DIR, {
              // Links are made by the local stack's own store, which knows its address (see `recordings` above).
              baseUrl: () => '',
              key: config.RECORDINGS_URL_KEY,
            })
          : new S3RecordingStore(s3(), config.RECORDINGS_BUCKET),
      );
    },
    get poolScaler() {
      const service = config.BOT_POOL_SERVICE;
      if (!service) return undefined;
      const pool = { cluster: config.BOT_CLUSTER_ARN, service, max: config.BOT_POOL_MAX };
      return once<PoolScaler>('poolScaler', () => new EcsPoolScaler(ecs(), pool));
    },
    get poolGrowth() {
      const scaler = adapters.poolScaler;
      if (!scaler) return undefined;
      return once('poolGrowth', () => new PoolGrowth(scaler));
    },
    get ecsRunner() {
      return adapters.ecsRunnerAt(runTaskCallsPerSecond);
    },
    ecsRunnerAt(callsPerSecond) {
      const c = config;
      const settings = {
        cluster: c.BOT_CLUSTER_ARN,
        taskDefinition: c.BOT_TASK_DEFINITION_ARN,
        containerName: c.BOT_CONTAINER_NAME,
        subnets: c.BOT_SUBNET_IDS,
        securityGroups: c.BOT_SECURITY_GROUP_IDS,
        assignPublicIp: c.BOT_ASSIGN_PUBLIC_IP,
        capacityProviders: c.BOT_CAPACITY_PROVIDERS,
        retryBudgetMs: c.RUN_TASK_RETRY_BUDGET_MS,
        retryBaseMs: c.RUN_TASK_RETRY_BASE_MS,
        retryAfterSeconds: c.CAPACITY_RETRY_AFTER_SECONDS,
        callsPerSecond,
      };
      return once(`ecsRunner@${callsPerSecond}`, () => new EcsTaskRunner(ecs(), settings, {}, log));
    },
    own,
    serviceDeps(parts = {}) {
      return buildServiceDeps(config, {
        stores: adapters.stores,
        runner: parts.runner ?? adapters.ecsRunner,
        outbox: adapters.outbox,
        ...(adapters.poolQueue && { poolQueue: adapters.poolQueue }),
        log: parts.log ?? log,
        rateLimiter: parts.rateLimiter ?? new DynamoRateLimiter(adapters.table),
        recordings: () => adapters.recordings,
      });
    },
    destroy() {
      for (const d of destroyers.splice(0)) d();
      built.clear();
    },
  };
  return adapters;
}
