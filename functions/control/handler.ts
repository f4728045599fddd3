// Lambda entry: the control plane's consumer of two queues (SQS event sources with ReportBatchItemFailures): the
// control queue (cold starts, replacements) and the bot-events queue (FIFO per bot: lifecycle and failure events).
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { controlPlaneMessageSchema } from '../../core/control/messages';
import { type ControlDeps, processControl } from '../../core/control/process-control';
import { correlatedLog, correlatedQueue, correlationOf } from '../../core/correlation';
import { flushingMetrics, lambdaAdapters, lambdaEntry } from '../runtime';
import { botIdOfBatch } from '../tracing';

/** The stage's logger and queues for one message: its correlation id on each line and in each message sent on. */
function correlatedDeps(deps: ControlDeps, id: string | undefined): ControlDeps {
  if (!id) return deps;
  return {
    ...deps,
    log: correlatedLog(deps.log, id),
    outbox: correlatedQueue(deps.outbox, id),
    deliveryQueue: correlatedQueue(deps.deliveryQueue, id),
  };
}

export function makeControlHandler(deps: ControlDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      // A FIFO batch holds a bot's messages in order: once one fails, the rest of the batch goes back unprocessed,
      // as AWS asks of FIFO consumers, so nothing is handled before a message that came first.
      if (batchItemFailures.length > 0 && record.eventSourceARN.endsWith('.fifo')) {
        batchItemFailures.push({ itemIdentifier: record.messageId });
        continue;
      }
      try {
        const body: unknown = JSON.parse(record.body);
        const message = controlPlaneMessageSchema.parse(body);
        await processControl(
          correlatedDeps(deps, correlationOf(body)),
          message,
          Number(record.attributes?.ApproximateReceiveCount ?? 1),
        );
      } catch (err) {
        deps.log.error('control message failed; it will be retried, then dead-lettered', {
          message_id: record.messageId,
          err,
        });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
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
