// A knocking room's lobby through npm start's stack, real HTTP and signed webhooks: a bot started into a knocking local
// room waits in its lobby (bot.in_waiting_room), and is admitted (in the call, transcribing, charged from its admission
// only), denied (bot_join_failed auth_error), not let in in time (bot_join_failed unknown, error_code
// waiting_room_timeout), or stopped while it waits (force_leave at once) — none of the last three charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followedBot } from '../support/local-meeting';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ DELIVERY_BACKOFF_SCALE: '0.00001', TRANSCRIPT_FLUSH_MS: '200' });
});
afterAll(() => stack?.close());

/** A followed bot asked into a new knocking room, once it has reached the lobby (`lobbyId`: its place there). */
async function knockingBot(room: string, botConfig: Record<string, unknown> = {}) {
  const bot = await followedBot(stack, room, { roomOptions: { knocking: true }, botConfig });
  const lobbyId = (
    await until(async () => stack.rooms.rooms.get(room)?.waiting.find((p) => p.kind === 'bot'))
  ).id;
  return { ...bot, lobbyId };
}

const answer = (room: string, id: string, what: 'admit' | 'deny') =>
  fetch(`${stack.baseUrl}/rooms/${room}/lobby/${id}/${what}`, { method: 'POST' });

describe('a bot in a knocking local room, through npm start’s stack', () => {
  it('admitted: in the call and transcribing; bot.in_waiting_room then bot.in_call; its minutes count from admission', async () => {
    const k = await knockingBot('knock-admit');
    try {
      // Waiting: running, in the lobby, not in the room, not yet charged.
      await until(async () =>
        (await k.status()).status_changes?.some((c: { code: string }) => c.code === 'in_waiting_room'),
      );
      expect(stack.rooms.rooms.get(k.room)?.participants).toEqual([]);
      expect((await stack.deps.sessions.get(k.botId))?.joinedAt).toBeUndefined();

      const admittedAt = new Date().toISOString();
      expect((await answer(k.room, k.lobbyId, 'admit')).status).toBe(200);
      await until(async () => stack.rooms.rooms.get(k.room)?.participants.some((p) => p.id === k.lobbyId));
      await fetch(`${stack.baseUrl}/rooms/${k.room}/participants`, {
        method: 'POST',
        body: JSON.stringify({ name: 'Ada', lines: [{ say: 'Thanks for letting the bot in.', at_ms: 100 }] }),
      });
      await until(async () => (await k.status()).transcript?.includes('Ada: Thanks for letting the bot in.'));
      const joinedAt = await until(async () => (await stack.deps.sessions.get(k.botId))?.joinedAt);
      expect(joinedAt >= admittedAt).toBe(true);

      await stack.request('POST', `/v1/bots/leave/${k.botId}`, { key: k.account.apiKey });
      expect(await k.ended()).toMatchObject({ status: 'completed', exit_reason: 'force_leave' });
      const names = (await k.events('session_complete')).map((e) => e.name);
      expect(names.filter((n) => n !== 'transcript.data')).toEqual([
        'bot.joining',
        'bot.in_waiting_room',
        'bot.in_call',
        'bot.left',
        'bot.done',
        'session_complete',
      ]);
      const waiting = (await k.events('session_complete')).find((e) => e.name === 'bot.in_waiting_room');
      expect(waiting?.body.data).toEqual({ timeout_seconds: 600 });
      expect((await k.settled())?.balance).toBe(9); // one started minute, from admission
    } finally {
      await k.hook.close();
    }
  });

  it('denied: bot_join_failed auth_error, the session failed, nothing charged', async () => {
    const k = await knockingBot('knock-deny');
    try {
      expect((await answer(k.room, k.lobbyId, 'deny')).status).toBe(200);
      const done = await k.ended();
      expect(done.status).toBe('failed');
      expect(done.error).toBe(
        'the bot could not join the room (auth_error): Scribe was denied entry to the room knock-deny',
      );
      const events = await k.events('bot_join_failed');
      const names = events.map((e) => e.name);
      expect(names.slice(0, 2)).toEqual(['bot.joining', 'bot.in_waiting_room']);
      // The spec's event and ours for the same failure (each delivered once, in either order).
      expect(names.slice(2).sort()).toEqual(['bot.failed', 'bot_join_failed']);
      const failed = events.find((e) => e.name === 'bot_join_failed')!.body;
      expect(failed).toMatchObject({
        event_type: 'bot_join_failed',
        room_url: `${stack.baseUrl}/rooms/knock-deny`,
        error_type: 'auth_error',
        error_message: 'Scribe was denied entry to the room knock-deny',
      });
      expect(failed).not.toHaveProperty('error_code');
      expect((await k.settled())?.balance).toBe(10);
      expect(stack.rooms.rooms.get(k.room)?.waiting).toEqual([]);
    } finally {
      await k.hook.close();
    }
  });

  it('not let in within bot_config.automatic_leave.waiting_room_timeout_seconds: bot_join_failed unknown, error_code waiting_room_timeout', async () => {
    const k = await knockingBot('knock-timeout', { automatic_leave: { waiting_room_timeout_seconds: 10 } });
    try {
      const done = await until(async () => {
        const s = await k.status();
        return s.status !== 'running' && s;
      }, 30_000);
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(
        /^the bot could not join the room \(unknown\): not let in from the waiting room .* within 10 s$/,
      );
      const failed = (await k.events('bot_join_failed')).find((e) => e.name === 'bot_join_failed')!.body;
      expect(failed).toMatchObject({
        event_type: 'bot_join_failed',
        error_type: 'unknown',
        error_code: 'waiting_room_timeout',
        error_message: `not let in from the waiting room of ${stack.baseUrl}/rooms/knock-timeout within 10 s`,
      });
      expect(failed.duration_seconds).toBeGreaterThanOrEqual(10);
      expect((await k.settled())?.balance).toBe(10);
      // The bot left the lobby: nobody is asking to join any more.
      expect(stack.rooms.rooms.get(k.room)?.waiting).toEqual([]);
    } finally {
      await k.hook.close();
    }
  }, 60_000);

  it('stopped by its platform while it waits (SIGTERM, no leave asked): bot_join_failed unknown, not force_leave', async () => {
    const k = await knockingBot('knock-platform-stop');
    try {
      expect(stack.runner.signal(k.botId, 'SIGTERM')).toBe(true);
      const done = await k.ended();
      expect(done).toMatchObject({
        status: 'failed',
        error:
          'the bot could not join the room (unknown): the bot was stopped by its platform before it got into the room',
      });
      const names = (await k.events('bot_join_failed')).map((e) => e.name);
      expect(names).not.toContain('bot.left');
      expect((await k.settled())?.balance).toBe(10);
    } finally {
      await k.hook.close();
    }
  });

  it('a leave request while it waits: force_leave within 5 s, out of the lobby, nothing charged', async () => {
    const k = await knockingBot('knock-leave');
    try {
      await until(async () =>
        (await k.status()).status_changes?.some((c: { code: string }) => c.code === 'in_waiting_room'),
      );
      const asked = Date.now();
      expect(
        (await stack.request('POST', `/v1/bots/leave/${k.botId}`, { key: k.account.apiKey })).status,
      ).toBe(202);
      const done = await k.ended();
      expect(Date.now() - asked).toBeLessThan(5000); // spec §8
      expect(done).toMatchObject({ status: 'completed', exit_reason: 'force_leave', transcript: '' });
      expect(stack.rooms.rooms.get(k.room)?.waiting).toEqual([]);
      expect(stack.rooms.rooms.get(k.room)?.participants).toEqual([]);
      const names = (await k.events('session_complete')).map((e) => e.name);
      expect(names).toEqual([
        'bot.joining',
        'bot.in_waiting_room',
        'bot.left',
        'bot.done',
        'session_complete',
      ]);
      expect((await k.settled())?.balance).toBe(10);
      // Its request to join is gone: admitting it now is a 404.
      expect((await answer(k.room, k.lobbyId, 'admit')).status).toBe(404);
    } finally {
      await k.hook.close();
    }
  });
});
