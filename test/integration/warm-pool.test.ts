// The local warm pool through npm start's stack, real bot processes and real HTTP: joins beyond
// the pool size, a pooled bot that dies idle (refilled), one that dies after claiming (cold start, nothing lost), a
// leave before any bot claimed (force_leave, not charged), and the stack shutting down with idle bots.
import { realpathSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotSession } from '../../core/bots/session';
import { startTestStack, type TestStack } from '../support/local-stack';
import { quietFor, until } from '../support/until';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack({ BOT_POOL_SIZE: '2', RATE_LIMIT_PER_MINUTE: '100000' });
  ({ apiKey: key } = await stack.account(100));
  await idlePool(stack, 2);
});
afterAll(() => stack?.close());

/** Waits until `n` pooled bots are idle; returns them. */
const idlePool = (s: TestStack, n: number) =>
  until(() => {
    const idle = s.runner.pool.filter((b) => !b.botId);
    return idle.length === n && idle;
  }, 20_000);

async function joinRoom(room: string, options: { knocking?: boolean; apiKey?: string; s?: TestStack } = {}) {
  const s = options.s ?? stack;
  await fetch(`${s.baseUrl}/rooms`, {
    method: 'POST',
    body: JSON.stringify({ name: room, knocking: options.knocking ?? false }),
  });
  await fetch(`${s.baseUrl}/rooms/${room}/participants`, {
    method: 'POST',
    body: JSON.stringify({ name: 'Casey', answers: [], leave_at_ms: 60_000 }),
  });
  const res = await s.request('POST', '/api/bot/join', {
    key: options.apiKey ?? key,
    body: { provider: 'local', room_url: `${s.baseUrl}/rooms/${room}`, bot_config: { name: 'Iris' } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.bot_id as string;
}

const session = async (botId: string, s = stack) => (await s.deps.sessions.get(botId)) as BotSession;
const botsIn = (room: string, s = stack) =>
  s.rooms.rooms.get(room)?.participants.filter((p) => p.kind === 'bot') ?? [];
const leave = async (botId: string) => {
  await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
  return until(async () => {
    const s = await session(botId);
    return s.status !== 'running' && s;
  }, 20_000);
};

describe('warm pool (local)', () => {
  it('a join is taken by an idle pooled bot, which gets into the room; the pool refills behind it', async () => {
    // The stack's first pooled bots start once the bot bundle is built and poll once Node has loaded it (seconds on
    // a loaded machine): a join before that is served by the fallback, correctly, but this test is about a pooled bot.
    await until(() => stack.runner.pool.filter((b) => b.ready && !b.botId).length === 2, 20_000);
    const botId = await joinRoom('pooled');
    await until(() => botsIn('pooled').length === 1);
    const s = await session(botId);
    // Claimed by the pooled bot, so before the fallback's timeout (how fast: npm run bench -- join-latency).
    expect(s).toMatchObject({ startPath: 'pool', claimedBy: expect.stringMatching(/^pool-/) });
    // Its log is where the docs say a bot's log is, under its bot id: the pooled process's log, written from its start.
    expect(realpathSync(stack.runner.logFile(botId))).toBe(
      realpathSync(stack.runner.logFile(s.claimedBy as string)),
    );
    expect(Date.parse(s.claimedAt!)).toBeGreaterThanOrEqual(Date.parse(s.createdAt));
    expect(stack.runner.pool.find((b) => b.botId === botId)?.poolBotId).toBe(s.claimedBy);
    await idlePool(stack, 2);
    expect((await leave(botId)).exitReason).toBe('force_leave');
  });

  it('concurrent joins beyond the pool size: each is served once, by a pooled bot or a cold start after the timeout', async () => {
    await idlePool(stack, 2);
    const rooms = ['c1', 'c2', 'c3', 'c4', 'c5'];
    const botIds = await Promise.all(rooms.map((r) => joinRoom(r)));
    for (const room of rooms) await until(() => botsIn(room).length === 1, 20_000);
    const sessions = await Promise.all(botIds.map((id) => session(id)));
    const paths = sessions.map((s) => s.startPath);
    expect(paths.filter((p) => p === 'pool').length).toBeGreaterThanOrEqual(2);
    expect(paths.every((p) => p === 'pool' || p === 'cold')).toBe(true);
    // A cold start waited for the claim timeout first.
    for (const s of sessions.filter((x) => x.startPath === 'cold'))
      expect(Date.parse(s.claimedAt!) - Date.parse(s.createdAt)).toBeGreaterThanOrEqual(1900);
    // No second bot comes into any room.
    await quietFor(500);
    for (const room of rooms) expect(botsIn(room)).toHaveLength(1);
    await Promise.all(botIds.map(leave));
    await idlePool(stack, 2);
  });

  it('a pooled bot that dies while idle is replaced; no session is touched', async () => {
    const [victim] = await idlePool(stack, 2);
    const seen = stack.messagesSeen.length;
    expect(stack.runner.signalPooled(victim!.poolBotId, 'SIGKILL')).toBe(true);
    const refilled = await until(() => {
      const idle = stack.runner.pool.filter((b) => !b.botId);
      return idle.length === 2 && !idle.some((b) => b.poolBotId === victim!.poolBotId) && idle;
    });
    expect(refilled).toHaveLength(2);
    // No lost-claimant fallback, failure or replacement followed (the earlier tests' sessions may still be handing
    // over, and their joins' delayed fallbacks come due, finding the session claimed).
    const repairs = stack.messagesSeen
      .slice(seen)
      .filter((m) =>
        m.kind === 'start_cold'
          ? m.claimant
          : ['replace_bot', 'bot_failed', 'bot_join_failed'].includes(m.kind),
      );
    expect(repairs).toEqual([]);
  });

  it.each([
    ['dies (SIGKILL)', 'SIGKILL', 'lobby'],
    // The pool's scale-in or a deploy choosing the task before its protection took hold: not a leave request.
    ['is stopped by the platform (SIGTERM)', 'SIGTERM', 'lobby-term'],
  ] as const)(
    'a pooled bot that %s after claiming, before it is in: the session falls back to a cold start, nothing lost',
    async (_, signal, roomName) => {
      await idlePool(stack, 2);
      const botId = await joinRoom(roomName, { knocking: true });
      const claimant = (await until(async () => (await session(botId)).claimedBy)) as string;
      expect(claimant).toMatch(/^pool-/);
      const room = () => stack.rooms.rooms.get(roomName);
      await until(() => room()?.waiting.some((p) => p.kind === 'bot'));
      // Not in the room yet, so its place in the pool is not refilled yet (local/task-runner.ts refillBackstopMs).
      expect(stack.runner.pool.filter((b) => !b.botId)).toHaveLength(1);
      expect(stack.runner.signal(botId, signal)).toBe(true);

      const cold = await until(async () => {
        const s = await session(botId);
        return s.startPath === 'cold' && s;
      });
      expect(cold).toMatchObject({ status: 'running', claimedBy: 'cold' });
      // The cold task knocks in turn; let in, it is the session's bot.
      const waiting = await until(() =>
        room()?.waiting.find((p) => p.kind === 'bot' && stack.runner.pid(botId) !== undefined),
      );
      room()!.admit(waiting.id);
      await until(async () => (await session(botId)).joinedAt);
      expect(botsIn(roomName)).toHaveLength(1);
      const ended = await leave(botId);
      expect(ended).toMatchObject({ status: 'completed', exitReason: 'force_leave' });
      expect(stack.messagesSeen.filter((m) => m.bot_id === botId && m.kind === 'bot_join_failed')).toEqual(
        [],
      );
    },
  );

  it('a leave before any bot claimed: force_leave, not charged, no bot started; the stack closes with idle bots', async () => {
    // The leave is recorded before the pooled bot's claim, which it then refuses: the fallback ends the session.
    const quiet = await startTestStack({ BOT_POOL_SIZE: '1', POOL_CLAIM_TIMEOUT_MS: '2000' });
    try {
      const account = await quiet.account(5);
      await idlePool(quiet, 1);
      const botId = await joinRoom('unclaimed', { apiKey: account.apiKey, s: quiet });
      const left = await quiet.request('POST', `/v1/bots/leave/${botId}`, { key: account.apiKey });
      expect(left.status).toBe(202);
      const ended = await until(async () => {
        const s = await session(botId, quiet);
        return s.status !== 'running' && s;
      });
      expect(ended).toMatchObject({ status: 'completed', exitReason: 'force_leave', startPath: 'cold' });
      expect(ended.joinedAt).toBeUndefined();
      expect(botsIn('unclaimed', quiet)).toHaveLength(0);
      expect(quiet.runner.running).toBe(0);
      const a = await until(async () => {
        const acc = await quiet.deps.accounts.get(account.accountId);
        return Object.keys(acc?.holds ?? {}).length === 0 && acc;
      });
      expect(a.balance).toBe(5);
    } finally {
      const pids = quiet.runner.pool.map((b) => b.pid!);
      const closing = Date.now();
      await quiet.close();
      // Idle bots leave at once on SIGTERM: well within the shutdown grace, and no process is left behind.
      expect(Date.now() - closing).toBeLessThan(5000);
      for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
      expect(quiet.runner.pool).toEqual([]);
    }
  });
});
