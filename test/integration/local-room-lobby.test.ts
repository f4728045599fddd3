// A knocking local room, through the real room server over HTTP and WebSocket. The bot waits in the
// lobby, reports it once, and is admitted, denied, gives up after its waiting-room timeout or is stopped; the room's
// API (POST /rooms/<name>/lobby/<id>/admit | deny) answers it as Daily's updateWaitingParticipant does.
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LocalRoomProvider } from '../../bot-task/providers/local-room';
import {
  JoinAbortedError,
  type JoinOptions,
  type RoomConnection,
  RoomJoinError,
} from '../../core/ports/room-provider';
import { roomServersPerTest } from '../support/room-server';
import { elapse, until } from '../support/until';

const { cleanups, startRooms } = roomServersPerTest();

const provider = new LocalRoomProvider(1);

/** Starts a bot's join; `waited` counts onWaitingRoom calls, `result` settles with the connection or the error. */
function joinBot(base: string, room: string, more: Partial<JoinOptions> = {}) {
  let waited = 0;
  const result = provider
    .join({
      roomUrl: `${base}/rooms/${room}`,
      botName: 'Scribe',
      videoMode: 'off',
      voice: 'Joanna',
      timeoutMs: 5000,
      waitingRoomTimeoutMs: 30_000,
      onWaitingRoom: () => waited++,
      ...more,
    })
    .then(
      (conn) => {
        cleanups.push(() => conn.leave());
        return conn;
      },
      (err: unknown) => err,
    );
  return { result, waited: () => waited };
}

type RoomState = {
  knocking: boolean;
  participants: { id: string; name: string; kind: string }[];
  lobby: { id: string; name: string; kind: string }[];
};
const state = async (base: string, room: string) =>
  (await (await fetch(`${base}/rooms/${room}/state`)).json()) as RoomState;
const post = (url: string) => fetch(url, { method: 'POST' });

/** Waits until the bot is in the lobby; returns its participant id there. */
async function inLobby(base: string, room: string) {
  return (await until(async () => (await state(base, room)).lobby.find((p) => p.kind === 'bot'), 5000)).id;
}

/** A person in the room over the raw socket, recording what the room sends. */
async function person(base: string, room: string, query = 'name=Ada&kind=human') {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/rooms/${room}/ws?${query}`);
  const messages: { type: string; [k: string]: unknown }[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(String(d))));
  cleanups.push(() => ws.terminate());
  await until(() => messages.length > 0, 5000);
  return { ws, messages };
}

describe('local room with knocking: the bot asks to join and waits in the lobby', () => {
  it('POST /rooms {"knocking": true} makes one; the bot waits in the lobby, not in the room, and is told so once', async () => {
    const { base } = await startRooms();
    const created = await fetch(`${base}/rooms`, {
      method: 'POST',
      body: JSON.stringify({ name: 'standup', knocking: true }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: 'standup', private: false, knocking: true });
    const ada = await person(base, 'standup');
    expect(ada.messages[0]).toMatchObject({ type: 'welcome', lobby: [] });

    const bot = joinBot(base, 'standup');
    const id = await inLobby(base, 'standup');
    await until(() => bot.waited() === 1, 5000);
    const s = await state(base, 'standup');
    expect(s.knocking).toBe(true);
    expect(s.participants.map((p) => p.name)).toEqual(['Ada']);
    expect(s.lobby).toEqual([{ id, name: 'Scribe', kind: 'bot', joinedAt: expect.any(String) }]);
    // The room's people see the request (as Daily's waiting-participant-added), not a participant joining.
    expect(ada.messages.at(-1)).toEqual({
      type: 'waiting-participant-added',
      participant: { id, name: 'Scribe', kind: 'bot', joinedAt: expect.any(String) },
    });
    const rooms = (await (await fetch(`${base}/rooms`)).json()) as { rooms: unknown[] };
    expect(rooms.rooms).toContainEqual(
      expect.objectContaining({ name: 'standup', knocking: true, participants: 1, waiting: 1 }),
    );
    // Nothing the bot says in the lobby reaches the room.
    expect(ada.messages.some((m) => m.type === 'utterance' || m.type === 'participant-joined')).toBe(false);
  });

  it('admitted: the join resolves in the room with the others, who see it join', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false, { knocking: true });
    const ada = await person(base, 'standup');
    const bot = joinBot(base, 'standup');
    const id = await inLobby(base, 'standup');

    const res = await post(`${base}/rooms/standup/lobby/${id}/admit`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ participant_id: id, admitted: true });
    const conn = (await bot.result) as RoomConnection;
    expect(conn.selfId).toBe(id);
    expect(conn.participants().map((p) => p.name)).toEqual(['Ada']);
    expect(bot.waited()).toBe(1);
    const s = await state(base, 'standup');
    expect(s.lobby).toEqual([]);
    expect(s.participants.map((p) => p.name)).toEqual(['Ada', 'Scribe']);
    expect(ada.messages.slice(-2).map((m) => m.type)).toEqual([
      'waiting-participant-removed',
      'participant-joined',
    ]);
    // In the room now: what it says is heard.
    await conn.speech.say('Hello');
    await until(() => ada.messages.some((m) => m.type === 'utterance' && m.text === 'Hello'), 5000);
  });

  it('denied: RoomJoinError auth_error with the room’s words; the bot is out of the lobby', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false, { knocking: true });
    const bot = joinBot(base, 'standup');
    const id = await inLobby(base, 'standup');

    const res = await post(`${base}/rooms/standup/lobby/${id}/deny`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ participant_id: id, denied: true });
    const err = await bot.result;
    expect(err).toBeInstanceOf(RoomJoinError);
    expect(err).toMatchObject({
      type: 'auth_error',
      providerMessage: 'Scribe was denied entry to the room standup',
      code: undefined,
    });
    expect(await state(base, 'standup')).toMatchObject({ lobby: [], participants: [] });
  });

  it('not let in within waitingRoomTimeoutMs: RoomJoinError unknown, code waiting_room_timeout; it leaves the lobby', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false, { knocking: true });
    const started = Date.now();
    const bot = joinBot(base, 'standup', { waitingRoomTimeoutMs: 600 });
    await inLobby(base, 'standup');
    const err = await bot.result;
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(err).toBeInstanceOf(RoomJoinError);
    expect(err).toMatchObject({
      type: 'unknown',
      code: 'waiting_room_timeout',
      providerMessage: `not let in from the waiting room of ${base}/rooms/standup within 0.6 s`,
    });
    await until(async () => (await state(base, 'standup')).lobby.length === 0, 5000);
    expect(bot.waited()).toBe(1);
  });

  it('the join timeout covers getting to the lobby only: a shorter timeoutMs does not cut the lobby wait short', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false, { knocking: true });
    const bot = joinBot(base, 'standup', { timeoutMs: 300, waitingRoomTimeoutMs: 30_000 });
    const id = await inLobby(base, 'standup');
    // Past the join's timeoutMs, still in the lobby.
    await elapse(700);
    expect((await state(base, 'standup')).lobby.map((p) => p.id)).toEqual([id]);
    expect((await post(`${base}/rooms/standup/lobby/${id}/admit`)).status).toBe(200);
    expect(await bot.result).toHaveProperty('selfId', id);
  });

  it('asked to stop while waiting: JoinAbortedError at once, and the bot leaves the lobby', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false, { knocking: true });
    const abort = new AbortController();
    const bot = joinBot(base, 'standup', { signal: abort.signal });
    const id = await inLobby(base, 'standup');
    const asked = Date.now();
    abort.abort();
    expect(await bot.result).toBeInstanceOf(JoinAbortedError);
    expect(Date.now() - asked).toBeLessThan(1000);
    await until(async () => (await state(base, 'standup')).lobby.length === 0, 5000);
    // Its request is gone: answering it now is a 404.
    const late = await post(`${base}/rooms/standup/lobby/${id}/admit`);
    expect(late.status).toBe(404);
    expect(await late.json()).toMatchObject({ error: 'not_found' });
  });

  it('the room closing while the bot waits: RoomJoinError room_not_found', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false, { knocking: true });
    const bot = joinBot(base, 'standup');
    await inLobby(base, 'standup');
    expect((await fetch(`${base}/rooms/standup`, { method: 'DELETE' })).status).toBe(200);
    expect(await bot.result).toMatchObject({
      type: 'room_not_found',
      providerMessage: 'the room standup has closed',
    });
  });

  it('a private knocking room: its token lets the bot straight in, none puts it in the lobby, a wrong one is refused', async () => {
    const { rooms, base } = await startRooms();
    const room = rooms.createRoom('private', true, { knocking: true });
    const withToken = joinBot(base, 'private', { meetingToken: room.token });
    expect(await withToken.result).toHaveProperty('selfId');
    expect(withToken.waited()).toBe(0);

    const without = joinBot(base, 'private');
    const id = await inLobby(base, 'private');
    expect((await post(`${base}/rooms/private/lobby/${id}/admit`)).status).toBe(200);
    expect(await without.result).toHaveProperty('selfId', id);
    expect(without.waited()).toBe(1);

    expect(await joinBot(base, 'private', { meetingToken: 'wrong' }).result).toMatchObject({
      type: 'auth_error',
    });
  });

  it('people: in a public knocking room they enter (its hosts); in a private one without the token they knock too', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('public', false, { knocking: true });
    expect((await person(base, 'public')).messages[0]).toMatchObject({ type: 'welcome' });

    rooms.createRoom('private', true, { knocking: true });
    const host = await person(
      base,
      'private',
      `name=Host&kind=human&token=${rooms.rooms.get('private')!.token}`,
    );
    const guest = await person(base, 'private', 'name=Guest&kind=human');
    expect(guest.messages[0]).toMatchObject({ type: 'lobby' });
    const id = guest.messages[0]!.participant_id as string;
    expect(host.messages.at(-1)).toMatchObject({ type: 'waiting-participant-added', participant: { id } });
    expect((await post(`${base}/rooms/private/lobby/${id}/deny`)).status).toBe(200);
    await until(() => guest.messages.some((m) => m.type === 'error'), 5000);
    expect(guest.messages.at(-1)).toEqual({
      type: 'error',
      error_type: 'not-allowed',
      message: 'Guest was denied entry to the room private',
    });
    await until(() => guest.ws.readyState === WebSocket.CLOSED, 5000);
  });

  it('the lobby routes: an id not waiting is 404; an unknown answer is 404; scripted participants never knock', async () => {
    const { rooms, base } = await startRooms();
    const room = rooms.createRoom('standup', false, { knocking: true });
    expect((await post(`${base}/rooms/standup/lobby/nobody/admit`)).status).toBe(404);
    expect((await post(`${base}/rooms/standup/lobby/nobody/deny`)).status).toBe(404);
    joinBot(base, 'standup');
    const id = await inLobby(base, 'standup');
    expect((await post(`${base}/rooms/standup/lobby/${id}/maybe`)).status).toBe(404);
    expect((await post(`${base}/rooms/nowhere/lobby/${id}/admit`)).status).toBe(404);
    rooms.addScripted(room, { name: 'Cy', lines: [] });
    expect(room.participants.map((p) => p.name)).toEqual(['Cy']);
  });
});
