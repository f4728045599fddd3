// A handler past its function's timeout, on the local queues, behaves as on Lambda: the invocation is abandoned, its
// batch is not deleted, it comes back once the visibility timeout ends, and after maxReceiveCount receives SQS moves
// it to the DLQ. The limits are shortened (seconds, not the deployed minutes); the mechanism is the local stack's own
// (local/queues.ts, local/queue-poller.ts), whose deployed values test/infra/limits.test.ts compares with the template.
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../core/adapters/aws-clients';
import { createLogger } from '../../core/log';
import { queueLimits } from '../../infra/limits';
import { QueuePoller } from '../../local/queue-poller';
import { type LocalQueues, startLocalQueues } from '../../local/queues';
import { elapse, until } from '../support/until';

const visibilitySeconds = 2;
const maxReceiveCount = 2;
let queues: LocalQueues;
let sqs: ReturnType<typeof sqsClient>;

beforeAll(async () => {
  queues = await startLocalQueues({
    limits: {
      ...queueLimits,
      control: { ...queueLimits.control, visibilityTimeoutSeconds: visibilitySeconds, maxReceiveCount },
    },
  });
  sqs = sqsClient({ AWS_REGION: 'local', SQS_ENDPOINT: queues.endpoint });
});

afterAll(async () => {
  sqs?.destroy();
  await queues?.stop();
});

describe('a handler past its timeout', () => {
  it('is abandoned; its batch comes back after the visibility timeout, then goes to the DLQ', async () => {
    const receives: { at: number; count: number; remainingMs: number }[] = [];
    let finishedLate = 0;
    const poller = new QueuePoller(
      sqs,
      queues.control.url,
      async (event: SQSEvent, context) => {
        receives.push({
          at: Date.now(),
          count: Number(event.Records[0]!.attributes.ApproximateReceiveCount),
          remainingMs: context.getRemainingTimeInMillis(),
        });
        // Works for longer than the function may: Lambda stops it at 300 ms.
        await elapse(1_000);
        finishedLate += 1;
        return { batchItemFailures: [] };
      },
      { queueArn: queues.control.arn, region: 'local', timeoutMs: 300, waitSeconds: 1, batchSize: 10 },
      createLogger('silent'),
    );
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queues.control.url, MessageBody: '{"bot_id":"late"}' }),
    );
    poller.start();
    try {
      // Its copy in the DLQ: received twice (each abandoned), then moved by SQS's redrive on the third receive.
      const moved = await until(async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queues.controlDlq.url, WaitTimeSeconds: 0 }),
        );
        return Messages[0];
      }, 20_000);
      expect(moved.Body).toBe('{"bot_id":"late"}');
    } finally {
      await poller.stop();
    }
    expect(receives.map((r) => r.count)).toEqual([1, 2]);
    // The handler saw the time it had, and the second receive came only once the first's visibility had ended.
    expect(receives[0]!.remainingMs).toBeLessThanOrEqual(300);
    expect(receives[1]!.at - receives[0]!.at).toBeGreaterThanOrEqual(visibilitySeconds * 1000 - 100);
    // Nothing deleted the message although the abandoned handler "returned success" later.
    expect(finishedLate).toBeGreaterThanOrEqual(1);
  });
});
