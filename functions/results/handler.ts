// Lambda entry: the results queue consumer (SQS event source with ReportBatchItemFailures).
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { dynamoDocumentClient } from '../../core/adapters/aws-clients';
import { loadConfig } from '../../core/config';
import { buildStores } from '../../core/deps';
import { createLogger } from '../../core/log';
import { resultsMessageSchema } from '../../core/results/messages';
import { processResults, type ResultsDeps } from '../../core/results/process-results';

export function makeResultsHandler(deps: ResultsDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const message = resultsMessageSchema.parse(JSON.parse(record.body));
        await processResults(deps, message);
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

export const handler = (event: SQSEvent) => {
  if (!handlerInstance) {
    const config = loadConfig();
    handlerInstance = makeResultsHandler({
      stores: buildStores({ doc: dynamoDocumentClient(config), tableName: config.TABLE_NAME }, config),
      config,
      log: createLogger(config.LOG_LEVEL, { component: 'results' }),
      now: () => new Date(),
    });
  }
  return handlerInstance(event);
};
