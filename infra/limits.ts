// The deployed limits of every function, event source and queue, declared once: the CDK constructs are built from
// them, the local stack enforces them (local/queues.ts, local/queue-poller.ts), and test/infra/limits.test.ts checks
// the synthesized template says the same, so a local run meets the timeouts, batches and redrives AWS applies.
// Pure data: no CDK import, so the local stack and the benchmarks read it without the CDK app.

export interface FunctionLimits {
  /** Lambda's timeout: past it the invocation is stopped, and a queue batch it held comes back later. */
  timeoutSeconds: number;
  memoryMiB: number;
}

export interface QueueLimits {
  /** How long a received message stays hidden: a batch that failed or timed out comes back after it. */
  visibilityTimeoutSeconds: number;
  /** Receives before SQS moves a message to the queue's DLQ (none: the queue has no DLQ). */
  maxReceiveCount?: number;
  retentionSeconds: number;
  /** MaximumMessageSize: a larger SendMessage is refused (so the sender fails loudly, here as on AWS). */
  maxMessageBytes: number;
}

export interface EventSourceLimits {
  batchSize: number;
  /** MaximumBatchingWindowInSeconds (0: a batch goes as soon as there are messages). */
  maxBatchingWindowSeconds: number;
  /** The event source's MaximumConcurrency (absent: Lambda scales with the queue). */
  maxConcurrency?: number;
}

const fourteenDays = 14 * 24 * 3600;

/**
 * SQS's long-standing 256 KiB, set explicitly: the default of a queue's MaximumMessageSize has changed (SQS accepts up
 * to 1 MiB since 2025) and the local queues' default is 1 MiB, so an unset value would differ between the two.
 * Our messages carry references and short events, far below it.
 */
const maxMessageBytes = 262_144;

/**
 * AWS's guidance for a Lambda consumer: a queue's visibility timeout at least six times the function's timeout, so a
 * batch is not handed to a second instance while the first still works on it (and retries of throttled invocations
 * fit): https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html
 */
const visibilityFor = (fn: FunctionLimits) => fn.timeoutSeconds * 6;

/** A queue a function consumes: visibility for that function, a DLQ after `maxReceiveCount` receives, 14 days. */
const consumed = (fn: FunctionLimits, maxReceiveCount: number) => ({
  visibilityTimeoutSeconds: visibilityFor(fn),
  maxReceiveCount,
  retentionSeconds: fourteenDays,
  maxMessageBytes,
});

/** Control function instances the control queue runs at once: 2 is the least SQS event sources allow. */
export const controlConcurrency = 2;

export { runTaskCallsPerSecond } from '../core/adapters/ecs/run-task-errors';

const control: FunctionLimits = { timeoutSeconds: 60, memoryMiB: 512 };
const results: FunctionLimits = { timeoutSeconds: 120, memoryMiB: 512 };
const delivery: FunctionLimits = { timeoutSeconds: 90, memoryMiB: 512 };

export const functionLimits = {
  /**
   * Cold starts and replacements, each allowed RUN_TASK_RETRY_BUDGET_MS (at most 25 s, core/config.ts) of RunTask
   * retries: a batch's starts run side by side (functions/sqs-batch.ts), and a message is only begun while one
   * budget still fits in the time left, so the function never times out on a throttled storm.
   */
  control,
  /**
   * One step of a session's results an invocation, each its own message: the insights (a model call of up to 90 s)
   * and their save, then the recording's streamed assembly and the completion.
   */
  results,
  /** A batch of 5 deliveries, each a webhook POST of at most 15 s or an e-mail. */
  delivery,
  taskStopped: { timeoutSeconds: 30, memoryMiB: 512 },
  sweeper: { timeoutSeconds: 60, memoryMiB: 512 },
  scheduler: { timeoutSeconds: 60, memoryMiB: 512 },
  /** The join waits for RunTask (with a capacity retry); API Gateway's HTTP API integration limit is 30 s. */
  join: { timeoutSeconds: 29, memoryMiB: 1024 },
  /** Every other route function (status, leave, list, deliveries, data, recording). */
  route: { timeoutSeconds: 10, memoryMiB: 1024 },
  openapi: { timeoutSeconds: 10, memoryMiB: 512 },
  notFound: { timeoutSeconds: 5, memoryMiB: 256 },
} as const satisfies Record<string, FunctionLimits>;

export const queueLimits = {
  /** Receives of a control message before it is dead-lettered (a crash; throttled starts are re-sent, not retried). */
  control: consumed(control, 5),
  /** Each bot's events, FIFO: a failed one holds its bot's later events until it comes back. */
  botEvents: consumed(control, 5),
  /** Bedrock throttles are retried by SQS. */
  results: consumed(results, 8),
  /**
   * The delivery function retries a webhook by hiding its message (backoff up to 12 h) about 15 times over ~76 h and
   * parks a job that gives up in the DLQ itself; SQS's redrive sits above that, so crashes never cut retries short.
   */
  delivery: consumed(delivery, 20),
  /**
   * The warm pool's wake-ups: worth something for seconds (the fallback has started a cold task by then), so no DLQ
   * and five minutes' retention. They are the only way a pooled bot learns of a session, so one that is received and
   * not taken off comes back after 1 s, before the 2 s fallback: a bot that died holding it, or a long poll whose
   * connection died with its bot (SQS may hand a message to a poll nobody reads any more). A claim takes tens of
   * milliseconds; one slower than a second only lets a second bot try it, and lose the conditional write.
   */
  pool: { visibilityTimeoutSeconds: 1, retentionSeconds: 300, maxMessageBytes },
} as const satisfies Record<string, QueueLimits>;

/** Every DLQ keeps what it holds for 14 days, so a parked message outlives a long weekend. */
export const deadLetterRetentionSeconds = fourteenDays;

export const eventSourceLimits = {
  /** Cold starts and replacements: two instances, each pacing RunTask at half the account's rate. */
  control: { batchSize: 10, maxBatchingWindowSeconds: 0, maxConcurrency: controlConcurrency },
  botEvents: { batchSize: 10, maxBatchingWindowSeconds: 0 },
  /** One message an invocation: insights for one bot can take tens of seconds. */
  results: { batchSize: 1, maxBatchingWindowSeconds: 0 },
  delivery: { batchSize: 5, maxBatchingWindowSeconds: 0 },
} as const satisfies Record<string, EventSourceLimits>;

/** The queue-driven functions: which queue feeds which function, with its event source's settings. */
export const queueConsumers = {
  control: { queue: 'control', function: 'control' },
  botEvents: { queue: 'botEvents', function: 'control' },
  results: { queue: 'results', function: 'results' },
  delivery: { queue: 'delivery', function: 'delivery' },
} as const satisfies Record<
  keyof typeof eventSourceLimits,
  { queue: keyof typeof queueLimits; function: keyof typeof functionLimits }
>;

/** A route function's limits by its name in functions/http/route-table.ts. */
export function routeLimits(name: string): FunctionLimits {
  if (name === 'join') return functionLimits.join;
  if (name === 'openapi') return functionLimits.openapi;
  return functionLimits.route;
}
