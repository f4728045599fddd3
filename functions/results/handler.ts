// Lambda entry: the results queue consumer (SQS event source with ReportBatchItemFailures).
import { languageEngines } from '../../core/adapters/language-engines';
import { resultsMessageSchema } from '../../core/results/messages';
import { processResults, type ResultsDeps } from '../../core/results/process-results';
import { builtEntry } from '../runtime';
import { sqsBatchHandler } from '../sqs-batch';
import { botIdOfBatch } from '../tracing';

export function makeResultsHandler(deps: ResultsDeps) {
  return sqsBatchHandler(deps, 'results', (body) => resultsMessageSchema.parse(body), processResults);
}

export const handler = builtEntry(
  'results',
  (a) =>
    makeResultsHandler({
      stores: a.stores,
      config: a.config,
      outbox: a.outbox,
      insights: languageEngines(a).insights,
      recordings: a.recordings,
      deliveryQueue: a.deliveryQueue,
      log: a.log,
      now: () => new Date(),
    }),
  botIdOfBatch,
);
