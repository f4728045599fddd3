// The delivery stage keeps a bot's order: one bot's jobs in a batch are sent one after another, in the order the queue
// handed them over (the order the control stage queued them in), while different bots' jobs go out side by side.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryJob } from '../../core/delivery/deliver';
import { createLogger } from '../../core/log';
import { makeDeliveryHandler } from '../../functions/delivery/handler';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let accountId: string;

beforeAll(async () => {
  stack = await startTestStack({});
  ({ accountId } = await stack.account(1));
});
afterAll(() => stack?.close());

/** A receiver that notes when each request arrives and when its answer leaves; a bot's first event is answered slowly. */
async function slowFirstReceiver(slowMs: number) {
  const log: { what: 'arrived' | 'answered'; bot: string; seq: number }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const { bot_id: bot, seq } = JSON.parse(body) as { bot_id: string; seq: number };
      log.push({ what: 'arrived', bot, seq });
      setTimeout(
        () => {
          log.push({ what: 'answered', bot, seq });
          res.end('ok');
        },
        seq === 1 ? slowMs : 0,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, log, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const job = (botId: string, seq: number, target: string): DeliveryJob => ({
  bot_id: botId,
  channel: 'webhook',
  event: `bot.event#${seq}`,
  record: {
    account_id: accountId,
    target,
    payload: JSON.stringify({ event: 'bot.in_call', bot_id: botId, seq, data: {} }),
    message_id: `msg_${botId.slice(0, 8)}_${seq}`,
    created_at: new Date().toISOString(),
    seq,
  },
});

const batch = (jobs: DeliveryJob[]): SQSEvent =>
  ({
    Records: jobs.map((j, i) => ({
      messageId: `m${i}`,
      receiptHandle: `r${i}`,
      body: JSON.stringify(j),
      attributes: { ApproximateFirstReceiveTimestamp: String(Date.now()), ApproximateReceiveCount: '1' },
    })),
  }) as unknown as SQSEvent;

describe('delivery order per bot within a batch', () => {
  it('a bot’s second event is sent after its first was answered; another bot’s is not held back by it', async () => {
    const receiver = await slowFirstReceiver(400);
    try {
      const handler = makeDeliveryHandler(
        {
          stores: stack.deps,
          mailer: { send: async () => ({ messageId: 'unused' }) },
          config: stack.config,
          log: createLogger('silent'),
          now: () => new Date(),
        },
        // Nothing is retried here: every attempt is answered 200.
        { sqs: undefined as never, queueUrl: 'unused', dlqUrl: 'unused' },
      );
      const [a, b] = [randomUUID(), randomUUID()];
      const out = await handler(
        batch([
          job(a, 1, receiver.url),
          job(b, 1, receiver.url),
          job(a, 2, receiver.url),
          job(a, 3, receiver.url),
        ]),
      );
      expect(out).toEqual({ batchItemFailures: [] });
      const at = (what: 'arrived' | 'answered', bot: string, seq: number) =>
        receiver.log.findIndex((e) => e.what === what && e.bot === bot && e.seq === seq);
      // Bot a: 2 arrives only once 1 was answered, 3 once 2 was.
      expect(at('arrived', a, 2)).toBeGreaterThan(at('answered', a, 1));
      expect(at('arrived', a, 3)).toBeGreaterThan(at('answered', a, 2));
      // Bot b's first event went out alongside a's, not after it.
      expect(at('arrived', b, 1)).toBeLessThan(at('answered', a, 1));
      for (const [bot, seq] of [
        [a, 1],
        [a, 2],
        [a, 3],
        [b, 1],
      ] as const) {
        const record = await stack.deps.deliveries.get(bot, 'webhook', `bot.event#${seq}`);
        expect(record).toMatchObject({
          status: 'delivered',
          seq,
          messageId: `msg_${bot.slice(0, 8)}_${seq}`,
        });
      }
    } finally {
      await receiver.close();
    }
  });
});
