// One SQS batch consumer for the queue-driven stages (results, control): each record parsed and handled with its
// correlation id, a failure reported as that record's batch item failure (the queue retries it, then dead-letters
// it). From a FIFO queue, once a record fails the rest of the batch goes back unprocessed, as AWS asks of FIFO
// consumers, so nothing of a group is handled before a message that came first.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Outbox } from '../core/control/outbox';
import { correlatedLog, correlatedQueue, correlationOf } from '../core/correlation';
import type { Logger } from '../core/log';
import type { MessageQueue } from '../core/ports/queue';

/** What every stage's dependencies hold that a message's correlation id applies to. */
interface CorrelatedDeps {
  log: Logger;
  outbox: Outbox;
  deliveryQueue: MessageQueue;
}

/** The stage's logger and queues for one message: its correlation id on each line and in each message sent on. */
function correlated<D extends CorrelatedDeps>(deps: D, id: string | undefined): D {
  if (!id) return deps;
  return {
    ...deps,
    log: correlatedLog(deps.log, id),
    outbox: correlatedQueue(deps.outbox, id),
    deliveryQueue: correlatedQueue(deps.deliveryQueue, id),
  };
}

export function sqsBatchHandler<D extends CorrelatedDeps, M>(
  deps: D,
  stage: string,
  parse: (body: unknown) => M,
  handle: (deps: D, message: M, receiveCount: number) => Promise<unknown>,
) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      if (batchItemFailures.length > 0 && record.eventSourceARN?.endsWith('.fifo')) {
        batchItemFailures.push({ itemIdentifier: record.messageId });
        continue;
      }
      try {
        const body: unknown = JSON.parse(record.body);
        await handle(
          correlated(deps, correlationOf(body)),
          parse(body),
          Number(record.attributes?.ApproximateReceiveCount ?? 1),
        );
      } catch (err) {
        deps.log.error(`${stage} message failed; it will be retried, then dead-lettered`, {
          message_id: record.messageId,
          err,
        });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
