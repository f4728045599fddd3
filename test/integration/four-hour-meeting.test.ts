// A four-hour meeting's worth of speech through the local stack with the deployed limits on (infra/limits.ts: batch
// sizes, function timeouts, visibility and redrive of every queue): six people say 2,700 lines at machine speed to a
// bot that streams them live as transcript.data; the session completes with every line, its webhooks (each line once,
// in order) and its e-mail are delivered, and nothing lands in a DLQ. Then DELETE removes the meeting's content within
// the data function's time: every item of the table, read back through DynamoDB's own Scan, and every message of every
// queue and DLQ is free of it. (The recording at this size is proven where its objects are: the assembly of a 4-hour
// recording's pieces in test/aws/recording-store.test.ts and test/integration/recording-at-size.test.ts, its deletion
// in data-deletion-at-size.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventNames } from '../../core/events/registry';
import { functionLimits } from '../../infra/limits';
import { createRoom, joinBot } from '../support/local-meeting';
import { meetingTestEnv, startTestStack, type TestStack } from '../support/local-stack';
import { scanTableText } from '../support/table-items';
import { until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

/** Four hours at one line every ~5 s (QMSum's meetings run about 700 lines an hour among 4–6 people). */
const people = 6;
const linesEach = 450;
const lines = people * linesEach;
/** The word every line carries, so any copy of the meeting's content is found wherever it hides. */
const marker = 'zephyrine';
/** Machine speed: a line every 15 ms, so the 2,700 take about 40 s. */
const everyMs = 15;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack(meetingTestEnv);
});
afterAll(() => stack?.close());

const lineOf = (person: number, n: number) =>
  `Line ${n} of person ${person}: the ${marker} budget item ${n * people + person} is on track.`;

describe('a four-hour meeting through the local stack, inside the deployed limits', () => {
  it('completes with every line live and in its results, is delivered, then deleted whole', async () => {
    const account = await stack.account(100);
    const hook = await webhookReceiver();
    try {
      await createRoom(stack, 'four-hours');
      const { botId } = await joinBot(stack, account.apiKey, 'four-hours', {
        bot_config: { name: 'Scribe' },
        webhook_callback_url: hook.url,
        webhook_events: eventNames,
        email: 'organiser@example.com',
      });
      const room = await until(async () => {
        const r = stack.rooms.rooms.get('four-hours');
        return r?.participants.some((p) => p.kind === 'bot') && r;
      });
      const lastAt = 2_000 + lines * everyMs;
      for (let person = 0; person < people; person++) {
        stack.rooms.addScripted(room, {
          name: `Person ${person}`,
          lines: Array.from({ length: linesEach }, (_, n) => ({
            say: lineOf(person, n),
            at_ms: 2_000 + (n * people + person) * everyMs,
          })),
          leave_at_ms: lastAt + 2_000,
        });
      }

      // The last person leaving ends it; the results and every webhook follow.
      const status = async () =>
        (await stack.request('GET', `/api/bot/${botId}/status`, { key: account.apiKey })).body;
      const ended = await until(async () => {
        const s = await status();
        return s.status !== 'running' && s;
      }, 240_000);
      expect(ended.status).toBe('completed');
      expect(ended.exit_reason).toBe('participant_left');
      const said = (ended.transcript as string).split('\n').filter((l) => l.includes(marker));
      expect(said).toHaveLength(lines);
      expect(ended.qa_pairs).toBeDefined();

      const delivered = () => hook.delivered(account.webhookSecret) as Record<string, unknown>[];
      const nameOf = (b: Record<string, unknown>) => (b.event ?? b.event_type) as string;
      await until(() => delivered().some((b) => nameOf(b) === 'session_complete'), 120_000);
      // Live: each line once, in order, across the transcript.data events.
      const live = delivered()
        .filter((b) => nameOf(b) === 'transcript.data')
        .flatMap(
          (b) => (b.data as { utterances: { text: string; seq: number; is_bot?: boolean }[] }).utterances,
        )
        .filter((u) => !u.is_bot)
        .sort((a, b) => a.seq - b.seq)
        .map((u) => u.text);
      expect(live).toHaveLength(lines);
      expect(new Set(live).size).toBe(lines);
      // The live lines are the transcript's, in its order, and each person's in the order they said them.
      const texts = said.map((l) => l.slice(l.indexOf(': ') + 2));
      expect(live).toEqual(texts);
      for (let person = 0; person < people; person++) {
        const own = texts.filter((t) => t.includes(`of person ${person}:`));
        expect(own, `person ${person}`).toEqual(
          Array.from({ length: linesEach }, (_, n) => lineOf(person, n)),
        );
      }
      const webhookIds = hook.received.filter((r) => r.status === 200).map((r) => r.headers['webhook-id']);
      expect(new Set(webhookIds).size).toBe(webhookIds.length);
      // The e-mail went out (the local SES), and nothing is parked in any dead-letter queue.
      await until(async () => {
        const store = (await (await fetch(`${stack.sesEndpoint}/store`)).json()) as {
          emails: { destination: { to: string[] } }[];
        };
        return store.emails.some((m) => m.destination.to.includes('organiser@example.com'));
      }, 60_000);
      expect(stack.queues.messages().filter((m) => m.queue.includes('-dlq'))).toEqual([]);

      // The deletion, within the data function's time, and nothing of the meeting left anywhere we can read.
      const before = Date.now();
      const deleted = await stack.request('DELETE', `/api/bot/${botId}/data`, { key: account.apiKey });
      const tookMs = Date.now() - before;
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expect(deleted.body.status).toBe('data_deleted');
      expect(tookMs).toBeLessThan(functionLimits.route.timeoutSeconds * 1000);
      const items = await scanTableText(stack.table);
      expect(items.filter((t) => t.includes(marker))).toEqual([]);
      expect(items.filter((t) => t.includes('organiser@example.com'))).toEqual([]);
      // Queued messages: delivered jobs are gone; whatever is left (retention, pool wake-ups) holds none of it.
      await until(() => stack.queues.messages().every((m) => !m.body.includes(marker)), 30_000);
      const after = await status();
      expect(after.transcript ?? '').not.toContain(marker);
    } finally {
      await hook.close();
    }
  }, 420_000);
});
