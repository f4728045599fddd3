// Leave settings per bot through the local stack, real HTTP and the local room's sockets: a person
// whose connection drops for a second and who comes back does not end the session; the bot goes by its own
// automatic_leave and takes the deployment's defaults (configuration) for what it leaves out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RoomLogEntry } from '../../local/room/room';
import { startTestStack, type TestStack } from '../support/local-stack';
import { elapse, until } from '../support/until';

describe('automatic_leave, through npm start’s stack', () => {
  let stack: TestStack;
  let key: string;
  const sockets: WebSocket[] = [];
  beforeAll(async () => {
    // EVERYONE_LEFT_TIMEOUT_MS and IDLE_TIMEOUT_MS keep their defaults (2 s, 5 min); a short max-duration default
    // shows where a bot's own value wins and where the deployment's applies.
    // Status is polled every 20 ms for the length of a silence timeout: more than the default rate limit allows.
    stack = await startTestStack({
      MAX_DURATION_MS: '3000',
      TRANSCRIPT_FLUSH_MS: '200',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    ({ apiKey: key } = await stack.account(100));
  });
  afterAll(async () => {
    for (const ws of sockets) ws.terminate();
    await stack?.close();
  });

  async function room(name: string) {
    const res = await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name }) });
    expect(res.status).toBe(201);
    return ((await res.json()) as { room_url: string }).room_url;
  }
  async function startBot(body: object) {
    const res = await stack.request('POST', '/api/bot/join', { key, body: { provider: 'local', ...body } });
    expect(res.status).toBe(201);
    return res.body.bot_id as string;
  }
  const status = async (botId: string) =>
    (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
  const ended = (botId: string) =>
    until(async () => {
      const s = await status(botId);
      return s.status !== 'running' && s;
    }, 30_000);
  const botInRoom = (name: string) =>
    until(async () => stack.rooms.rooms.get(name)?.participants.find((p) => p.kind === 'bot'));
  const roomLog = (name: string): RoomLogEntry[] => stack.rooms.rooms.get(name)?.log ?? [];

  /** A person in the room as the room page connects one: over its WebSocket, saying lines as final utterances. */
  async function person(roomName: string, name: string) {
    const ws = new WebSocket(
      `${stack.baseUrl.replace('http', 'ws')}/rooms/${roomName}/ws?name=${encodeURIComponent(name)}&kind=human`,
    );
    sockets.push(ws);
    const welcome = await new Promise<{ participant_id: string }>((resolve, reject) => {
      ws.on('message', (d) => {
        const m = JSON.parse(String(d));
        if (m.type === 'welcome') resolve(m);
      });
      ws.on('error', reject);
    });
    return {
      id: welcome.participant_id,
      say: (text: string) => ws.send(JSON.stringify({ type: 'say', text })),
      leave: () => ws.close(1000, 'left'),
    };
  }

  it('a participant who drops for 1 s and returns does not end the session; staying away ends it after the everyone-left timeout (default 2 s)', async () => {
    const room_url = await room('blink');
    const botId = await startBot({
      room_url,
      bot_config: { name: 'Scribe', automatic_leave: { max_duration_seconds: 600 } },
    });
    await botInRoom('blink');
    const ada = await person('blink', 'Ada');
    ada.say('Before my connection blinks.');
    await until(async () => (await status(botId)).transcript?.includes('connection blinks'));

    // The room cuts Ada's socket as a network failure would; she is back a second later.
    const drop = await fetch(`${stack.baseUrl}/rooms/blink/participants/${ada.id}/drop`, { method: 'POST' });
    expect(drop.status).toBe(200);
    const droppedAt = Date.now();
    await elapse(1000);
    const back = await person('blink', 'Ada');
    back.say('Back after a second.');
    await until(async () => (await status(botId)).transcript?.includes('after a second'));
    // Longer than the everyone-left timeout since the drop: the session is still on, with the same bot.
    await elapse(Math.max(0, droppedAt + 3000 - Date.now()));
    expect(await status(botId)).toMatchObject({ status: 'running', exit_reason: null, replacements: [] });

    back.leave();
    const done = await ended(botId);
    expect(done).toMatchObject({ status: 'completed', exit_reason: 'participant_left' });
    const adasLines = done.transcript.split('\n').filter((l: string) => l.startsWith('Ada: '));
    expect(adasLines).toEqual(['Ada: Before my connection blinks.', 'Ada: Back after a second.']);

    const log = roomLog('blink').filter((e) => e.type === 'joined' || e.type === 'left');
    expect(log.map((e) => `${e.name} ${e.type}`)).toEqual([
      'Scribe joined',
      'Ada joined',
      'Ada left',
      'Ada joined',
      'Ada left',
      'Scribe left',
    ]);
    // The bot left only once the room had been without people for the 2 s, not at Ada's departure.
    const [, , dropped, returned, lastLeft, botLeft] = log.map((e) => e.t_ms);
    expect(returned! - dropped!).toBeGreaterThanOrEqual(1000);
    expect(botLeft! - lastLeft!).toBeGreaterThanOrEqual(2000);
  });

  it('bot_config.automatic_leave.silence_timeout_seconds replaces the deployment’s idle timeout for that bot', async () => {
    const room_url = await room('hush');
    // The older max_duration_seconds still sets the cap (else the 3 s default would end it first).
    const botId = await startBot({
      room_url,
      bot_config: { max_duration_seconds: 600, automatic_leave: { silence_timeout_seconds: 10 } },
    });
    await botInRoom('hush');
    const eve = await person('hush', 'Eve');
    eve.say('I will be quiet now.');
    const done = await ended(botId);
    expect(done).toMatchObject({ status: 'completed', exit_reason: 'idle_timeout' });
    const said = roomLog('hush').find((e) => e.type === 'utterance' && e.name === 'Eve')!;
    const botLeft = roomLog('hush').find((e) => e.type === 'left' && e.name !== 'Eve')!;
    // 10 s after Eve's line, not the deployment's 5 minutes (and not the 3 s cap: max_duration_seconds holds).
    expect(botLeft.t_ms - said.t_ms).toBeGreaterThanOrEqual(10_000);
  }, 45_000);

  it('a bot that does not say takes the deployment’s default: MAX_DURATION_MS ends it (max_duration)', async () => {
    const room_url = await room('capped');
    const botId = await startBot({ room_url });
    await botInRoom('capped');
    await person('capped', 'Cy');
    const done = await ended(botId);
    expect(done).toMatchObject({ status: 'completed', exit_reason: 'max_duration' });
    const entries = roomLog('capped').filter(
      (e) => (e.type === 'joined' || e.type === 'left') && e.name === 'Meeting Bot',
    );
    expect(entries.map((e) => e.type)).toEqual(['joined', 'left']);
    expect(entries[1]!.t_ms - entries[0]!.t_ms).toBeGreaterThanOrEqual(3000);
    const session = await stack.deps.sessions.get(botId);
    expect(session?.botConfig.automatic_leave).toEqual({
      everyone_left_timeout_seconds: 2,
      silence_timeout_seconds: 300,
      waiting_room_timeout_seconds: 600,
      max_duration_seconds: 3,
    });
  });
});
