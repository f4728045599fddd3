// Deleting a meeting's data through the local stack (dynalite, fauxqs, the local room): every store's copy of the
// content goes, the tombstone stays, a repeat is harmless, and no replay or redrive sends the deleted content again.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDeletedError, deliver } from '../../core/delivery/deliver';
import { createLogger, type Logger } from '../../core/log';
import { addParticipant, joinBotInRoom, lines } from '../support/local-meeting';
import { meetingTestEnv, startTestStack, type TestStack } from '../support/local-stack';
import { botItems } from '../support/table-items';
import { quietFor, until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

/** Distinctive words of the meeting: none may survive the deletion anywhere in the table. */
const phrase = 'periwinkle-zeppelin';

let stack: TestStack;
let key: string;
let otherKey: string;

beforeAll(async () => {
  stack = await startTestStack(meetingTestEnv);
  // The bot bundle built before the first join (as npm start does): the first, recorded, bot also launches the
  // recorder's Chromium before it enters, and with the build in its join too it took over 20 s on a loaded machine.
  await stack.runner.prepare();
  ({ apiKey: key } = await stack.account(100));
  ({ apiKey: otherKey } = await stack.account(100, 'Other'));
});
afterAll(() => stack?.close());

async function meeting(room: string, body: Record<string, unknown>) {
  const { botId } = await joinBotInRoom(stack, key, room, body);
  await addParticipant(stack, room, {
    name: 'Ivy Interviewer',
    lines: lines([[100, `Tell me about the ${phrase} project, please.`]]),
    leave_at_ms: 1600,
  });
  await addParticipant(stack, room, {
    name: 'Cal Candidate',
    lines: lines([[500, `The ${phrase} project moved our billing to TypeScript in six months.`]]),
    leave_at_ms: 1500,
  });
  return botId;
}

const status = async (botId: string) =>
  (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
const completed = (botId: string) =>
  until(async () => {
    const s = await status(botId);
    return s.status !== 'running' && s;
  });

const items = (botId: string) => botItems(stack.table, botId);

describe('DELETE /api/bot/{bot_id}/data', () => {
  // A recorded session: its bot launches the recorder's Chromium before it enters; on a loaded machine (load ~15) the
  // whole test took 10-40 s, so it gets the budget of this file's other tests.
  it('refuses a running bot, deletes every copy of the content of an ended one, keeps the tombstone', async () => {
    const hook = await webhookReceiver();
    try {
      const botId = await meeting('erase-me', {
        webhook_callback_url: hook.url,
        email: 'team@example.com',
        webhook_events: ['transcript.data', 'bot.data_deleted'],
        // Recorded: the local bot's recorder uploads pieces (and the results stage a file); one more is put below.
        recording: { audio: true },
      });
      const running = await stack.request('DELETE', `/api/bot/${botId}/data`, { key });
      if ((await status(botId)).status === 'running') {
        expect(running.status).toBe(409);
        expect(running.body.error).toBe('bot_running');
      }
      const done = await completed(botId);
      expect(done.transcript).toContain(phrase);
      // Every delivery made (transcript.data, session_complete, the e-mail) before the deletion.
      await until(async () => {
        const d = (await stack.request('GET', `/api/bot/${botId}/deliveries`, { key })).body.deliveries;
        return d.length >= 3 && d.every((x: { status: string }) => x.status !== 'pending');
      });
      expect(JSON.stringify(await items(botId))).toContain(phrase);

      // A recording's objects (a piece as a bot uploads it): deleted with the rest. Compared by key, not counted: a
      // bot whose recorder outlived its leave timeout may still add a piece of its own meanwhile.
      const recordings = stack.deps.recordings();
      const pieceKeys = async () => (await recordings.listPieces(botId)).map((p) => `${p.attempt}/${p.seq}`);
      const recorded = await pieceKeys();
      await recordings.putPiece(botId, { attempt: 9, seq: 0 }, Date.now(), new TextEncoder().encode(phrase));
      expect(await pieceKeys()).toEqual(expect.arrayContaining([...recorded, '9/0']));
      // The deliveries made before the deletion: theirs are the payloads it purges (bot.data_deleted, which it sends,
      // may be stored, content-free, by the time the table is read below).
      const deliveredBefore = (await items(botId))
        .map((i) => String(i.sk))
        .filter((sk) => sk.startsWith('DELIVERY#'));
      expect(deliveredBefore.length).toBeGreaterThanOrEqual(3);

      expect((await stack.request('DELETE', `/api/bot/${botId}/data`, { key: otherKey })).status).toBe(404);
      const deleted = await stack.request('DELETE', `/api/bot/${botId}/data`, { key });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({
        bot_id: botId,
        status: 'data_deleted',
        data_deleted_at: expect.any(String),
      });

      expect(await recordings.listPieces(botId)).toEqual([]);
      expect(await recordings.describeFile(botId)).toBeUndefined();
      const left = await items(botId);
      expect(JSON.stringify(left)).not.toContain(phrase);
      expect(left.filter((i) => String(i.sk).startsWith('SEGMENT#'))).toEqual([]);
      const deliveries = left.filter((i) => deliveredBefore.includes(String(i.sk)));
      expect(deliveries).toHaveLength(deliveredBefore.length);
      for (const d of deliveries) {
        expect(d.payload).toBeUndefined();
        expect(d).toMatchObject({
          status: 'delivered',
          message_id: expect.any(String),
          attempts: expect.any(Array),
        });
      }

      const tomb = await status(botId);
      expect(tomb).toMatchObject({
        bot_id: botId,
        status: done.status,
        started_at: done.started_at,
        completed_at: done.completed_at,
        exit_reason: done.exit_reason,
        transcript: null,
        qa_pairs: null,
        insights: null,
        data_deleted_at: deleted.body.data_deleted_at,
      });
      const page = await stack.request('GET', `/api/bot/${botId}/transcript`, { key });
      expect(page.body.utterances).toEqual([]);
      // The delivery log still reads: status, times, ids.
      const log = (await stack.request('GET', `/api/bot/${botId}/deliveries`, { key })).body.deliveries;
      expect(
        log.find(
          (d: { event: string; channel: string }) =>
            d.event === 'session_complete' && d.channel === 'webhook',
        ),
      ).toMatchObject({
        status: 'delivered',
        webhook_id: expect.any(String),
      });

      // Idempotent: the same answer, the same time, nothing new.
      const again = await stack.request('DELETE', `/api/bot/${botId}/data`, { key });
      expect(again.status).toBe(200);
      expect(again.body.data_deleted_at).toBe(deleted.body.data_deleted_at);

      // bot.data_deleted reached the webhook, once, without content.
      const event = await until(async () =>
        hook.received.map((r) => JSON.parse(r.body)).find((b) => b.event === 'bot.data_deleted'),
      );
      expect(event.data).toEqual({ reason: 'requested', data_deleted_at: deleted.body.data_deleted_at });
      await quietFor(300);
      expect(hook.received.filter((r) => r.body.includes('bot.data_deleted'))).toHaveLength(1);
      expect(tomb.status_changes.at(-1)).toMatchObject({ code: 'data_deleted', detail: 'requested' });
    } finally {
      await hook.close();
    }
  }, 60_000);

  it('a live transcript job still queued when the data is deleted stores nothing and sends nothing', async () => {
    const hook = await webhookReceiver();
    try {
      const botId = await meeting('queued-inline', { webhook_callback_url: hook.url });
      await completed(botId);
      const { accountId } = (await stack.deps.sessions.get(botId))!;
      await until(
        async () =>
          (await stack.deps.deliveries.get(botId, 'webhook', 'session_complete'))?.status === 'delivered',
      );
      // The job as the control stage queued it while the bot ran (core/events/emit.ts): the body travels in it, and
      // the delivery stage's claim would create its record.
      const job = {
        bot_id: botId,
        channel: 'webhook' as const,
        event: 'transcript.data#2',
        record: {
          account_id: accountId,
          target: hook.url,
          payload: JSON.stringify({ event: 'transcript.data', bot_id: botId, data: { text: phrase } }),
          message_id: 'msg_queued_before_deletion',
          created_at: new Date().toISOString(),
          seq: 2,
          meeting_content: true,
        },
      };
      expect((await stack.request('DELETE', `/api/bot/${botId}/data`, { key })).status).toBe(200);
      const sent = hook.received.length;
      // What the delivery stage logs (every level, every field), to show the drop is logged without the content.
      const logged: string[] = [];
      const capture = (base: Record<string, unknown>): Logger => {
        const line = (msg: string, fields?: Record<string, unknown>) =>
          void logged.push(JSON.stringify({ msg, ...base, ...fields }));
        return { debug: line, info: line, warn: line, error: line, child: (f) => capture({ ...base, ...f }) };
      };
      const log = capture({});
      const deps = {
        stores: stack.deps,
        mailer: { send: async () => expect.unreachable('no mail') },
        config: stack.config,
        log,
        now: () => new Date(),
      };
      expect(await deliver(deps, job)).toEqual({ kind: 'done' });
      // A duplicate of the job (SQS delivers at least once) is dropped the same way.
      expect(await deliver(deps, job)).toEqual({ kind: 'done' });

      // Nothing reaches the receiver after the drop either.
      await quietFor(200);
      expect(hook.received.length).toBe(sent);
      expect(await stack.deps.deliveries.get(botId, 'webhook', 'transcript.data#2')).toBeNull();
      expect(JSON.stringify(await items(botId))).not.toContain(phrase);
      expect(logged.join('\n')).toContain('delivery dropped');
      expect(logged.join('\n')).not.toContain(phrase);
    } finally {
      await hook.close();
    }
  }, 60_000);

  it('a redrive of a failed delivery after the deletion sends nothing', async () => {
    const hook = await webhookReceiver({ script: Array(50).fill(500) });
    try {
      const botId = await meeting('redrive-after', { webhook_callback_url: hook.url });
      await completed(botId);
      // The receiver refuses every attempt: session_complete ends failed (parked in the DLQ).
      await until(
        async () =>
          (await stack.deps.deliveries.get(botId, 'webhook', 'session_complete'))?.status === 'failed',
        30_000,
      );
      const sent = hook.received.length;
      expect(hook.received.map((r) => r.body).join('')).toContain(phrase);
      expect((await stack.request('DELETE', `/api/bot/${botId}/data`, { key })).status).toBe(200);

      // What a redrive does (core/adapters/sqs/redrive.ts): back to pending, the job queued again.
      expect(await stack.deps.deliveries.reopen(botId, 'webhook', 'session_complete')).toBe(true);
      const outcome = await deliver(
        {
          stores: stack.deps,
          mailer: { send: async () => expect.unreachable('no mail') },
          config: stack.config,
          log: createLogger('silent'),
          now: () => new Date(),
        },
        { bot_id: botId, channel: 'webhook', event: 'session_complete' },
      );
      expect(outcome).toEqual({ kind: 'done' });
      expect(hook.received.length).toBe(sent);
      const record = await stack.deps.deliveries.get(botId, 'webhook', 'session_complete');
      expect(record).toMatchObject({ status: 'failed', payload: '' });
      expect(record?.attempts.at(-1)?.error).toBe(contentDeletedError);
    } finally {
      await hook.close();
    }
  }, 60_000);
});
