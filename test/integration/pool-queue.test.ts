// The warm pool's wake-up queue (core/adapters/sqs/pool-queue.ts) against fauxqs, the local stack's SQS: one message
// per offer, each handed to one waiting bot, a wait that ends empty after its long poll (also one longer than the
// client's request timeout), and an abort that ends a wait at once (a pooled bot told to stop must not hang in a 20 s
// poll).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../core/adapters/aws-clients';
import { SqsPoolQueue } from '../../core/adapters/sqs/pool-queue';
import { type LocalQueues, startLocalQueues } from '../../local/queues';
import { elapse } from '../support/until';

let queues: LocalQueues;
let pool: SqsPoolQueue;
let sqs: ReturnType<typeof sqsClient>;
beforeAll(async () => {
  queues = await startLocalQueues();
  sqs = sqsClient({ AWS_REGION: 'local', SQS_ENDPOINT: queues.endpoint });
  pool = new SqsPoolQueue(sqs, queues.pool.url);
});
afterAll(async () => {
  sqs?.destroy();
  await queues?.stop();
});

const never = new AbortController().signal;

describe('the pool queue', () => {
  it('hands each offer to one of the bots waiting, and a taken offer is gone', async () => {
    // As bot-task/pool.ts does: a wait that ends empty is followed by the next (fauxqs answers every waiting
    // long poll when a message arrives: the ones that did not get it, empty).
    const bot = async () => {
      const end = Date.now() + 5_000;
      while (Date.now() < end) {
        const offer = await pool.next(end - Date.now(), never);
        if (offer) return offer;
      }
      return null;
    };
    const waiting = [bot(), bot(), bot()];
    // The offers come while the three long polls wait (fauxqs shows no waiting receiver to wait for).
    await elapse(100);
    for (const botId of ['b1', 'b2', 'b3']) await pool.offer(botId);
    const offers = await Promise.all(waiting);
    expect(offers.map((o) => o?.botId).sort()).toEqual(['b1', 'b2', 'b3']);
    await Promise.all(offers.map((o) => o!.done()));
    const started = Date.now();
    expect(await pool.next(1, never)).toBeNull();
    // WaitTimeSeconds is whole seconds: a wait shorter than one still long-polls for one.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('a stopped bot’s wait ends at once, and a message that is not ours is dropped instead of waking bots forever', async () => {
    const abort = new AbortController();
    const waiting = pool.next(20_000, abort.signal);
    const started = Date.now();
    setTimeout(() => abort.abort(new Error('stopped')), 50);
    await expect(waiting).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);

    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    await sqs.send(new SendMessageCommand({ QueueUrl: queues.pool.url, MessageBody: 'not json' }));
    expect(await pool.next(1_000, never)).toBeNull();
    await pool.offer('b4');
    const b4 = await pool.next(1_000, never);
    expect(b4?.botId).toBe('b4');
    // Taken off the queue: back after its visibility timeout, it would end the next test's wait early.
    await b4?.done();
  });

  it('a wait longer than the client’s 10 s request timeout ends empty, not in a TimeoutError', async () => {
    // A queue nobody used here: the aborted wait above may still hold a message at fauxqs until its visibility ends.
    const quiet = new SqsPoolQueue(sqs, queues.resultsDlq.url);
    const started = Date.now();
    expect(await quiet.next(12_000, never)).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(11_000);
  }, 20_000);
});
