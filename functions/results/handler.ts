// Lambda entry: the results queue consumer (SQS event source with ReportBatchItemFailures).
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { bedrockClient, dynamoDocumentClient, sqsClient } from '../../core/adapters/aws-clients';
import { SqsQueue } from '../../core/adapters/sqs/sqs-queue';
import { loadConfig } from '../../core/config';
import { buildStores } from '../../core/deps';
import { BedrockInsightsEngine } from '../../core/insights/bedrock-engine';
import { LocalInsightsEngine } from '../../core/insights/local-engine';
import { createLogger } from '../../core/log';
import { resultsMessageSchema } from '../../core/results/messages';
import { processResults, type ResultsDeps } from '../../core/results/process-results';

export function makeResultsHandler(deps: ResultsDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const message = resultsMessageSchema.parse(JSON.parse(record.body));
        await processResults(deps, message, Number(record.attributes?.ApproximateReceiveCount ?? 1));
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
    const log = createLogger(config.LOG_LEVEL, { component: 'results' });
    handlerInstance = makeResultsHandler({
      stores: buildStores({ doc: dynamoDocumentClient(config), tableName: config.TABLE_NAME }, config),
      config,
      insights: config.INSIGHTS_MODEL_ID
        ? new BedrockInsightsEngine(bedrockClient(config), { modelId: config.INSIGHTS_MODEL_ID, log })
        : new LocalInsightsEngine(),
      deliveryQueue: new SqsQueue(sqsClient(config), config.DELIVERY_QUEUE_URL),
      log,
      now: () => new Date(),
    });
  }
  return handlerInstance(event);
};
