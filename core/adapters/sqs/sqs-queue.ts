// MessageQueue on SQS; locally the same client points at fauxqs.
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageQueue } from '../../ports/queue';

export class SqsQueue implements MessageQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(body: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(body),
        DelaySeconds: options.delaySeconds,
      }),
    );
  }
}
