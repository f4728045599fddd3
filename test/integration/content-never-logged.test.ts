// Nothing of a meeting's content reaches logs or metrics: a whole meeting through the local stack (join, the bot
// task, conversation, results, webhook, e-mail, then its data deletion), with distinctive phrases, at LOG_LEVEL debug
// and with EMF metric documents written; every line the stack and the bot task wrote is searched for them.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EmfMetrics } from '../../core/adapters/metrics/emf-metrics';
import { flushMetrics, useMetricsSink } from '../../core/metrics';
import { captureOutput } from '../support/captured-output';
import { addParticipant, joinBotInRoom } from '../support/local-meeting';
import { meetingTestEnv, startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

/** Words no log line has a reason to hold: each is only ever said in the meeting. */
const phrases = ['xylophone-meridian', 'quokka-basilisk', 'tangerine-obelisk'];

let stack: TestStack;
let output: string[];
beforeAll(async () => {
  output = captureOutput();
  useMetricsSink(new EmfMetrics({ namespace: 'MeetingBot', buffered: false }));
  stack = await startTestStack({ ...meetingTestEnv, LOG_LEVEL: 'debug', EVERYONE_LEFT_TIMEOUT_MS: '300' });
});
afterAll(async () => {
  await stack?.close();
  useMetricsSink(undefined);
  vi.restoreAllMocks();
});

describe('no meeting content in logs or metrics', () => {
  it('a whole meeting, its results, deliveries and deletion write none of what was said', async () => {
    const { apiKey } = await stack.account(100);
    const hook = await webhookReceiver();
    try {
      const { botId } = await joinBotInRoom(stack, apiKey, 'private', {
        bot_config: { name: 'Scribe' },
        webhook_callback_url: hook.url,
        webhook_events: ['transcript.data', 'bot.left', 'bot.done', 'bot.data_deleted'],
        email: 'team@example.com',
      });
      await addParticipant(stack, 'private', {
        name: 'Ada',
        lines: [
          { say: `What did you learn on the ${phrases[0]} project?`, at_ms: 100 },
          { say: `And how did ${phrases[2]} go?`, at_ms: 900 },
        ],
        leave_at_ms: 1800,
      });
      await addParticipant(stack, 'private', {
        name: 'Cal',
        lines: [
          { say: `I rewrote the ${phrases[1]} service in six weeks.`, at_ms: 500 },
          { say: `It shipped on time, ${phrases[2]} included.`, at_ms: 1300 },
        ],
        leave_at_ms: 1700,
      });
      const done = await until(async () => {
        const s = (await stack.request('GET', `/api/bot/${botId}/status`, { key: apiKey })).body;
        return s.status === 'completed' && s;
      }, 30_000);
      // The content did flow: the transcript and the webhook carry it (else the search below proves nothing).
      for (const p of phrases) expect(done.transcript).toContain(p);
      await until(async () => hook.received.some((r) => r.body.includes('session_complete')), 30_000);
      expect(hook.received.map((r) => r.body).join('')).toContain(phrases[1]);
      await until(async () => output.join('').includes('"msg":"delivered"'));
      expect((await stack.request('DELETE', `/api/bot/${botId}/data`, { key: apiKey })).status).toBe(200);
      await until(async () => hook.received.some((r) => r.body.includes('bot.data_deleted')), 30_000);
      flushMetrics();

      const stackText = output.join('');
      const botLog = stack.runner.logFile(botId);
      expect(existsSync(botLog)).toBe(true);
      const botText = readFileSync(botLog, 'utf8');
      // Both were written: debug lines of every stage, and EMF documents.
      expect(stackText).toContain('"_aws"');
      expect(botText).toContain(botId);
      for (const p of phrases) {
        const found = [...stackText.split('\n'), ...botText.split('\n')].filter((l) => l.includes(p));
        expect(found, `"${p}" written to a log or metric`).toEqual([]);
      }
    } finally {
      await hook.close();
    }
  }, 90_000);
});
