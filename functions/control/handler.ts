// Lambda entry: the control plane's consumer of two queues (SQS event sources with ReportBatchItemFailures): the
// control queue (cold starts, replacements) and the bot-events queue (FIFO per bot: lifecycle and failure events).
import type { SQSEvent } from 'aws-lambda';
import { controlPlaneMessageSchema } from '../../core/control/messages';
import { type ControlDeps, processControl } from '../../core/control/process-control';
import { flushingMetrics, lambdaAdapters, lambdaEntry } from '../runtime';
import { sqsBatchHandler } from '../sqs-batch';
import { botIdOfBatch } from '../tracing';

export function makeControlHandler(deps: ControlDeps) {
  return sqsBatchHandler(deps, 'control', (body) => controlPlaneMessageSchema.parse(body), processControl);
}

let handlerInstance: ReturnType<typeof makeControlHandler> | undefined;

export const handler = lambdaEntry(
  'control',
  flushingMetrics(async (event: SQSEvent) => {
    if (!handlerInstance) {
      const a = lambdaAdapters('control');
      handlerInstance = makeControlHandler({
        stores: a.stores,
        config: a.config,
        // Cold starts and replacements are ECS tasks like any bot.
        runner: a.ecsRunner,
        ...(a.poolGrowth && { poolDemand: (n: number) => a.poolGrowth!.demand(n) }),
        ...(a.poolQueue && { poolQueue: a.poolQueue }),
        outbox: a.outbox,
        deliveryQueue: a.deliveryQueue,
        log: a.log,
        now: () => new Date(),
      });
    }
    return handlerInstance(event);
  }),
  botIdOfBatch,
);
