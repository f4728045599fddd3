// The store enforces the bot's state machine on dynalite: a step is written only while the session is in a state the
// step leaves, so a writer that read an older state (a late join write, a task recorded after the end) writes nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { beat, JoinTimes } from '../../bot-task/heartbeat';
import { stepWrite } from '../../core/bots/lifecycle';
import { createLogger } from '../../core/log';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = { start: async (id) => ({ taskRef: id }), stop: async () => {} };
  ({ apiKey: key } = await stack.account(10));
});
afterAll(() => stack?.close());

const at = () => new Date().toISOString();
async function join(): Promise<string> {
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: { room_url: 'https://a.daily.co/steps' },
  });
  return res.body.bot_id as string;
}

it('admit after leave is refused, and the heartbeat stops carrying that join time', async () => {
  const sessions = stack.deps.sessions;
  const botId = await join();
  expect(
    await sessions.writeStep(botId, stepWrite('leave', { exitReason: 'force_leave', leftAt: at() })),
  ).toBe(true);
  expect(await sessions.writeStep(botId, stepWrite('admit', { joinedAt: at() }))).toBe(false);
  expect((await sessions.get(botId))?.joinedAt).toBeUndefined();

  const joinTimes = new JoinTimes();
  joinTimes.joined(botId, at());
  expect(await beat({ sessions, log: createLogger('silent'), joinTimes }, botId)).toBe(true);
  expect(joinTimes.pending(botId)).toBeUndefined();
  const session = await sessions.get(botId);
  expect(session?.joinedAt).toBeUndefined();
  expect(session?.heartbeatAt).toBeDefined();
});

it('record_task after done is refused; so are a second admit, a loss before the room and a completion before the leave', async () => {
  const sessions = stack.deps.sessions;
  const botId = await join();
  const before = (await sessions.get(botId))?.taskRef;
  // Only a bot that was in the room is replaced; a completion comes after the leave.
  expect(await sessions.addReplacement(botId, 0, { at: at(), reason: 'lost' })).toBe(false);
  const complete = stepWrite('complete', { completedAt: at(), exitReason: 'participant_left' });
  expect(await sessions.writeStep(botId, complete)).toBe(false);

  const joinedAt = at();
  expect(await sessions.writeStep(botId, stepWrite('admit', { joinedAt }))).toBe(true);
  expect(await sessions.writeStep(botId, stepWrite('admit', { joinedAt: at() }))).toBe(false);
  expect((await sessions.get(botId))?.joinedAt).toBe(joinedAt);
  expect(
    await sessions.writeStep(botId, stepWrite('leave', { exitReason: 'stop_phrase', leftAt: at() })),
  ).toBe(true);
  expect(await sessions.writeStep(botId, complete)).toBe(true);

  expect(await sessions.writeStep(botId, stepWrite('record_task', { taskRef: 'arn:late' }))).toBe(false);
  expect(await sessions.writeStep(botId, stepWrite('fail', { completedAt: at(), error: 'late' }))).toBe(
    false,
  );
  const session = await sessions.get(botId);
  expect(session).toMatchObject({ status: 'completed', exitReason: 'participant_left' });
  expect(session?.taskRef).toBe(before);
  expect(session?.error).toBeUndefined();
});

it('a step from a state it leaves is written; start, only from scheduled, is refused on a joining bot', async () => {
  const sessions = stack.deps.sessions;
  const botId = await join();
  expect(await sessions.writeStep(botId, stepWrite('record_task', { taskRef: 'arn:cold' }))).toBe(true);
  expect((await sessions.get(botId))?.taskRef).toBe('arn:cold');
  expect(await sessions.writeStep(botId, stepWrite('start', { startedAt: at() }))).toBe(false);
  expect(await sessions.writeStep(botId, stepWrite('fail', { completedAt: at(), error: 'no room' }))).toBe(
    true,
  );
  expect((await sessions.get(botId))?.status).toBe('failed');
});
