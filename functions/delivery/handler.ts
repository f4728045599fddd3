// Lambda entry: the delivery queue consumer. A retry hides the message for the backoff delay (visibility, at most
// 12 h) and reports it failed; a delivery that gives up is moved to the DLQ explicitly and recorded as failed.
import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import type { DeliveryQueues } from '../../core/adapters/wiring';
import { correlatedLog, correlationOf } from '../../core/correlation';
import { type DeliveryDeps, deliver } from '../../core/delivery/deliver';
import { metrics } from '../../core/metrics';
import { builtEntry } from '../runtime';
import { byBot } from '../sqs-batch';
import { botIdOfBatch } from '../tracing';

/** SQS limits: visibility up to 12 h from the first receipt; a message delay up to 15 min. */
const maxVisibilitySeconds = 43_200;
const maxDelaySeconds = 900;

const jobSchema = z.object({
  bot_id: z.uuid(),
  channel: z.enum(['webhook', 'email']),
  event: z.string().min(1),
  // The delivery itself when the sender did not store it (core/delivery/deliver.ts scheduleDelivery).
  record: z
    .object({
      account_id: z.string().min(1),
      target: z.string().min(1),
      payload: z.string(),
      message_id: z.string().min(1),
      created_at: z.string().min(1),
      seq: z.number().int().positive().optional(),
      meeting_content: z.boolean().optional(),
    })
    .optional(),
});

export function makeDeliveryHandler(deps: DeliveryDeps, queues: DeliveryQueues) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    // Bots in parallel; one bot's jobs one after another, so its events' first attempts keep the order the control
    // stage queued them in (it hands one bot's events on one at a time, from the FIFO bot-events queue).
    const handle = async (record: SQSEvent['Records'][number]) => {
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
    };
    await Promise.all(
      byBot(event.Records).map(async (records) => {
        for (const record of records) await handle(record);
      }),
    );
    return { batchItemFailures };
  };
}

export const handler = builtEntry(
  'delivery',
  (a) =>
    makeDeliveryHandler(
      { stores: a.stores, mailer: a.mailer, config: a.config, log: a.log, now: () => new Date() },
      a.deliveryQueues,
    ),
  botIdOfBatch,
);
