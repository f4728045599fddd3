// Lambda entry: the results queue consumer (SQS event source with ReportBatchItemFailures).
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { languageEngines } from '../../core/adapters/language-engines';
import { correlatedLog, correlatedQueue, correlationOf } from '../../core/correlation';
import { resultsMessageSchema } from '../../core/results/messages';
import { processResults, type ResultsDeps } from '../../core/results/process-results';
import { flushingMetrics, lambdaAdapters, lambdaEntry } from '../runtime';
import { botIdOfBatch } from '../tracing';

/** The stage's logger and queues for one message: its correlation id on each line and in each message sent on. */
function correlatedDeps(deps: ResultsDeps, id: string | undefined): ResultsDeps {
  if (!id) return deps;
  return {
    ...deps,
    log: correlatedLog(deps.log, id),
    outbox: correlatedQueue(deps.outbox, id),
    deliveryQueue: correlatedQueue(deps.deliveryQueue, id),
  };
}

export function makeResultsHandler(deps: ResultsDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const body: unknown = JSON.parse(record.body);
        const message = resultsMessageSchema.parse(body);
        await processResults(
          correlatedDeps(deps, correlationOf(body)),
          message,
          Number(record.attributes?.ApproximateReceiveCount ?? 1),
        );
      } catch (err) {
        deps.log.error('results message failed; it will be retried, then dead-lettered', {
          message_id: record.messageId,
          err,
        });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

let handlerInstance: ReturnType<typeof makeResultsHandler> | undefined;

export const handler = lambdaEntry(
  'results',
  flushingMetrics(async (event: SQSEvent) => {
    if (!handlerInstance) {
      const a = lambdaAdapters('results');
      handlerInstance = makeResultsHandler({
        stores: a.stores,
        config: a.config,
        outbox: a.outbox,
        insights: languageEngines(a).insights,
        deliveryQueue: a.deliveryQueue,
        log: a.log,
        now: () => new Date(),
      });
    }
    return handlerInstance(event);
  }),
  botIdOfBatch,
);
