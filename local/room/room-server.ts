// The local room server: an HTTP API and WebSocket standing in for a Daily room, plus the page people join from.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { describeIssues } from '../../core/schemas/validate';
import { decodePathSegment } from '../api-server';
import { readJson, send, sendError, sendJson } from '../http';
import { type ParticipantKind, Room, type RoomEvent } from './room';
import { roomPageHtml } from './room-page';

const roomName = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be 1–128 letters, digits, - or _');

const createRoomSchema = z.strictObject({
  name: roomName,
  private: z.boolean().default(false),
  /** Daily's `enable_knocking`: a bot (anyone without a private room's token) asks to join and waits to be let in. */
  knocking: z.boolean().default(false),
  /**
   * Fault injection: the room's transcription fails with this reason (as Daily's transcription-error says it) for
   * every bot that joins, until `POST /rooms/<name>/transcription` with `{"error": null}` mends it.
   */
  transcription_error: z.string().trim().min(1).max(500).optional(),
});

const transcriptionFaultSchema = z.strictObject({
  /** The reason the room's transcription fails with from now on; null: it works again. */
  error: z.string().trim().min(1).max(500).nullable(),
});

const scriptedSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  lines: z
    .array(
      z.strictObject({ say: z.string().min(1).max(2000), at_ms: z.number().int().min(0).max(3_600_000) }),
    )
    .max(500)
    .default([]),
  /**
   * Said one by one (an interviewee answering the bot): each `delay_ms` after a bot stops speaking, or with `early`
   * `delay_ms` after a bot's question appears, while the bot may still be saying it (an eager person who reads the
   * question and answers over the rest of it).
   */
  answers: z
    .array(
      z.strictObject({
        say: z.string().min(1).max(2000),
        delay_ms: z.number().int().min(0).max(60_000).default(400),
        early: z.boolean().default(false),
      }),
    )
    .max(100)
    .default([]),
  /** Talks over the bot: `after_ms` into the bot's `on_bot_line`-th line (1 = its first), says `say`. */
  barge_in: z
    .strictObject({
      on_bot_line: z.number().int().min(1).max(100).default(1),
      after_ms: z.number().int().min(0).max(60_000),
      say: z.string().min(1).max(2000),
    })
    .optional(),
  leave_at_ms: z.number().int().min(0).max(3_600_000).optional(),
  token: z.string().optional(),
});

export type ScriptedParticipant = z.input<typeof scriptedSchema>;

/** Rooms other than `demo` close after this long with no person or bot in them (scripted participants do not count). */
export const localRoomIdleTtlMs = 10 * 60_000;
/** At most this many rooms at once (`demo` included); creating one more is refused with 429 `too_many_rooms`. */
export const localRoomMax = 200;
/** The room that is always there and never expires. */
export const demoRoomName = 'demo';

export interface RoomServerLimits {
  /** ms a room may stay without a person or bot before it closes. */
  idleTtlMs: number;
  maxRooms: number;
}

/** Creating a room beyond `maxRooms`. */
export class TooManyRoomsError extends Error {
  constructor(max: number) {
    super(
      `the local room server holds at most ${max} rooms; rooms with no one in them close after a while, or reuse one`,
    );
    this.name = 'TooManyRoomsError';
  }
}

export type RoomServer = ReturnType<typeof createRoomServer>;

export function createRoomServer(options: {
  baseUrl: () => string;
  /** The clock rooms and their expiry read (tests inject one). */
  now?: () => number;
  limits?: Partial<RoomServerLimits>;
}) {
  const now = options.now ?? Date.now;
  /** The bounds in force; tests and benchmarks may lower them on a running server. */
  const limits: RoomServerLimits = {
    idleTtlMs: localRoomIdleTtlMs,
    maxRooms: localRoomMax,
    ...options.limits,
  };
  const rooms = new Map<string, Room>();
  /** Every pending timer, so close() can clear them; each scripted participant also tracks its own. */
  const timers = new Set<NodeJS.Timeout>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  /** Each connected participant's socket, by participant id (the drop route cuts one). */
  const sockets = new Map<string, WebSocket>();

  /** Runs `fn` after `ms`, tracked in `timers` and `owned` until it fires or is cancelled. */
  const later = (owned: Set<NodeJS.Timeout>, ms: number, fn: () => void): NodeJS.Timeout => {
    const t = setTimeout(() => {
      timers.delete(t);
      owned.delete(t);
      fn();
    }, ms);
    timers.add(t);
    owned.add(t);
    return t;
  };
  const cancel = (owned: Set<NodeJS.Timeout>, t: NodeJS.Timeout | undefined) => {
    if (!t) return;
    clearTimeout(t);
    timers.delete(t);
    owned.delete(t);
  };

  /** Closes the rooms (not `demo`) idle for longer than `limits.idleTtlMs`; returns their names. */
  function sweep(): string[] {
    const closed: string[] = [];
    const t = now();
    for (const [name, room] of rooms) {
      if (name === demoRoomName) continue;
      const idle = room.idleSince;
      if (idle !== undefined && t - idle >= limits.idleTtlMs) {
        rooms.delete(name);
        room.close();
        closed.push(name);
      }
    }
    return closed;
  }
  // Rooms are also swept before each new one, so the cap counts only live rooms; this catches the quiet times.
  const sweeper = setInterval(sweep, 30_000);
  sweeper.unref();

  const roomUrl = (name: string) => `${options.baseUrl()}/rooms/${name}`;

  function createRoom(
    name: string,
    isPrivate: boolean,
    { knocking = false, transcriptionError }: { knocking?: boolean; transcriptionError?: string } = {},
  ): Room {
    sweep();
    if (rooms.size >= limits.maxRooms && !rooms.has(name)) throw new TooManyRoomsError(limits.maxRooms);
    const room = new Room(name, isPrivate, now, knocking);
    if (transcriptionError) room.failTranscription(transcriptionError);
    rooms.set(name, room);
    return room;
  }

  function addScripted(room: Room, input: ScriptedParticipant): string {
    const script = scriptedSchema.parse(input);
    const answers = [...script.answers];
    let botLines = 0;
    // This participant's pending timers: dropped when they fire, all cleared when it leaves or its room closes.
    const mine = new Set<NodeJS.Timeout>();
    const speak = (text: string) => {
      if (!room.participants.some((p) => p.id === me.id)) return;
      room.speaking(me.id, true);
      room.say(me.id, text);
      room.speaking(me.id, false);
    };
    const isBot = (id: string) => room.participants.some((p) => p.id === id && p.kind === 'bot');
    // An answer waits until the bot has finished its turn: it stopped speaking and did not go on within delay_ms.
    let pendingAnswer: NodeJS.Timeout | undefined;
    const me = room.join(
      script.name,
      'scripted',
      (e) => {
        if (e.type === 'utterance' && e.final && isBot(e.participant_id) && answers[0]?.early) {
          // An eager answer: once the bot's line asks something, whether or not the bot has finished saying it.
          if (!/\?["'”’)]*$/.test(e.text.trim())) return;
          const next = answers.shift()!;
          later(mine, next.delay_ms, () => speak(next.say));
          return;
        }
        if (e.type !== 'speaking' || !isBot(e.participant_id)) return;
        if (e.active) {
          cancel(mine, pendingAnswer);
          pendingAnswer = undefined;
          botLines++;
          const b = script.barge_in;
          if (b && b.on_bot_line === botLines) later(mine, b.after_ms, () => speak(b.say));
        } else if (answers.length && !answers[0]!.early) {
          const next = answers[0]!;
          cancel(mine, pendingAnswer);
          pendingAnswer = later(mine, next.delay_ms, () => {
            pendingAnswer = undefined;
            answers.shift();
            speak(next.say);
          });
        }
      },
      () => {
        for (const t of mine) cancel(mine, t);
        pendingAnswer = undefined;
      },
    );
    for (const line of script.lines) later(mine, line.at_ms, () => speak(line.say));
    if (script.leave_at_ms !== undefined) later(mine, script.leave_at_ms, () => room.leave(me.id));
    return me.id;
  }

  /** HTTP requests under /rooms; returns true when handled. */
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'rooms') return false;
    const name = parts[1];
    const room = name ? rooms.get(name) : undefined;

    if (req.method === 'POST' && parts.length === 1) {
      const body = await readJson(req);
      const parsed = createRoomSchema.safeParse(body);
      if (!parsed.success) return sendError(res, 400, 'validation_error', describeIssues(parsed.error));
      sweep();
      if (rooms.has(parsed.data.name))
        return sendError(res, 409, 'room_exists', `room ${parsed.data.name} already exists`);
      let created: Room;
      try {
        created = createRoom(parsed.data.name, parsed.data.private, {
          knocking: parsed.data.knocking,
          transcriptionError: parsed.data.transcription_error,
        });
      } catch (err) {
        if (err instanceof TooManyRoomsError) return sendError(res, 429, 'too_many_rooms', err.message);
        throw err;
      }
      return sendJson(res, 201, {
        name: created.name,
        room_url: roomUrl(created.name),
        private: created.isPrivate,
        knocking: created.knocking,
        transcription_error: created.transcriptionError ?? null,
        token: created.token,
      });
    }
    if (req.method === 'GET' && parts.length === 1) {
      return sendJson(res, 200, {
        rooms: [...rooms.values()].map((r) => ({
          name: r.name,
          room_url: roomUrl(r.name),
          private: r.isPrivate,
          knocking: r.knocking,
          participants: r.participants.length,
          waiting: r.waiting.length,
        })),
      });
    }
    if (req.method === 'GET' && parts.length === 2) {
      return send(res, 200, 'text/html; charset=utf-8', roomPageHtml(name!));
    }
    if (!room) return sendError(res, 404, 'not_found', `room ${name} does not exist`);
    if (req.method === 'GET' && parts[2] === 'state' && parts.length === 3)
      return sendJson(res, 200, room.state());
    if (req.method === 'POST' && parts[2] === 'participants' && parts.length === 3) {
      const parsed = scriptedSchema.safeParse(await readJson(req));
      if (!parsed.success) return sendError(res, 400, 'validation_error', describeIssues(parsed.error));
      const refusal = room.admits(parsed.data.token);
      if (refusal) return sendError(res, 403, refusal.error_type, refusal.message);
      return sendJson(res, 201, { participant_id: addScripted(room, parsed.data) });
    }
    // The owner's powers over a running meeting, as Daily's REST API has them (POST /rooms/:name/eject, DELETE
    // /rooms/:name): the bot's provider sees them as an ejection and as the meeting ending.
    if (req.method === 'POST' && parts[2] === 'participants' && parts[4] === 'eject' && parts.length === 5) {
      const id = decodePathSegment(parts[3]!);
      if (!room.eject(id))
        return sendError(res, 404, 'not_found', `participant ${id} is not in room ${room.name}`);
      return sendJson(res, 200, { participant_id: id, ejected: true });
    }
    // A network failure on demand: the participant's socket is cut without a word, as a lost connection looks to it
    // (the bot treats it as connection_lost and is replaced). Scripted participants have no socket.
    if (req.method === 'POST' && parts[2] === 'participants' && parts[4] === 'drop' && parts.length === 5) {
      const id = decodePathSegment(parts[3]!);
      const socket = sockets.get(id);
      if (!socket || !room.participants.some((p) => p.id === id))
        return sendError(res, 404, 'not_found', `no connected participant ${id} in room ${room.name}`);
      socket.terminate();
      return sendJson(res, 200, { participant_id: id, dropped: true });
    }
    // A knocking room's host answers whoever asks to join, as Daily's updateWaitingParticipant does (the room page's
    // Admit / Deny buttons): admitted, the participant is in the room; denied, it is told not-allowed and is out.
    if (req.method === 'POST' && parts[2] === 'lobby' && parts.length === 5) {
      const id = decodePathSegment(parts[3]!);
      const answer = parts[4];
      if (answer !== 'admit' && answer !== 'deny')
        return sendError(res, 404, 'not_found', `no route ${req.method} ${url.pathname}`);
      if (!(answer === 'admit' ? room.admit(id) : room.deny(id)))
        return sendError(res, 404, 'not_found', `nobody with id ${id} is asking to join room ${room.name}`);
      return sendJson(res, 200, { participant_id: id, [answer === 'admit' ? 'admitted' : 'denied']: true });
    }
    // Fault injection: the room's transcription fails from now on, as Daily's transcription-error, or
    // works again; the bots in the room are told, and hear nothing while it has failed.
    if (req.method === 'POST' && parts[2] === 'transcription' && parts.length === 3) {
      const parsed = transcriptionFaultSchema.safeParse(await readJson(req));
      if (!parsed.success) return sendError(res, 400, 'validation_error', describeIssues(parsed.error));
      room.failTranscription(parsed.data.error ?? undefined);
      return sendJson(res, 200, { name: room.name, transcription_error: room.transcriptionError ?? null });
    }
    if (req.method === 'DELETE' && parts.length === 2) {
      rooms.delete(room.name);
      room.close();
      return sendJson(res, 200, { name: room.name, deleted: true });
    }
    return sendError(res, 404, 'not_found', `no route ${req.method} ${url.pathname}`);
  }

  /** WebSocket upgrades for /rooms/<name>/ws; returns true when handled. */
  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const m = /^\/rooms\/([^/]+)\/ws$/.exec(url.pathname);
    if (!m) return false;
    wss.handleUpgrade(req, socket, head, (ws) => {
      // Never throw here: this runs in the HTTP server's 'upgrade' listener, where an exception ends the process.
      const room = rooms.get(decodePathSegment(m[1]!));
      const send = (e: unknown) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(e));
      // Refusals mirror daily-js's fatal errors so the bot maps them the same way.
      if (!room) {
        send({ type: 'error', error_type: 'no-room', message: `the room ${m[1]} does not exist` });
        return ws.close(4404, 'no-room');
      }
      const token = url.searchParams.get('token') ?? undefined;
      const refusal = room.admits(token, true);
      if (refusal) {
        send({ type: 'error', ...refusal });
        return ws.close(4403, refusal.error_type);
      }
      const kind: ParticipantKind = url.searchParams.get('kind') === 'bot' ? 'bot' : 'human';
      const name = (url.searchParams.get('name') ?? '').trim().slice(0, 100) || 'Guest';
      // Removed by the room (ejected, denied, or the room closed): told why, then the socket closes with a matching code.
      let farewell: [number, string] = [1000, 'left'];
      const receive = (e: RoomEvent) => {
        // A bot whose transcription has failed hears nothing, as a Daily bot without transcription.
        if (kind === 'bot' && e.type === 'utterance' && room.transcriptionError) return;
        send(e);
        if (e.type === 'ejected') farewell = [4403, 'ejected'];
        else if (e.type === 'error') farewell = [4403, 'denied'];
        else if (e.type === 'room-closed') farewell = [4410, 'room-closed'];
      };
      const welcome = () => {
        send({
          type: 'welcome',
          participant_id: me.id,
          participants: room.participants,
          lobby: room.waiting,
          // This meeting's words only: someone joining `demo` today does not read yesterday's interview.
          log: room.meetingLog(200),
          recorders: room.recorders,
        });
        if (kind === 'bot') send(room.transcriptionEvent());
      };
      const out = () => ws.close(...farewell);
      // A knocking room: first the lobby (`lobby` to the one waiting), the welcome once the host admits it.
      const knocks = room.mustKnock(kind, token);
      const me = knocks ? room.knock(name, kind, receive, welcome, out) : room.join(name, kind, receive, out);
      if (!knocks) welcome();
      else
        send({
          type: 'lobby',
          participant_id: me.id,
          message: `${name} is asking to join the room ${room.name}; waiting for someone in it to let them in`,
        });
      ws.on('message', (data, isBinary) => {
        // A binary message is a piece of the sender's microphone (the room page's Microphone button).
        if (isBinary) return room.audio(me.id, asBuffer(data));
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(String(data));
        } catch {
          return;
        }
        if (msg.type === 'say' && typeof msg.text === 'string')
          room.say(
            me.id,
            msg.text,
            msg.final !== false,
            typeof msg.voice === 'string' ? msg.voice.slice(0, 40) : undefined,
          );
        else if (msg.type === 'speaking' && typeof msg.active === 'boolean')
          room.speaking(me.id, msg.active, msg.cut === true);
        else if (msg.type === 'leave') ws.close(1000, 'left');
        // A recording bot asks for the others' microphones: each relayed piece is one binary message, the sender's id
        // (its length in the first byte) before the PCM.
        else if (msg.type === 'listen' && msg.audio === true)
          room.listen(me.id, (fromId, pcm) => {
            if (ws.readyState !== WebSocket.OPEN) return;
            const id = Buffer.from(fromId);
            ws.send(Buffer.concat([Buffer.from([id.length]), id, pcm]), { binary: true });
          });
      });
      sockets.set(me.id, ws);
      const gone = () => {
        sockets.delete(me.id);
        room.leave(me.id);
      };
      ws.on('close', gone);
      ws.on('error', gone);
    });
    return true;
  }

  return {
    rooms,
    limits,
    /** Timers of scripted participants still pending (their lines, answers, barge-ins and leaving). */
    pendingTimers: () => timers.size,
    sweep,
    handle,
    upgrade,
    createRoom,
    addScripted,
    close() {
      clearInterval(sweeper);
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}

function asBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
