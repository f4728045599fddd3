// The local queues keep their messages across a restart of the local stack (fauxqs itself is memory-only).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqsClient } from '../../core/adapters/aws-clients';
import { createLogger } from '../../core/log';
import { QueuePoller } from '../../local/queue-poller';
import { type LocalQueues, startLocalQueues } from '../../local/queues';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { elapse, until } from '../support/until';

let dir: string;
let stateFile: string;
const open: { queues: LocalQueues; sqs: SQSClient }[] = [];

async function start(maxDelayMs?: number) {
  const queues = await startLocalQueues({ stateFile, maxDelayMs });
  const sqs = sqsClient({ AWS_REGION: 'local', SQS_ENDPOINT: queues.endpoint });
  open.push({ queues, sqs });
  return { queues, sqs };
}

async function stop(q: { queues: LocalQueues; sqs: SQSClient }) {
  open.splice(open.indexOf(q), 1);
  q.sqs.destroy();
  await q.queues.stop();
}

async function receive(sqs: SQSClient, url: string, visibility = 30) {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      VisibilityTimeout: visibility,
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages;
}

function saved(): { queue: string; body: string; due_at: number }[] {
  return JSON.parse(readFileSync(stateFile, 'utf8')).messages;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'local-queues-'));
  stateFile = join(dir, 'queues.json');
});

afterEach(async () => {
  for (const q of [...open]) await stop(q);
  rmSync(dir, { recursive: true, force: true });
});

describe('local queues with a state file', () => {
  it('bring back ready, delayed, in-flight and dead-lettered messages after a restart, each due when it was', async () => {
    const first = await start();
    const { results, delivery, deliveryDlq } = first.queues;
    await first.sqs.send(new SendMessageCommand({ QueueUrl: results.url, MessageBody: 'ready' }));
    await first.sqs.send(
      new SendMessageCommand({ QueueUrl: delivery.url, MessageBody: 'delayed', DelaySeconds: 60 }),
    );
    await first.sqs.send(new SendMessageCommand({ QueueUrl: delivery.url, MessageBody: 'retry later' }));
    // A delivery waiting for its next attempt: received and kept invisible for an hour.
    expect((await receive(first.sqs, delivery.url, 3600)).map((m) => m.Body)).toEqual(['retry later']);
    await first.sqs.send(
      new SendMessageCommand({
        QueueUrl: deliveryDlq.url,
        MessageBody: 'parked',
        MessageAttributes: { reason: { DataType: 'String', StringValue: 'HTTP 410' } },
      }),
    );
    const stoppedAt = Date.now();
    await stop(first);

    const second = await start();
    expect(second.queues.restored).toBe(4);
    expect((await receive(second.sqs, second.queues.results.url)).map((m) => m.Body)).toEqual(['ready']);
    // Neither the delayed message nor the one waiting for its retry is visible yet.
    expect(await receive(second.sqs, second.queues.delivery.url)).toEqual([]);
    const [parked] = await receive(second.sqs, second.queues.deliveryDlq.url);
    expect(parked?.Body).toBe('parked');
    expect(parked?.MessageAttributes?.reason?.StringValue).toBe('HTTP 410');

    // Saved again at once: a crash right after this start loses nothing either.
    const byBody = new Map(saved().map((m) => [m.body, m]));
    expect(byBody.get('delayed')?.due_at).toBeGreaterThan(stoppedAt + 50_000);
    expect(byBody.get('delayed')?.due_at).toBeLessThan(stoppedAt + 70_000);
    expect(byBody.get('retry later')?.due_at).toBeGreaterThan(stoppedAt + 3_500_000);
    expect(byBody.get('retry later')?.queue).toBe('delivery');
  });

  it('hold a message due beyond the longest SendMessage delay and send it when due', async () => {
    const first = await start(1_000);
    await first.sqs.send(
      new SendMessageCommand({ QueueUrl: first.queues.delivery.url, MessageBody: 'later' }),
    );
    await receive(first.sqs, first.queues.delivery.url, 3);
    await stop(first);

    const second = await start(1_000);
    expect(second.queues.restored).toBe(1);
    expect(await receive(second.sqs, second.queues.delivery.url)).toEqual([]);
    // Held in this process, and still in the state file, until SendMessage can take it.
    expect(saved().map((m) => m.body)).toEqual(['later']);
    const got = await until(async () => {
      const bodies = (await receive(second.sqs, second.queues.delivery.url)).map((m) => m.Body!);
      return bodies.length > 0 && bodies;
    }, 10_000);
    expect(got).toEqual(['later']);
  });

  it('move an unreadable state file aside and start empty instead of failing', async () => {
    writeFileSync(stateFile, '{"version": 1, "messages": [');
    const { queues } = await start();
    expect(queues.restored).toBe(0);
    expect(queues.damagedStateFile).toMatch(/queues\.json\.damaged-\d+$/);
    expect(existsSync(queues.damagedStateFile!)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(
      ['queues.json', queues.damagedStateFile!.split('/').pop()].sort(),
    );
    expect(saved()).toEqual([]);
  });

  it('keep nothing on disk without a state file', async () => {
    const queues = await startLocalQueues();
    await queues.stop();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('npm start restarted while a webhook waits for its retry', () => {
  it('delivers it after the restart: the retry was kept in DATA_DIR', async () => {
    const answers = [500];
    const received: string[] = [];
    const hook = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.headers['webhook-id'] as string);
        res.writeHead(answers.shift() ?? 200);
        res.end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    // The first retry comes about 3 s after the failed attempt (30 s scaled by 0.1).
    const env = { LOG_LEVEL: 'silent', STOP_POLL_MS: '100', DELIVERY_BACKOFF_SCALE: '0.1' };
    let stack: LocalStack | undefined = await startLocalStack({ port: 0, dataDir: dir, env });
    try {
      const { account, apiKey } = await stack.deps.accounts.create('Restarter');
      await stack.deps.ledger.grant(account.accountId, 10, 'test');
      const base = stack.baseUrl;
      await fetch(`${base}/rooms`, { method: 'POST', body: JSON.stringify({ name: 'restart' }) });
      const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const joined = await fetch(`${base}/api/bot/join`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          provider: 'local',
          room_url: `${base}/rooms/restart`,
          webhook_callback_url: hookUrl,
        }),
      });
      const { bot_id: botId } = (await joined.json()) as { bot_id: string };
      const first = stack;
      await until(async () => first.rooms.rooms.get('restart')?.participants.some((p) => p.kind === 'bot'));
      await fetch(`${base}/v1/bots/leave/${botId}`, { method: 'POST', headers: auth });
      const deliveries = async (s: LocalStack) => s.deps.deliveries.list(botId);
      await until(async () => (await deliveries(first))[0]?.attempts.length === 1, 30_000);
      await first.close();
      stack = undefined;
      expect(received).toHaveLength(1);

      stack = await startLocalStack({ port: 0, dataDir: dir, env });
      expect(stack.queues.restored).toBeGreaterThanOrEqual(1);
      const second = stack;
      const [done] = await until(async () => {
        const list = await deliveries(second);
        return list[0]?.status === 'delivered' ? list : undefined;
      }, 30_000);
      expect(done?.attempts.map((a) => a.status_code)).toEqual([500, 200]);
      // The same webhook-id on both attempts, across the restart.
      expect(received).toHaveLength(2);
      expect(received[1]).toBe(received[0]);
    } finally {
      await stack?.close();
      await new Promise<void>((r) => hook.close(() => r()));
    }
  });
});

describe('the local event sources', () => {
  // The stack's pollers wait 20 s a receive. fauxqs answers a waiting receive as soon as a message is there (sent, or
  // due after its delay), and stop() ends the wait: each step is held to 3 s, which one whole wait would miss.
  it('hand a message over while their long poll waits, a delayed one once due, and stop mid-wait', async () => {
    const { queues, sqs } = await start();
    const handled: string[] = [];
    const poller = new QueuePoller(
      sqs,
      queues.control.url,
      async (event) => {
        handled.push(...event.Records.map((r) => r.body));
        return undefined;
      },
      { queueArn: queues.control.arn, region: 'local', waitSeconds: 20 },
      createLogger('silent'),
    );
    poller.start();
    // The message comes while the first receive waits in its long poll (nothing shows that it waits).
    await elapse(200);
    await sqs.send(new SendMessageCommand({ QueueUrl: queues.control.url, MessageBody: 'now' }));
    await until(() => handled.length === 1, 3000);
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queues.control.url, MessageBody: 'in 1 s', DelaySeconds: 1 }),
    );
    await until(() => handled.length === 2, 3000);
    expect(handled).toEqual(['now', 'in 1 s']);
    const stopped = await Promise.race([
      poller.stop().then(() => 'stopped'),
      new Promise((r) => setTimeout(r, 3000, 'still waiting')),
    ]);
    expect(stopped).toBe('stopped');
  });
});
