// How a bot in a local room is put out of it, through the real room server over HTTP and WebSocket.
// The owner's eject route ends in `ejected`, the room being deleted in `room_ended`, the socket going away on its own
// in `connection_lost`; the bot leaving itself is no disconnection.
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LocalRoomProvider } from '../../bot-task/providers/local-room';
import { type RoomEvents, RoomJoinError } from '../../core/ports/room-provider';
import { roomServersPerTest } from '../support/room-server';
import { quietFor, until } from '../support/until';

const { cleanups, startRooms } = roomServersPerTest();

const provider = new LocalRoomProvider(1);

async function joinBot(base: string, room: string) {
  const conn = await provider.join({
    roomUrl: `${base}/rooms/${room}`,
    botName: 'Scribe',
    videoMode: 'off',
    voice: 'Joanna',
    timeoutMs: 5000,
    waitingRoomTimeoutMs: 5000,
  });
  cleanups.push(() => conn.leave());
  const disconnections: RoomEvents['disconnected'][] = [];
  conn.on('disconnected', (d) => disconnections.push(d));
  return { conn, disconnections };
}

/** Waits for the first disconnection, then a moment more, so a second one would show. */
async function settled(disconnections: RoomEvents['disconnected'][]) {
  await until(() => disconnections.length > 0, 5000);
  await quietFor(100);
  return disconnections;
}

/** A person in the room over the raw socket, recording what the room sends and how the socket closes. */
async function person(base: string, room: string) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/rooms/${room}/ws?name=Ada&kind=human`);
  const messages: { type: string; message?: string; participant_id?: string }[] = [];
  let closed: { code: number; reason: string } | undefined;
  ws.on('message', (d) => messages.push(JSON.parse(String(d))));
  ws.on('close', (code, reason) => {
    closed = { code, reason: String(reason) };
  });
  await until(() => messages.find((m) => m.type === 'welcome'), 5000);
  cleanups.push(() => ws.terminate());
  return { id: messages[0]!.participant_id!, messages, closed: () => closed };
}

const post = (url: string) => fetch(url, { method: 'POST' });

describe('local room: how the bot is put out of the room', () => {
  it('POST /rooms/<name>/participants/<id>/eject removes the bot: one disconnection of kind ejected', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false);
    const { conn, disconnections } = await joinBot(base, 'standup');
    const ada = await person(base, 'standup');

    const res = await post(`${base}/rooms/standup/participants/${conn.selfId}/eject`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ participant_id: conn.selfId, ejected: true });
    expect(await settled(disconnections)).toEqual([
      { kind: 'ejected', reason: 'removed from the room standup' },
    ]);
    const state = (await (await fetch(`${base}/rooms/standup/state`)).json()) as {
      participants: { id: string }[];
    };
    expect(state.participants.map((p) => p.id)).toEqual([ada.id]);
    // The others see an ordinary departure.
    expect(ada.messages.at(-1)).toEqual({ type: 'participant-left', participant_id: conn.selfId });
  });

  it('the eject route: a person is told and their socket closes (4403 ejected); unknown ids are 404', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false);
    const ada = await person(base, 'standup');
    const scripted = rooms.addScripted(rooms.rooms.get('standup')!, {
      name: 'Later',
      lines: [{ say: 'Much later', at_ms: 3_600_000 }],
    });

    expect((await post(`${base}/rooms/standup/participants/${ada.id}/eject`)).status).toBe(200);
    await until(() => ada.closed(), 5000);
    expect(ada.messages.at(-1)).toEqual({ type: 'ejected', message: 'removed from the room standup' });
    expect(ada.closed()).toEqual({ code: 4403, reason: 'ejected' });

    // A scripted participant can be removed too; its pending lines go with it.
    expect((await post(`${base}/rooms/standup/participants/${scripted}/eject`)).status).toBe(200);
    expect(rooms.pendingTimers()).toBe(0);

    const missing = await post(`${base}/rooms/standup/participants/${ada.id}/eject`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
    expect((await post(`${base}/rooms/nowhere/participants/${ada.id}/eject`)).status).toBe(404);
  });

  it('DELETE /rooms/<name> ends the meeting: kind room_ended for the bot, everyone told, the room gone', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false);
    const { disconnections } = await joinBot(base, 'standup');
    const ada = await person(base, 'standup');

    const res = await fetch(`${base}/rooms/standup`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'standup', deleted: true });
    expect(await settled(disconnections)).toEqual([
      { kind: 'room_ended', reason: 'the room standup has closed' },
    ]);
    await until(() => ada.closed(), 5000);
    expect(ada.messages).toContainEqual({ type: 'room-closed', message: 'the room standup has closed' });
    expect(ada.closed()).toEqual({ code: 4410, reason: 'room-closed' });

    expect((await fetch(`${base}/rooms/standup/state`)).status).toBe(404);
    expect((await fetch(`${base}/rooms/standup`, { method: 'DELETE' })).status).toBe(404);
    const rejoin = await joinBot(base, 'standup').catch((e) => e);
    expect(rejoin).toBeInstanceOf(RoomJoinError);
    expect(rejoin).toMatchObject({ type: 'room_not_found' });
  });

  it('the socket closing on its own (the room server gone) is a disconnection of kind connection_lost', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false);
    const { disconnections } = await joinBot(base, 'standup');
    rooms.close(); // terminates every socket without a word, as a crashed server or a dead network would
    expect(await settled(disconnections)).toEqual([
      { kind: 'connection_lost', reason: expect.stringMatching(/^room connection closed \(1006/) },
    ]);
  });

  it('the bot leaving by itself is no disconnection', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('standup', false);
    const { conn, disconnections } = await joinBot(base, 'standup');
    await conn.leave();
    await quietFor(100);
    expect(disconnections).toEqual([]);
    expect(rooms.rooms.get('standup')!.participants).toEqual([]);
  });
});
