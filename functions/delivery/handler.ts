// Lambda entry: the delivery queue consumer. A retry hides the message for the backoff delay (visibility, at most
// 12 h) and reports it failed; a delivery that gives up is moved to the DLQ explicitly and recorded as failed.
import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import type { DeliveryQueues } from '../../core/adapters/wiring';
import { correlatedLog, correlationOf } from '../../core/correlation';
import { type DeliveryDeps, deliver } from '../../core/delivery/deliver';
import { metrics } from '../../core/metrics';
import { flushingMetrics, lambdaAdapters, lambdaEntry } from '../runtime';
import { botIdOfBatch } from '../tracing';

/** SQS limits: visibility up to 12 h from the first receipt; a message delay up to 15 min. */
const maxVisibilitySeconds = 43_200;
const maxDelaySeconds = 900;

const jobSchema = z.object({
  bot_id: z.uuid(),
  channel: z.enum(['webhook', 'email']),
  event: z.string().min(1),
});

export function makeDeliveryHandler(deps: DeliveryDeps, queues: DeliveryQueues) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        try {
          const body: unknown = JSON.parse(record.body);
          const job = jobSchema.parse(body);
          // Retries and the DLQ move record.body as it came, so the correlation id stays with the job.
          const outcome = await deliver({ ...deps, log: correlatedLog(deps.log, correlationOf(body)) }, job);
          if (outcome.kind === 'retry') {
            // SQS keeps a received message hidden for at most 12 h counted from its first receipt; a longer wait
            // continues in a fresh copy (which, arriving early, is hidden again until the attempt is due).
            const firstReceived = Number(record.attributes?.ApproximateFirstReceiveTimestamp ?? Date.now());
            const budget = Math.floor(maxVisibilitySeconds - (Date.now() - firstReceived) / 1000 - 60);
            if (outcome.delaySeconds <= budget) {
              await queues.sqs.send(
                new ChangeMessageVisibilityCommand({
                  QueueUrl: queues.queueUrl,
                  ReceiptHandle: record.receiptHandle,
                  VisibilityTimeout: outcome.delaySeconds,
                }),
              );
              batchItemFailures.push({ itemIdentifier: record.messageId });
            } else {
              await queues.sqs.send(
                new SendMessageCommand({
                  QueueUrl: queues.queueUrl,
                  MessageBody: record.body,
                  DelaySeconds: Math.min(maxDelaySeconds, outcome.delaySeconds),
                }),
              );
            }
          } else if (outcome.kind === 'failed') {
            metrics.dlqParked(job.channel);
            await queues.sqs.send(
              new SendMessageCommand({
                QueueUrl: queues.dlqUrl,
                MessageBody: record.body,
                MessageAttributes: {
                  reason: { DataType: 'String', StringValue: outcome.reason.slice(0, 256) },
                },
              }),
            );
          }
        } catch (err) {
          deps.log.error('delivery job failed; SQS will redeliver it', { message_id: record.messageId, err });
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures };
  };
}

let instance: ReturnType<typeof makeDeliveryHandler> | undefined;

export const handler = lambdaEntry(
  'delivery',
  flushingMetrics(async (event: SQSEvent) => {
    if (!instance) {
      const a = lambdaAdapters('delivery');
      instance = makeDeliveryHandler(
        { stores: a.stores, mailer: a.mailer, config: a.config, log: a.log, now: () => new Date() },
        a.deliveryQueues,
      );
    }
    return instance(event);
  }),
  botIdOfBatch,
);
