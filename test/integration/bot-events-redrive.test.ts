// A bot's events are numbered once, however often their bot-events message is handled: received again right after a
// failure, dead-lettered and redriven much later (a redrive hands the message over with a fresh receive count), or
// numbered before a later step failed. The receiver sees each logical event with one webhook-id and its first seq.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotSession } from '../../core/bots/session';
import { type LifecycleEventMessage, lifecycleEvent } from '../../core/control/messages';
import { processControl } from '../../core/control/process-control';
import { type DeliveryJob, deliver } from '../../core/delivery/deliver';
import { createLogger } from '../../core/log';
import type { TaskRunner } from '../../core/ports/task-runner';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

const noopRunner: TaskRunner = {
  start: async (botId) => ({ taskRef: `redrive:${botId}` }),
  stop: async () => {},
};

/** How long after its first handling a dead-lettered message comes back at the earliest on AWS (5 × 6 min). */
const redriveLaterMs = 30 * 60_000;

let stack: TestStack;
let key: string;
let secret: string;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  receiver = await webhookReceiver();
  stack = await startTestStack({ DELIVERY_BACKOFF_SCALE: '0.00001', HEARTBEAT_MS: '3600000' });
  stack.deps.runner = noopRunner;
  ({ apiKey: key, webhookSecret: secret } = await stack.account(50));
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

async function newBot(): Promise<BotSession> {
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: {
      room_url: `${stack.baseUrl}/rooms/demo`,
      provider: 'local',
      webhook_callback_url: receiver.url,
      webhook_events: ['bot.joining', 'bot.in_call', 'bot.left'],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (await stack.deps.sessions.get(res.body.bot_id)) as BotSession;
}

const deliveryDeps = (now = () => new Date()) => ({
  stores: stack.deps,
  mailer: { send: async () => ({ messageId: 'unused' }) },
  config: stack.config,
  log: createLogger('silent'),
  now,
});

const deliveredOf = (botId: string) => receiver.delivered(secret).filter((b) => b.bot_id === botId);
const webhookIdsOf = (botId: string) =>
  receiver.received
    .filter((r) => r.status === 200 && JSON.parse(r.body).bot_id === botId)
    .map((r) => String(r.headers['webhook-id']));
const codesOf = async (botId: string) =>
  ((await stack.deps.sessions.get(botId))?.statusChanges ?? []).map((c) => c.code);

describe('bot-events redrive: an event keeps its first seq and webhook-id', () => {
  it('a delivered event redriven half an hour later sends nothing and numbers nothing; the next event is not skipped', async () => {
    const session = await newBot();
    const joining = lifecycleEvent(session, { event: 'bot.joining', data: { room_url: session.roomUrl } });
    // The real path: the bot-events FIFO queue, the control function, the delivery queue and function.
    await stack.outbox.send(joining);
    await stack.outbox.send(lifecycleEvent(session, { event: 'bot.in_call', data: {} }));
    await until(() => deliveredOf(session.botId).length === 2, 15_000);
    expect(deliveredOf(session.botId).map((b) => [b.event, b.seq])).toEqual([
      ['bot.joining', 1],
      ['bot.in_call', 2],
    ]);
    const firstId = webhookIdsOf(session.botId)[0];

    // The redrive: the same message, first receipt of its copy, long after.
    const queued: unknown[] = [];
    const later = new Date(Date.now() + redriveLaterMs);
    await processControl({ ...stack.controlDeps(queued), now: () => later }, joining, 1);
    expect(queued).toEqual([]);
    const record = await stack.deps.deliveries.get(session.botId, 'webhook', 'bot.joining');
    expect(record).toMatchObject({ seq: 1, messageId: firstId, status: 'delivered' });
    expect(await codesOf(session.botId)).toEqual(['joining', 'in_call']);

    // The bot's next event is number 3: the redrive took no number.
    await stack.outbox.send(
      lifecycleEvent(session, { event: 'bot.left', data: { exit_reason: 'force_leave' } }),
    );
    await until(() => deliveredOf(session.botId).length === 3, 15_000);
    expect(deliveredOf(session.botId).map((b) => [b.event, b.seq])).toEqual([
      ['bot.joining', 1],
      ['bot.in_call', 2],
      ['bot.left', 3],
    ]);
    expect(new Set(webhookIdsOf(session.botId)).size).toBe(3);
  });

  it('an event numbered before its delivery job could be queued: retried, dead-lettered, redriven later, it keeps its seq', async () => {
    const session = await newBot();
    const joining = lifecycleEvent(session, { event: 'bot.joining', data: { room_url: session.roomUrl } });
    const inCall = lifecycleEvent(session, { event: 'bot.in_call', data: {} });
    const jobs: DeliveryJob[] = [];
    let refusals = 5;
    const control = {
      ...stack.controlDeps(),
      // The delivery queue refuses the first five sends: every receive of the message fails after numbering.
      deliveryQueue: {
        send: async (m: unknown) => {
          if (refusals-- > 0) throw new Error('SQS unavailable');
          jobs.push(m as DeliveryJob);
        },
      },
    };
    for (let receive = 1; receive <= 5; receive++) {
      await expect(processControl(control, joining, receive)).rejects.toThrow('SQS unavailable');
    }
    // Dead-lettered: the bot's next event goes on, and takes the next number.
    await processControl(control, inCall, 1);
    // The redrive, half an hour later.
    const later = new Date(Date.now() + redriveLaterMs);
    await processControl({ ...control, now: () => later }, joining, 1);

    for (const job of jobs) expect(await deliver(deliveryDeps(), job)).toEqual({ kind: 'done' });
    const delivered = deliveredOf(session.botId);
    expect(delivered.map((b) => [b.event, b.seq]).sort((a, b) => a[1] - b[1])).toEqual([
      ['bot.joining', 1],
      ['bot.in_call', 2],
    ]);
    expect(await codesOf(session.botId)).toEqual(['joining', 'in_call']);
  });

  it('a message received again right after it was handled (a duplicate, a lost delete) gets its first number back, and is sent once', async () => {
    const session = await newBot();
    const left: LifecycleEventMessage = lifecycleEvent(session, {
      event: 'bot.left',
      data: { exit_reason: 'participant_left' },
      detail: 'participant_left',
    });
    const jobs: DeliveryJob[] = [];
    const control = stack.controlDeps(jobs);
    await processControl(control, left, 1);
    await processControl(control, left, 1);
    await processControl(control, left, 2);
    expect(jobs.map((j) => j.record?.seq ?? 'stored')).toEqual([1, 1, 'stored']);
    expect(await codesOf(session.botId)).toEqual(['left']);

    const outcomes = [];
    for (const job of jobs) outcomes.push(await deliver(deliveryDeps(), job));
    expect(outcomes).toEqual([{ kind: 'done' }, { kind: 'done' }, { kind: 'done' }]);
    expect(deliveredOf(session.botId).map((b) => [b.event, b.seq])).toEqual([['bot.left', 1]]);
    const record = await stack.deps.deliveries.get(session.botId, 'webhook', 'bot.left');
    expect(record).toMatchObject({
      seq: 1,
      messageId: webhookIdsOf(session.botId)[0],
      attempts: [expect.anything()],
    });
  });

  it("a transcript.data message dead-lettered before its delivery, redriven after the meeting's data was deleted, sends nothing", async () => {
    const session = await newBot();
    const phrase = 'tangerine-quartermaster';
    const lines = (seq: number) =>
      lifecycleEvent(
        { ...session, webhookEvents: ['transcript.data'] },
        {
          event: 'transcript.data',
          key: String(seq),
          data: {
            utterances: [
              {
                speaker: 'Cal',
                participant_id: 'p1',
                text: `${phrase} ${seq}`,
                started_at: new Date().toISOString(),
                seq,
                is_bot: false,
              },
            ],
          },
        },
      );
    // The table refused it on every receive (throttled): nothing numbered, no delivery record, then the bot-events DLQ.
    // The deletion has nothing of it to empty.
    const dead = lines(1);
    const throttled = Object.create(stack.deps.sessions, {
      recordEvent: {
        value: async () => {
          throw new Error('ProvisionedThroughputExceededException');
        },
      },
    });
    const refusing = { ...stack.controlDeps(), stores: { ...stack.deps, sessions: throttled } };
    for (let receive = 1; receive <= 5; receive++) {
      await expect(processControl(refusing, dead, receive)).rejects.toThrow('ProvisionedThroughput');
    }
    // The meeting ends and its data is deleted.
    await stack.deps.sessions.updateRunning(session.botId, {
      status: 'completed',
      completedAt: new Date().toISOString(),
    });
    const deleted = await stack.request('DELETE', `/api/bot/${session.botId}/data`, { key });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);

    // The redrive half an hour later, and a message of the same bot that was still queued (a first receipt): neither
    // numbers, records or queues anything.
    const jobs: DeliveryJob[] = [];
    const later = new Date(Date.now() + redriveLaterMs);
    await processControl({ ...stack.controlDeps(jobs), now: () => later }, dead, 1);
    await processControl(stack.controlDeps(jobs), lines(2), 1);
    expect(jobs).toEqual([]);
    const records = await stack.deps.deliveries.list(session.botId);
    expect(records.filter((d) => d.event.startsWith('transcript.data'))).toEqual([]);
    expect(JSON.stringify(records)).not.toContain(phrase);
    expect(receiver.received.map((r) => r.body).join('\n')).not.toContain(phrase);
  });
});
