// Redrive: deliveries parked in the DLQ go back to pending and onto the delivery queue (admin CLI).
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DeliveryJob } from '../../delivery/deliver';
import type { DeliveriesStore } from '../../ports/deliveries-store';

export async function redriveDeliveries(
  deps: { sqs: SQSClient; queueUrl: string; dlqUrl: string; deliveries: DeliveriesStore },
  filter: { botId?: string } = {},
): Promise<{ redriven: DeliveryJob[]; skipped: number }> {
  const redriven: DeliveryJob[] = [];
  let skipped = 0;
  const seen = new Set<string>();
  for (;;) {
    const { Messages = [] } = await deps.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: deps.dlqUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 30,
      }),
    );
    const fresh = Messages.filter((m) => !seen.has(m.MessageId!));
    if (fresh.length === 0) break;
    for (const m of fresh) {
      seen.add(m.MessageId!);
      let job: DeliveryJob | undefined;
      try {
        job = JSON.parse(m.Body ?? '') as DeliveryJob;
      } catch {}
      if (!job?.bot_id || (filter.botId && job.bot_id !== filter.botId)) {
        skipped++;
        // Not ours to move: visible again for the next reader.
        await deps.sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: deps.dlqUrl,
            ReceiptHandle: m.ReceiptHandle!,
            VisibilityTimeout: 0,
          }),
        );
        continue;
      }
      await deps.deliveries.reopen(job.bot_id, job.channel, job.event);
      await deps.sqs.send(
        new SendMessageCommand({ QueueUrl: deps.queueUrl, MessageBody: JSON.stringify(job) }),
      );
      await deps.sqs.send(
        new DeleteMessageCommand({ QueueUrl: deps.dlqUrl, ReceiptHandle: m.ReceiptHandle! }),
      );
      redriven.push(job);
    }
  }
  return { redriven, skipped };
}
