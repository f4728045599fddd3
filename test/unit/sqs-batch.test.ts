// The queue stages' batch consumer: a batch of cold starts runs side by side (one bot's messages in order), a record
// is begun only while one message's reserve still fits in the invocation, the rest go back as batch item failures
// (never a timeout), and a FIFO batch stops at its first failure.
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/log';
import { sqsBatchHandler } from '../../functions/sqs-batch';

const log = createLogger('silent');
const queue = { send: async () => {} };
const deps = { log, outbox: queue, deliveryQueue: queue } as never;

const batch = (bots: string[], fifo = false): SQSEvent => ({
  Records: bots.map((bot, i) => ({
    messageId: `m${i}`,
    receiptHandle: `r${i}`,
    body: JSON.stringify({ bot_id: bot, n: i }),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: fifo ? 'arn:aws:sqs:local:0:bot-events.fifo' : 'arn:aws:sqs:local:0:control',
    awsRegion: 'local',
  })),
});

/** A clock the handler advances: each message takes `stepMs` of the invocation's time. */
function invocation(timeoutMs: number) {
  let used = 0;
  return {
    context: { getRemainingTimeInMillis: () => timeoutMs - used },
    spend: (ms: number) => {
      used += ms;
    },
  };
}

describe('sqsBatchHandler', () => {
  it("handles different bots' messages side by side and one bot's in order", async () => {
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const handler = sqsBatchHandler(
      deps,
      'test',
      (b) => b as { bot_id: string; n: number },
      async (_d, m) => {
        running += 1;
        peak = Math.max(peak, running);
        // Each message takes a while to handle, so the handling of different bots' messages overlaps.
        await new Promise((r) => setTimeout(r, 20));
        order.push(m.n);
        running -= 1;
      },
    );
    const result = await handler(batch(['a', 'b', 'c', 'a']));
    expect(result.batchItemFailures).toEqual([]);
    expect(peak).toBe(3);
    // Bot a's two messages: the first before the second.
    expect(order.indexOf(0)).toBeLessThan(order.indexOf(3));
  });

  it('begins a message only while its reserve fits; the rest go back as batch item failures', async () => {
    const clock = invocation(60_000);
    const handled: number[] = [];
    const handler = sqsBatchHandler(
      deps,
      'test',
      (b) => b as { n: number },
      async (_d, m) => {
        handled.push(m.n);
        clock.spend(20_000);
      },
      { reserveMs: 20_000 },
    );
    // One bot's four starts, one after the other: 60 s hold two whole 20 s reserves and a third begun at 20 s left.
    const result = await handler(batch(['a', 'a', 'a', 'a']), clock.context);
    expect(handled).toEqual([0, 1, 2]);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm3' }]);
  });

  it('with too little time for any message, handles none and fails them all (they come back)', async () => {
    const handler = sqsBatchHandler(
      deps,
      'test',
      (b) => b,
      async () => {
        throw new Error('must not be called');
      },
      { reserveMs: 20_000 },
    );
    const result = await handler(batch(['a', 'b']), { getRemainingTimeInMillis: () => 19_999 });
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m0', 'm1']);
  });

  it('a FIFO batch stops at its first failure: what came after goes back unhandled', async () => {
    const handled: number[] = [];
    const handler = sqsBatchHandler(
      deps,
      'test',
      (b) => b as { n: number },
      async (_d, m) => {
        handled.push(m.n);
        if (m.n === 1) throw new Error('fails');
      },
    );
    const result = await handler(batch(['a', 'a', 'b'], true));
    expect(handled).toEqual([0, 1]);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }]);
  });
});
