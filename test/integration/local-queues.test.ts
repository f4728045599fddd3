// The local queues keep their messages across a restart of the local stack (fauxqs itself is memory-only).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqsClient } from '../../core/adapters/aws-clients';
import { type LocalQueues, startLocalQueues } from '../../local/queues';

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
    const deadline = Date.now() + 10_000;
    let got: string[] = [];
    while (got.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      got = (await receive(second.sqs, second.queues.delivery.url)).map((m) => m.Body!);
    }
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
