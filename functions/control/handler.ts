// Lambda entry: the control plane's consumer of two queues (SQS event sources with ReportBatchItemFailures): the
// control queue (cold starts, replacements) and the bot-events queue (FIFO per bot: lifecycle and failure events).
import type { Config } from '../../core/config';
import { controlPlaneMessageSchema } from '../../core/control/messages';
import { type ControlDeps, processControl } from '../../core/control/process-control';
import { eventSourceLimits, runTaskCallsPerSecond } from '../../infra/limits';
import { builtEntry } from '../runtime';
import { sqsBatchHandler } from '../sqs-batch';
import { botIdOfBatch } from '../tracing';

/** Time a control message takes beyond its RunTask budget: the session's reads and writes and the sends. */
export const controlMessageOverheadMs = 5_000;

export function makeControlHandler(
  deps: ControlDeps & { config: ControlDeps['config'] & Pick<Config, 'RUN_TASK_RETRY_BUDGET_MS'> },
) {
  // A cold start may retry RunTask for its whole budget: it is begun only while that fits in the time left
  // (infra/limits.ts sizes the function's timeout for it).
  return sqsBatchHandler(deps, 'control', (body) => controlPlaneMessageSchema.parse(body), processControl, {
    reserveMs: deps.config.RUN_TASK_RETRY_BUDGET_MS + controlMessageOverheadMs,
  });
}

export const handler = builtEntry(
  'control',
  (a) =>
    makeControlHandler({
      stores: a.stores,
      config: a.config,
      // Cold starts and replacements are ECS tasks like any bot; the queue runs `maxConcurrency` of this function at
      // once, each pacing RunTask at its share of ECS's rate.
      runner: a.ecsRunnerAt(runTaskCallsPerSecond / eventSourceLimits.control.maxConcurrency),
      ...(a.poolGrowth && { poolDemand: (n: number) => a.poolGrowth!.demand(n) }),
      ...(a.poolQueue && { poolQueue: a.poolQueue }),
      outbox: a.outbox,
      deliveryQueue: a.deliveryQueue,
      log: a.log,
      now: () => new Date(),
    }),
  botIdOfBatch,
);
