// Lifecycle events and the live transcript through npm start's stack, real HTTP and signed webhooks verified with the
// standardwebhooks package: opt-in with webhook_events, one webhook-id per logical event, in order
// by seq, status_changes in the status view; a bot without webhook_events sends what it always did, and one whose list
// leaves session_complete out still gets its results.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addParticipant, joinBotInRoom } from '../support/local-meeting';
import { meetingTestEnv, startTestStack, type TestStack } from '../support/local-stack';
import { quietFor, until } from '../support/until';
import { type ReceivedWebhook as Received, webhookReceiver as receiver } from '../support/webhook-receiver';

let stack: TestStack;
let key: string;
let secret: string;
beforeAll(async () => {
  stack = await startTestStack(meetingTestEnv);
  ({ apiKey: key, webhookSecret: secret } = await stack.account(100));
});
afterAll(() => stack?.close());

const allEvents = [
  'session_complete',
  'bot_join_failed',
  'bot_failed',
  'bot.joining',
  'bot.in_waiting_room',
  'bot.in_call',
  'bot.left',
  'bot.done',
  'bot.failed',
  'bot.replaced',
  'transcript.data',
];

/** A bot in a new local room; Ada says two lines and leaves, so the bot ends participant_left. */
async function meeting(room: string, extra: Record<string, unknown>) {
  const { botId } = await joinBotInRoom(stack, key, room, { bot_config: { name: 'Scribe' }, ...extra });
  await addParticipant(stack, room, {
    name: 'Ada',
    lines: [
      { say: 'First point: we ship on Friday.', at_ms: 100 },
      { say: 'Second point: Ben writes the notes.', at_ms: 900 },
    ],
    leave_at_ms: 1800,
  });
  return botId;
}

const verified = (r: Received) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
    event?: string;
    event_type?: string;
    seq?: number;
    data?: { utterances?: { text: string; seq: number; is_bot: boolean; speaker: string }[] };
  };
const nameOf = (b: ReturnType<typeof verified>) => b.event ?? b.event_type;

describe('lifecycle events (webhook_events)', () => {
  it('all events: bot.joining → bot.in_call → transcript.data… → bot.left → bot.done → session_complete, in order, numbered, signed', async () => {
    const hook = await receiver();
    try {
      const botId = await meeting('events-all', {
        webhook_callback_url: hook.url,
        webhook_events: allEvents,
      });
      await until(async () => hook.received.some((r) => nameOf(verified(r)) === 'session_complete'), 30_000);
      const bodies = hook.received.map(verified);
      const names = bodies.map(nameOf);
      const collapsed = names.filter((n, i) => n !== 'transcript.data' || names[i - 1] !== 'transcript.data');
      expect(collapsed).toEqual([
        'bot.joining',
        'bot.in_call',
        'transcript.data',
        'bot.left',
        'bot.done',
        'session_complete',
      ]);
      // Numbered 1, 2, 3 … in the order they arrived (session_complete keeps the spec's body: no seq).
      const seqs = bodies.filter((b) => b.seq !== undefined).map((b) => b.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(hook.received.length);
      // The live transcript has each line once, numbered by its place in the transcript.
      const lines = bodies.flatMap((b) => b.data?.utterances ?? []);
      // The bot's own greeting is a line too, marked is_bot.
      expect(lines.filter((u) => u.is_bot).map((u) => u.text)).toEqual(["Hello Ada, I'm Scribe."]);
      expect(lines.filter((u) => !u.is_bot).map((u) => u.text)).toEqual([
        'First point: we ship on Friday.',
        'Second point: Ben writes the notes.',
      ]);
      expect(lines.map((u) => u.seq)).toEqual(lines.map((_, i) => i + 1));
      const status = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
      const transcript = (status.transcript as string).split('\n');
      for (const u of lines) expect(transcript[u.seq - 1]).toBe(`${u.speaker}: ${u.text}`);
      expect(status.status).toBe('completed');
      expect(status.status_changes.map((c: { code: string }) => c.code)).toEqual([
        'joining',
        'in_call',
        'left',
        'done',
      ]);
      expect(status.status_changes[2]).toMatchObject({ code: 'left', detail: 'participant_left' });
      const left = bodies.find((b) => b.event === 'bot.left') as { data: unknown; timestamp: string };
      expect(left.data).toEqual({ exit_reason: 'participant_left' });
      expect(left.timestamp).toMatch(/(Z|[+-]\d\d:\d\d)$/);
      // The deliveries view lists them as the receiver got them: the events' own names, numbered 1, 2, … by seq
      // (session_complete in its place, though its body carries no seq).
      const view = (await stack.request('GET', `/api/bot/${botId}/deliveries`, { key })).body;
      expect(view.deliveries.map((d: { event: string }) => d.event)).toEqual(names);
      expect(view.deliveries.map((d: { seq: number }) => d.seq)).toEqual(names.map((_, i) => i + 1));
    } finally {
      await hook.close();
    }
  });

  it('a receiver failing every first attempt gets each logical event once, same webhook-id and seq on the retry', async () => {
    const hook = await receiver({ failFirst: 1 });
    try {
      await meeting('events-retry', { webhook_callback_url: hook.url, webhook_events: allEvents });
      await until(
        async () => hook.received.some((r) => r.status === 200 && nameOf(verified(r)) === 'session_complete'),
        30_000,
      );
      const byId = new Map<string, Received[]>();
      for (const r of hook.received)
        byId.set(String(r.headers['webhook-id']), [...(byId.get(String(r.headers['webhook-id'])) ?? []), r]);
      for (const [, attempts] of byId) {
        expect(attempts.map((a) => a.status)).toEqual([503, 200]);
        expect(attempts[1]!.body).toBe(attempts[0]!.body);
      }
      const delivered = hook.received.filter((r) => r.status === 200).map(verified);
      const names = delivered.map(nameOf);
      for (const once of ['bot.joining', 'bot.in_call', 'bot.left', 'bot.done', 'session_complete']) {
        expect(
          names.filter((n) => n === once),
          once,
        ).toHaveLength(1);
      }
      // Sorted by seq, the events tell the bot's life in order whatever order the retries came in.
      const bySeq = delivered.filter((b) => b.seq !== undefined).sort((a, b) => a.seq! - b.seq!);
      expect(bySeq.map((b) => b.seq)).toEqual(bySeq.map((_, i) => i + 1));
      expect(bySeq.map(nameOf).filter((n) => n !== 'transcript.data')).toEqual([
        'bot.joining',
        'bot.in_call',
        'bot.left',
        'bot.done',
      ]);
    } finally {
      await hook.close();
    }
  });

  it('without webhook_events a bot sends exactly what it always did: session_complete; status_changes are still recorded', async () => {
    const hook = await receiver();
    try {
      const botId = await meeting('events-default', { webhook_callback_url: hook.url });
      await until(
        async () =>
          hook.received.length > 0 &&
          (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body.status === 'completed',
        30_000,
      );
      // Nothing else comes after it.
      await quietFor(1000);
      expect(hook.received.map((r) => nameOf(verified(r)))).toEqual(['session_complete']);
      expect('seq' in JSON.parse(hook.received[0]!.body)).toBe(false);
      const status = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
      expect(status.status_changes.map((c: { code: string }) => c.code)).toEqual([
        'joining',
        'in_call',
        'left',
        'done',
      ]);
    } finally {
      await hook.close();
    }
  });

  it('a webhook_events list without session_complete still gets the results, after the events it named', async () => {
    const hook = await receiver();
    try {
      await meeting('events-live-only', {
        webhook_callback_url: hook.url,
        webhook_events: ['bot.in_call', 'bot.left'],
      });
      await until(async () => hook.received.some((r) => nameOf(verified(r)) === 'session_complete'), 30_000);
      const bodies = hook.received.map(verified);
      expect(bodies.map(nameOf)).toEqual(['bot.in_call', 'bot.left', 'session_complete']);
      expect(bodies.at(-1)).toMatchObject({ exit_reason: 'participant_left' });
      expect(String((bodies.at(-1) as { transcript_text?: string }).transcript_text)).toContain(
        'ship on Friday',
      );
    } finally {
      await hook.close();
    }
  });

  it('a join that fails: bot.joining → bot.failed → bot_join_failed; an unknown event name is a 400 naming the allowed ones', async () => {
    const hook = await receiver();
    try {
      const res = await stack.request('POST', '/api/bot/join', {
        key,
        body: {
          provider: 'local',
          room_url: `${stack.baseUrl}/rooms/nowhere-${Date.now()}`,
          webhook_callback_url: hook.url,
          webhook_events: ['bot.joining', 'bot.failed', 'bot_join_failed'],
        },
      });
      expect(res.status).toBe(201);
      await until(async () => hook.received.length >= 3, 30_000);
      expect(hook.received.map((r) => nameOf(verified(r)))).toEqual([
        'bot.joining',
        'bot.failed',
        'bot_join_failed',
      ]);

      const bad = await stack.request('POST', '/api/bot/join', {
        key,
        body: { room_url: 'https://acme.daily.co/x', webhook_events: ['bot.dancing'] },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('validation_error');
      expect(bad.body.detail).toContain('webhook_events');
      expect(bad.body.detail).toContain('transcript.data');
    } finally {
      await hook.close();
    }
  });
});
