// PoolQueue on SQS: one message per offered session, received one at a time by long-polling pooled bots (each
// ReceiveMessage hands a message to one caller, so a burst of offers spreads over the idle bots). Locally the same
// client points at fauxqs.
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { PoolOffer, PoolQueue } from '../../ports/pool-queue';
import { longPollOptions } from '../aws-clients';
import { SqsQueue } from './sqs-queue';

/** SQS's long-poll bounds (ReceiveMessage WaitTimeSeconds). */
const maxWaitSeconds = 20;

export class SqsPoolQueue extends SqsQueue implements PoolQueue {
  offer(botId: string): Promise<void> {
    return this.send({ bot_id: botId });
  }

  async next(waitMs: number, signal: AbortSignal): Promise<PoolOffer | null> {
    const waitSeconds = Math.min(maxWaitSeconds, Math.max(1, Math.ceil(waitMs / 1000)));
    const out = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: waitSeconds,
      }),
      longPollOptions(waitSeconds, signal),
    );
    const message = out.Messages?.[0];
    if (!message?.ReceiptHandle) return null;
    const receipt = message.ReceiptHandle;
    const done = async () => {
      await this.sqs.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt }));
    };
    const botId = botIdOf(message.Body);
    if (botId === null) {
      // Not ours to read (a hand-sent test message, a future format): dropped, so it cannot wake bots forever.
      await done();
      return null;
    }
    return { botId, done };
  }
}

function botIdOf(body: string | undefined): string | null {
  try {
    const parsed = JSON.parse(body ?? '') as { bot_id?: unknown };
    return typeof parsed.bot_id === 'string' && parsed.bot_id.length > 0 ? parsed.bot_id : null;
  } catch {
    return null;
  }
}
