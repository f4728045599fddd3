// Scheduled joins through npm start's stack, real bot processes and real HTTP: a bot scheduled 40 s ahead is in the
// room within 5 s of join_at (warm pool on, the local default) and so is a cold-started one (shorter leads); a leave
// before join_at cancels (no task ever starts, nothing charged); bad join_at values get 400s and change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotSession } from '../../core/bots/session';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let pooled: TestStack;
let cold: TestStack;
beforeAll(async () => {
  [pooled, cold] = await Promise.all([
    startTestStack({ BOT_POOL_SIZE: '1', SCHEDULE_TICK_MS: '1000' }),
    // Shorter times, so the cold path and the cancel run sooner: join_at may be 5 s ahead. The task starts 20 s before
    // join_at (the local default is 15 s; a bot process can take over 10 s to start on a machine this loaded).
    startTestStack({ JOIN_AT_MIN_LEAD_MS: '5000', SCHEDULE_COLD_LEAD_MS: '20000', SCHEDULE_TICK_MS: '500' }),
  ]);
  // Ready as npm start is once it has started: the pooled bot idle, the bot bundle built.
  await Promise.all([
    until(() => pooled.runner.pool.filter((b) => b.ready && !b.botId).length === 1, 90_000),
    cold.runner.prepare(),
  ]);
}, 120_000);
afterAll(() => Promise.all([pooled?.close(), cold?.close()]));

async function openRoom(s: TestStack, room: string) {
  await fetch(`${s.baseUrl}/rooms`, {
    method: 'POST',
    body: JSON.stringify({ name: room, knocking: false }),
  });
  await fetch(`${s.baseUrl}/rooms/${room}/participants`, {
    method: 'POST',
    body: JSON.stringify({ name: 'Casey', answers: [], leave_at_ms: 120_000 }),
  });
}

const schedule = (s: TestStack, key: string, room: string, joinAt: string | unknown) =>
  s.request('POST', '/api/bot/join', {
    key,
    body: {
      provider: 'local',
      room_url: `${s.baseUrl}/rooms/${room}`,
      bot_config: { name: 'Iris' },
      join_at: joinAt,
      webhook_callback_url: 'http://127.0.0.1:9/hook',
      webhook_events: ['bot.scheduled'],
    },
  });

const session = async (s: TestStack, botId: string) => (await s.deps.sessions.get(botId)) as BotSession;
const botIn = (s: TestStack, room: string) =>
  s.rooms.rooms.get(room)?.participants.find((p) => p.kind === 'bot');
const ended = (s: TestStack, botId: string) =>
  until(async () => {
    const x = await session(s, botId);
    return x.status !== 'running' && x;
  }, 30_000);
const settledAccount = (s: TestStack, accountId: string) =>
  until(async () => {
    const a = await s.deps.accounts.get(accountId);
    return a && Object.keys(a.holds ?? {}).length === 0 && a;
  }, 30_000);

/** Schedules a bot `aheadMs` ahead, checks what the status says meanwhile, and returns how far from join_at it got in. */
async function scheduledBotJoins(s: TestStack, room: string, aheadMs: number) {
  const account = await s.account(10);
  await openRoom(s, room);
  const joinAt = new Date(Date.now() + aheadMs);
  // With an offset other than Z: kept as the same instant, in UTC.
  const local = new Date(joinAt.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
  const res = await schedule(s, account.apiKey, room, local);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.status).toBe('started');
  const botId = res.body.bot_id as string;
  const status = await until(async () => {
    const r = await s.request('GET', `/api/bot/${botId}/status`, { key: account.apiKey });
    return r.body.status_changes?.length > 0 && r.body;
  }, 10_000);
  expect(status).toMatchObject({ status: 'running', join_at: joinAt.toISOString(), started_at: null });
  expect(status.status_changes[0].code).toBe('scheduled');
  // The hold is taken now; nothing is charged.
  const held = await s.deps.accounts.get(account.accountId);
  expect(held?.holds).toEqual({ [botId]: s.config.JOIN_HOLD_CREDITS });
  expect(held?.balance).toBe(10 - s.config.JOIN_HOLD_CREDITS);
  expect(botIn(s, room)).toBeUndefined();

  const bot = await until(() => botIn(s, room), aheadMs + 15_000);
  const offsetMs = Date.parse(bot.joinedAt) - joinAt.getTime();
  // The events are numbered by the control plane a moment later.
  const served = await until(async () => {
    const x = await session(s, botId);
    return (x.statusChanges?.length ?? 0) >= 2 && x;
  });
  expect(served.startedAt).toBe(joinAt.toISOString());
  expect(served.statusChanges?.map((c) => c.code).slice(0, 2)).toEqual(['scheduled', 'joining']);
  await s.request('POST', `/v1/bots/leave/${botId}`, { key: account.apiKey });
  expect(await ended(s, botId)).toMatchObject({ status: 'completed', exitReason: 'force_leave' });
  // Charged from join_at, not from when it was scheduled: the minute it was in the room.
  const after = await settledAccount(s, account.accountId);
  expect(after.balance).toBe(10 - s.config.CREDITS_PER_MINUTE);
  return { offsetMs, startPath: served.startPath };
}

describe('scheduled joins (local)', () => {
  it('a bot scheduled 40 s ahead, with the warm pool: in the room within 5 s of join_at, never before it', async () => {
    const { offsetMs, startPath } = await scheduledBotJoins(pooled, 'at-forty', 40_000);
    expect(startPath).toBe('pool');
    expect(offsetMs).toBeGreaterThanOrEqual(-50);
    expect(offsetMs).toBeLessThan(5000);
  }, 90_000);

  it('without the pool: its task starts ahead (SCHEDULE_COLD_LEAD_MS) and the bot joins at join_at', async () => {
    const { offsetMs, startPath } = await scheduledBotJoins(cold, 'cold-path', 25_000);
    expect(startPath).toBe('cold');
    expect(offsetMs).toBeGreaterThanOrEqual(-50);
    expect(offsetMs).toBeLessThan(5000);
  }, 90_000);

  it('a leave before join_at cancels: completed force_leave, no task ever started, nothing charged', async () => {
    const account = await cold.account(10);
    await openRoom(cold, 'cancelled');
    const joinAt = new Date(Date.now() + 24_000);
    const res = await schedule(cold, account.apiKey, 'cancelled', joinAt.toISOString());
    expect(res.status).toBe(201);
    const botId = res.body.bot_id as string;
    const left = await cold.request('POST', `/v1/bots/leave/${botId}`, { key: account.apiKey });
    expect(left.status).toBe(202);
    const done = await ended(cold, botId);
    expect(done).toMatchObject({ status: 'completed', exitReason: 'force_leave' });
    expect(done.joinedAt).toBeUndefined();
    expect(done.dispatchedAt).toBeUndefined();
    // Past the moment its task would have started and join_at: its start, queued at the join, did nothing.
    await until(
      () =>
        cold.messagesSeen.some((m) => m.kind === 'start_scheduled' && m.bot_id === botId) &&
        Date.now() > joinAt.getTime() + 1000,
      40_000,
    );
    expect(cold.runner.attempt(botId)).toBeUndefined();
    expect(botIn(cold, 'cancelled')).toBeUndefined();
    const after = await settledAccount(cold, account.accountId);
    expect(after.balance).toBe(10);
    const status = await cold.request('GET', `/api/bot/${botId}/status`, { key: account.apiKey });
    expect(status.body).toMatchObject({ status: 'completed', exit_reason: 'force_leave', started_at: null });
  }, 90_000);

  it('bad join_at values get a 400 validation_error naming join_at, and change nothing', async () => {
    const account = await pooled.account(10);
    const now = Date.now();
    const bad: unknown[] = [
      '2030-01-01T10:00:00', // no offset
      'tomorrow',
      1_900_000_000,
      new Date(now - 60_000).toISOString(), // past
      new Date(now + 10_000).toISOString(), // under 30 s
      new Date(now + 31 * 86_400_000).toISOString(), // over 30 days
    ];
    for (const joinAt of bad) {
      const res = await schedule(pooled, account.apiKey, 'never', joinAt);
      expect(res.status, String(joinAt)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.detail).toMatch(/join_at/);
    }
    const a = await pooled.deps.accounts.get(account.accountId);
    expect(a?.balance).toBe(10);
    expect(Object.keys(a?.holds ?? {})).toEqual([]);
    const list = await pooled.request('GET', '/api/bots', { key: account.apiKey });
    expect(list.body.bots).toHaveLength(0);
  });
});
