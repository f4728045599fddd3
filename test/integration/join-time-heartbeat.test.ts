// joined_at is never lost: when the write at join fails, the heartbeat carries the join time on
// every beat until it is written, so a bot that was in the room is charged for its minutes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { beat, JoinTimes } from '../../bot-task/heartbeat';
import { completeSession } from '../../core/bots/finish-session';
import { stepWrite } from '../../core/bots/lifecycle';
import { createLogger } from '../../core/log';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = { start: async (id) => ({ taskRef: id }), stop: async () => {} };
});
afterAll(() => stack?.close());

it('a join time whose write failed is written by a later heartbeat, and the minutes are charged', async () => {
  const { accountId, apiKey } = await stack.account(10);
  const res = await stack.request('POST', '/api/bot/join', {
    key: apiKey,
    body: { room_url: 'https://a.daily.co/joined' },
  });
  const botId = res.body.bot_id as string;

  // The database refuses the next two writes (the bot's own join write and the first beat), then recovers.
  let refusals = 2;
  const sent: Record<string, unknown>[] = [];
  const store = stack.deps.sessions;
  const refuse = (changes: Record<string, unknown>) => {
    sent.push(changes);
    if (refusals-- > 0) throw new Error('ProvisionedThroughputExceededException');
  };
  const sessions: Pick<typeof store, 'writeStep' | 'updateRunning'> = {
    writeStep: async (id, step) => {
      refuse(step.changes);
      return store.writeStep(id, step);
    },
    updateRunning: async (id, changes) => {
      refuse(changes);
      return store.updateRunning(id, changes);
    },
  };
  const joinTimes = new JoinTimes();
  const deps = { sessions, log: createLogger('silent'), joinTimes };

  // bot.ts on getting into the room: records the join time, and its write fails.
  const joinedAt = new Date(Date.now() - 150_000).toISOString();
  joinTimes.joined(botId, joinedAt);
  await expect(sessions.writeStep(botId, stepWrite('admit', { joinedAt }))).rejects.toThrow();

  await beat(deps, botId); // refused too
  expect((await stack.deps.sessions.get(botId))?.joinedAt).toBeUndefined();
  await beat(deps, botId);
  expect((await stack.deps.sessions.get(botId))?.joinedAt).toBe(joinedAt);
  await beat(deps, botId); // written: later beats carry only the heartbeat
  expect(sent.map((c) => c.joinedAt)).toEqual([joinedAt, joinedAt, joinedAt, undefined]);
  // The admit step is written only from a state it leaves: once in the call, a join time is never written again.
  expect(await stack.deps.sessions.writeStep(botId, stepWrite('admit', { joinedAt: 'later' }))).toBe(false);

  // The bot was in the room for 2.5 minutes: 3 started minutes are charged.
  await stack.deps.sessions.updateRunning(botId, { startedAt: joinedAt });
  const deps2 = { ...stack.deps, config: stack.config };
  await completeSession(deps2, botId, { exitReason: 'participant_left' });
  expect((await stack.deps.ledger.entries(accountId)).filter((e) => e.kind === 'usage')).toHaveLength(1);
});
