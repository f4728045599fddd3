// The local stack's memory stays bounded over a day of use. The local SES store keeps only the newest
// mails, idle rooms (not `demo`) expire, the number of rooms is capped, and scripted participants' timers are dropped
// when they fire, when the participant leaves and when its room closes. Small limits and an injected clock, no waiting.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it } from 'vitest';
import { createRoomServer, localRoomIdleTtlMs, localRoomMax } from '../../local/room/room-server';
import { type LocalSes, localSesMaxMails, startLocalSes } from '../../local/ses';
import { until } from '../support/until';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('local SES store', () => {
  it('keeps only the newest mails; GET /store still lists them', async () => {
    expect(localSesMaxMails).toBe(500);
    const ses: LocalSes = await startLocalSes({ maxMails: 3 });
    cleanups.push(() => ses.close());
    await fetch(`${ses.endpoint}/clear-store`, { method: 'POST' });
    const client = new SESv2Client({
      endpoint: ses.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    cleanups.push(() => client.destroy());
    for (let i = 1; i <= 5; i++) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: 'bot@example.com',
          Destination: { ToAddresses: [`to${i}@example.com`] },
          Content: { Simple: { Subject: { Data: `mail ${i}` }, Body: { Text: { Data: 'hi' } } } },
        }),
      );
    }
    const store = (await (await fetch(`${ses.endpoint}/store`)).json()) as { emails: { subject: string }[] };
    expect(store.emails.map((m) => m.subject)).toEqual(['mail 3', 'mail 4', 'mail 5']);
    expect(ses.mailsStored()).toBe(3);
  });
});

function roomServer(opts: Parameters<typeof createRoomServer>[0]['limits'] = {}) {
  let now = 1_000_000;
  const rooms = createRoomServer({ baseUrl: () => base, now: () => now, limits: opts });
  const http: Server = createServer(async (req, res) => {
    if (!(await rooms.handle(req, res))) res.writeHead(404).end();
  });
  let base = '';
  cleanups.push(() => {
    rooms.close();
    return new Promise((r) => http.close(r));
  });
  return {
    rooms,
    advance: (ms: number) => {
      now += ms;
    },
    async start() {
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      return base;
    },
  };
}

describe('local rooms', () => {
  it('an idle room other than demo closes after the idle time; an occupied one does not', async () => {
    expect(localRoomIdleTtlMs).toBe(10 * 60_000);
    const { rooms, advance } = roomServer();
    rooms.createRoom('demo', false);
    const idle = rooms.createRoom('idle', false);
    const busy = rooms.createRoom('busy', false);
    busy.join('Ada', 'human', () => {});
    advance(localRoomIdleTtlMs - 1);
    expect(rooms.sweep()).toEqual([]);
    advance(1);
    expect(rooms.sweep()).toEqual(['idle']);
    expect([...rooms.rooms.keys()].sort()).toEqual(['busy', 'demo']);
    expect(idle.admits(undefined)?.error_type).toBe('no-room');
    // Emptied later: the idle time counts from the last one leaving.
    const ada = busy.participants[0]!;
    busy.leave(ada.id);
    advance(localRoomIdleTtlMs);
    expect(rooms.sweep()).toEqual(['busy']);
    expect([...rooms.rooms.keys()]).toEqual(['demo']);
  });

  it('caps the number of rooms: the next POST /rooms is refused with 429 too_many_rooms', async () => {
    expect(localRoomMax).toBe(200);
    const server = roomServer({ maxRooms: 3 });
    const base = await server.start();
    const create = (name: string) =>
      fetch(`${base}/rooms`, { method: 'POST', body: JSON.stringify({ name }) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { error?: string; detail?: string },
      }));
    server.rooms.createRoom('demo', false);
    expect((await create('a')).status).toBe(201);
    expect((await create('b')).status).toBe(201);
    const refused = await create('c');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('too_many_rooms');
    expect(refused.body.detail).toMatch(/at most 3 rooms/);
    // Once idle rooms expire there is room again.
    server.advance(localRoomIdleTtlMs);
    expect((await create('c')).status).toBe(201);
    expect([...server.rooms.rooms.keys()].sort()).toEqual(['c', 'demo']);
  });
});

describe('scripted participants’ timers', () => {
  it('fired timers are dropped, a leaving participant’s and a closing room’s timers are cleared', async () => {
    const { rooms, advance } = roomServer();
    const room = rooms.createRoom('script', false);
    const bot = room.join('Bot', 'bot', () => {});
    rooms.addScripted(room, {
      name: 'Quick',
      lines: [{ say: 'Hi', at_ms: 0 }],
      answers: [{ say: 'An answer', delay_ms: 0 }],
    });
    // The bot finishes a line: an answer is scheduled; it fires and must leave the tracking set.
    room.speaking(bot.id, true);
    room.speaking(bot.id, false);
    await until(() => room.log.filter((e) => e.type === 'utterance').length === 2, 2000);
    expect(
      room.log.filter((e) => e.type === 'utterance').map((e) => e.type === 'utterance' && e.text),
    ).toEqual(['Hi', 'An answer']);
    expect(rooms.pendingTimers()).toBe(0);

    // Leaving before its lines are due: its timers go with it.
    const slow = rooms.addScripted(room, {
      name: 'Slow',
      lines: [{ say: 'Much later', at_ms: 3_600_000 }],
      answers: [{ say: 'Later', delay_ms: 60_000 }],
      barge_in: { after_ms: 60_000, say: 'Wait' },
      leave_at_ms: 3_600_000,
    });
    room.speaking(bot.id, true); // schedules the barge-in
    room.speaking(bot.id, false); // schedules the answer
    expect(rooms.pendingTimers()).toBe(4);
    room.leave(slow);
    expect(rooms.pendingTimers()).toBe(0);

    // The room closes (idle once the bot left) with a scripted participant still waiting.
    rooms.addScripted(room, { name: 'Waiting', lines: [{ say: 'Eventually', at_ms: 3_600_000 }] });
    expect(rooms.pendingTimers()).toBe(1);
    room.leave(bot.id);
    advance(localRoomIdleTtlMs);
    expect(rooms.sweep()).toEqual(['script']);
    expect(rooms.pendingTimers()).toBe(0);
    expect(room.participants).toEqual([]);
  });
});
