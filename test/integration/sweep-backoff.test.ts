// The heartbeat sweeper hands stuck results over again with exponential spacing, not on every run.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resendSpacingMs, sweepStaleSessions } from '../../core/bots/sweep-stale';
import type { TaskStoppedDeps } from '../../core/bots/task-stopped';
import type { OutboxMessage } from '../../core/control/outbox';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
const sent: OutboxMessage[] = [];
let deps: TaskStoppedDeps;

beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = { start: async (id) => ({ taskRef: `arn:task/${id}` }), stop: async () => {} };
  deps = stack.taskStoppedDeps(sent);
});
afterAll(() => stack?.close());

const minutes = (n: number) => n * 60_000;

it('re-sends session_ended for results stuck past 30 min at 30 min, then 1 h, 2 h … spacing', async () => {
  const { apiKey } = await stack.account(10);
  const res = await stack.request('POST', '/api/bot/join', {
    key: apiKey,
    body: { room_url: 'https://a.daily.co/stuck' },
  });
  const botId = res.body.bot_id as string;
  const t0 = Date.now();
  const leftAt = new Date(t0 - minutes(31)).toISOString();
  await stack.deps.sessions.updateRunning(botId, {
    joinedAt: new Date(t0 - minutes(40)).toISOString(),
    leftAt,
    exitReason: 'participant_left',
    heartbeatAt: leftAt,
  });
  const settings = { staleMs: 60_000, startupGraceMs: minutes(10) };
  const resendsAfter = async (offsetMinutes: number) => {
    await sweepStaleSessions(deps, settings, new Date(t0 + minutes(offsetMinutes)));
    return sent.filter((m) => m.bot_id === botId && m.kind === 'session_ended').length;
  };

  expect(await resendsAfter(0)).toBe(1);
  // The sweeper runs every few minutes: nothing more for the next 30 min.
  for (const at of [1, 5, 15, 29]) expect(await resendsAfter(at)).toBe(1);
  expect(await resendsAfter(30)).toBe(2);
  for (const at of [31, 60, 89]) expect(await resendsAfter(at)).toBe(2);
  expect(await resendsAfter(90)).toBe(3);
  expect(await resendsAfter(209)).toBe(3);
  expect(await resendsAfter(210)).toBe(4);
  expect(await stack.deps.sessions.get(botId)).toMatchObject({ status: 'running', handoverResends: 4 });
});

it('spaces hand-overs 30 min, 1 h, 2 h, … and never more than a day', () => {
  expect([1, 2, 3, 4].map(resendSpacingMs)).toEqual([minutes(30), minutes(60), minutes(120), minutes(240)]);
  expect(resendSpacingMs(30)).toBe(minutes(24 * 60));
});
