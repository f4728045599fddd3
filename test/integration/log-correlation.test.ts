// One bot's whole life under one query: the join's request id (x-request-id) is the correlation_id of
// every line the join, the bot task, the results stage and the delivery stage write about that bot, through npm
// start's stack and real HTTP; and none of those lines carries the account's API key or the meeting token.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureOutput } from '../support/captured-output';
import { addParticipant, joinBotInRoom } from '../support/local-meeting';
import { meetingTestEnv, startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

/** A Daily-style meeting token (a JWT): it must reach the bot and never a log line. */
const meetingToken =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyIjoiY29ycmVsYXRpb24iLCJvIjpmYWxzZX0.dGhlLXNpZ25hdHVyZS1vZi1pdA';

interface Line {
  msg: string;
  component?: string;
  bot_id?: string;
  correlation_id?: string;
  [key: string]: unknown;
}

let stack: TestStack;
let output: string[];
beforeAll(async () => {
  output = captureOutput();
  stack = await startTestStack({ ...meetingTestEnv, LOG_LEVEL: 'debug', EVERYONE_LEFT_TIMEOUT_MS: '300' });
});
afterAll(async () => {
  await stack?.close();
  vi.restoreAllMocks();
});

const jsonLines = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);

describe('log correlation', () => {
  it("finds the join, the bot task, results and delivery of one bot by the join's request id", async () => {
    const { apiKey } = await stack.account(100);
    const hook = await webhookReceiver();
    try {
      const { botId, join } = await joinBotInRoom(stack, apiKey, 'correlated', {
        bot_config: { name: 'Scribe' },
        meeting_token: meetingToken,
        webhook_callback_url: hook.url,
      });
      const requestId = join.headers.get('x-request-id')!;
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      await addParticipant(stack, 'correlated', {
        name: 'Ada',
        lines: [{ say: 'Ship it on Friday.', at_ms: 100 }],
        leave_at_ms: 600,
      });
      await until(async () => hook.received.some((r) => r.status === 200), 30_000);
      const status = await stack.request('GET', `/api/bot/${botId}/status`, { key: apiKey });
      expect(status.body.status).toBe('completed');
      // The delivery's own line follows its answer.
      await until(async () => output.join('').includes('"msg":"delivered"'));

      const botLog = stack.runner.logFile(botId);
      expect(existsSync(botLog)).toBe(true);
      const stackText = output.join('');
      const botText = readFileSync(botLog, 'utf8');

      // One query: every line with this correlation id, from every stage.
      const lines = [...jsonLines(stackText), ...jsonLines(botText)];
      const correlated = lines.filter((l) => l.correlation_id === requestId);
      const messages = correlated.map((l) => l.msg);
      expect(messages).toContain('bot started'); // the join
      expect(messages).toContain('bot task started');
      expect(messages).toContain('bot task finished');
      expect(messages).toContain('session completed'); // results
      expect(messages).toContain('delivered'); // delivery
      for (const l of correlated) expect(l.bot_id).toBe(botId);
      // The bot task writes nothing about its session without it (only lines before it read the session).
      const taskLines = jsonLines(botText).filter((l) => l.bot_id === botId);
      const beforeSession = taskLines.findIndex((l) => l.msg === 'bot task started');
      expect(taskLines.slice(beforeSession).every((l) => l.correlation_id === requestId)).toBe(true);

      // No secret anywhere in what this bot's life wrote.
      for (const text of [stackText, botText]) {
        expect(text).not.toContain(apiKey);
        expect(text).not.toContain(meetingToken);
      }
    } finally {
      await hook.close();
    }
  });

  it('a lost bot keeps the id: the task-stopped report, the replacement and the replacement task log it', async () => {
    const { apiKey } = await stack.account(100);
    await fetch(`${stack.baseUrl}/rooms`, {
      method: 'POST',
      body: JSON.stringify({ name: 'correlated-lost' }),
    });
    const res = await stack.request('POST', '/api/bot/join', {
      key: apiKey,
      body: {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/correlated-lost`,
        bot_config: { name: 'Scribe' },
      },
    });
    const botId = res.body.bot_id as string;
    const requestId = res.headers.get('x-request-id')!;
    await addParticipant(stack, 'correlated-lost', { name: 'Bea', leave_at_ms: 30_000 });
    await until(async () => (await stack.deps.sessions.get(botId))?.joinedAt);
    expect(stack.runner.signal(botId, 'SIGKILL')).toBe(true);
    await until(async () => (await stack.deps.sessions.get(botId))?.replacements?.[0]?.joinedAt, 20_000);
    await until(async () => output.join('').includes('"msg":"bot replaced"'));
    const correlated = jsonLines(output.join('')).filter((l) => l.correlation_id === requestId);
    const messages = correlated.map((l) => l.msg);
    expect(messages).toContain('bot task lost; replacement requested'); // task-stopped
    expect(messages).toContain('bot replaced'); // the results stage's replacement
    const botText = readFileSync(stack.runner.logFile(botId), 'utf8');
    const replacementLines = jsonLines(botText).filter(
      (l) => l.attempt === 1 && l.msg === 'bot task started',
    );
    expect(replacementLines.map((l) => l.correlation_id)).toEqual([requestId]);
    await stack.request('POST', `/v1/bots/leave/${botId}`, { key: apiKey });
  });
});
