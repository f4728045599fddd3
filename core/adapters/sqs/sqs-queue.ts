// MessageQueue on SQS; locally the same client points at fauxqs. A FIFO queue's messages are grouped by their
// `bot_id` (one bot's messages in order, different bots in parallel) and deduplicated by content, so a send retried
// after a lost reply is delivered once.
import { createHash } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageQueue } from '../../ports/queue';

export class SqsQueue implements MessageQueue {
  private readonly fifo: boolean;

  constructor(
    protected readonly sqs: SQSClient,
    protected readonly queueUrl: string,
  ) {
    this.fifo = queueUrl.endsWith('.fifo');
  }

  async send(body: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    const text = JSON.stringify(body);
    let order: { MessageGroupId: string; MessageDeduplicationId: string } | undefined;
    if (this.fifo) {
      const group = (body as { bot_id?: unknown } | null)?.bot_id;
      if (typeof group !== 'string' || !group)
        throw new Error('a FIFO queue message needs a bot_id to group by');
      // SQS FIFO queues take no per-message delay: a delayed message belongs on a standard queue.
      if (options.delaySeconds) throw new Error('a FIFO queue cannot delay one message');
      order = {
        MessageGroupId: group,
        MessageDeduplicationId: createHash('sha256').update(text).digest('hex'),
      };
    }
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: text,
        ...(order ?? { DelaySeconds: options.delaySeconds }),
      }),
    );
  }
}
