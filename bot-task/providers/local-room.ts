// RoomProvider for the local room server: joins over WebSocket and maps its events and refusals like Daily's.
import WebSocket from 'ws';
import { joinErrorTypeOf } from '../../core/bots/join-errors';
import {
  type DisconnectKind,
  type JoinOptions,
  type RecordOptions,
  type RoomConnection,
  type RoomEventName,
  type RoomEvents,
  RoomJoinError,
  type RoomParticipant,
  type RoomProvider,
  type RoomRecording,
} from '../../core/ports/room-provider';
import type { Speech, SpeechOutcome } from '../../core/ports/speech';
import { joinLimits } from './join-limits';
import {
  type LocalRecorder,
  type LocalRecorderOptions,
  type PreparedRecorder,
  prepareLocalRecorder,
} from './local-room-recorder';
import { RoomEventHub } from './room-events';

type ServerMessage =
  | { type: 'welcome'; participant_id: string; participants: { id: string; name: string; kind: string }[] }
  /** A knocking room put the bot in its lobby: `welcome` follows when the host admits it, `error` when denied. */
  | { type: 'lobby'; participant_id: string; message: string }
  | { type: 'error'; error_type: string; message: string }
  | { type: 'participant-joined'; participant: { id: string; name: string; kind: string } }
  | { type: 'participant-left'; participant_id: string }
  | { type: 'utterance'; participant_id: string; name: string; text: string; final: boolean; at: string }
  | { type: 'speaking'; participant_id: string; active: boolean }
  | { type: 'ejected'; message: string }
  | { type: 'room-closed'; message: string }
  | { type: 'transcription'; state: 'running' | 'failed'; reason: string };

const toParticipant = (p: { id: string; name: string; kind: string }): RoomParticipant => ({
  participantId: p.id,
  name: p.name,
  isBot: p.kind === 'bot',
});

export class LocalRoomProvider implements RoomProvider {
  /**
   * `speechMsPerChar`: how long the bot's voice "plays" per character (the room page speaks it). `recorder`: what
   * recording needs (a browser, a voice it can hear); without it the provider cannot record.
   */
  constructor(
    private readonly speechMsPerChar = 55,
    private readonly recorder?: LocalRecorderOptions,
  ) {}

  async join(options: JoinOptions): Promise<RoomConnection> {
    const url = new URL(options.roomUrl.replace(/\/$/, ''));
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.pathname += '/ws';
    url.searchParams.set('name', options.botName);
    url.searchParams.set('kind', 'bot');
    if (options.meetingToken) url.searchParams.set('token', options.meetingToken);

    // A session that records gets its recorder ready before it enters (as the Daily bot's browser is), so the
    // recording starts as the bot is in the room; a recorder that cannot be made fails the recording, not the join.
    const recorderOptions = this.recorder;
    const prepared: PreparedRecorder | Error | undefined =
      options.recording && recorderOptions
        ? await prepareLocalRecorder(recorderOptions).catch((err: unknown) =>
            err instanceof Error ? err : new Error(String(err)),
          )
        : undefined;
    const ws = new WebSocket(url);
    const emitter = new RoomEventHub();
    const people = new Map<string, RoomParticipant>();
    let selfId = '';
    let leaving = false;
    // Reported once (RoomEventHub): the room's message (ejected, room closed) comes first, the socket's close behind it.
    const disconnect = (kind: DisconnectKind, reason: string) => {
      if (!leaving) emitter.emit('disconnected', { kind, reason });
    };

    await new Promise<void>((resolve, reject) => {
      if (prepared && !(prepared instanceof Error))
        ws.once('close', () => {
          if (!selfId) void prepared.close();
        });
      const closedWhileJoining = (code: number, reason: Buffer) => {
        settled();
        reject(new RoomJoinError('unknown', `the room closed the connection (${code} ${String(reason)})`));
      };
      // Closing the socket is also how the bot leaves a lobby: the room drops its request to join.
      const giveUp = (err: Error) => {
        ws.off('close', closedWhileJoining);
        ws.terminate();
        reject(err);
      };
      const limits = joinLimits(options, giveUp, options.roomUrl);
      // Only while joining: once in (or refused), stopping is the exit pipeline's business.
      const settled = () => {
        limits.settled();
        ws.off('close', closedWhileJoining);
      };
      ws.on('close', closedWhileJoining);
      ws.once('error', (err) => {
        settled();
        reject(new RoomJoinError('unknown', `could not reach the room: ${err.message}`));
      });
      ws.on('message', (data) => {
        let msg: ServerMessage;
        try {
          msg = JSON.parse(String(data));
        } catch {
          return;
        }
        switch (msg.type) {
          case 'lobby':
            limits.lobby();
            break;
          case 'welcome':
            settled();
            selfId = msg.participant_id;
            for (const p of msg.participants) if (p.id !== selfId) people.set(p.id, toParticipant(p));
            resolve();
            break;
          case 'error':
            // Refused at the door, or denied from the lobby (not-allowed → auth_error).
            settled();
            reject(new RoomJoinError(joinErrorTypeOf(msg.error_type), msg.message));
            break;
          case 'room-closed':
            if (selfId) disconnect('room_ended', msg.message);
            else {
              // Closed while the bot waited in its lobby: the meeting it was to join is gone.
              settled();
              reject(new RoomJoinError('room_not_found', msg.message));
            }
            break;
          case 'participant-joined':
            if (msg.participant.id === selfId) break;
            people.set(msg.participant.id, toParticipant(msg.participant));
            emitter.emit('participant-joined', toParticipant(msg.participant));
            break;
          case 'participant-left':
            people.delete(msg.participant_id);
            emitter.emit('participant-left', { participantId: msg.participant_id });
            break;
          case 'utterance':
            emitter.emit('utterance', {
              participantId: msg.participant_id,
              name: msg.name,
              text: msg.text,
              final: msg.final,
              at: msg.at,
            });
            break;
          case 'speaking':
            emitter.emit('audio-activity', { participantId: msg.participant_id, active: msg.active });
            break;
          case 'ejected':
            disconnect('ejected', msg.message);
            break;
          case 'transcription':
            emitter.emit('transcription', { state: msg.state, reason: msg.reason });
            break;
        }
      });
    });

    // Anything else that ends the socket (the room server gone, the network) is a lost connection: the local room
    // has no reconnection of its own to wait for.
    ws.on('close', (code, reason) =>
      disconnect('connection_lost', `room connection closed (${code} ${String(reason)})`),
    );
    ws.on('error', (err) => disconnect('connection_lost', `room connection failed: ${err.message}`));

    const send = (m: unknown) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(m));
    /** Set while the bot records: the room relays the others' microphones to it (room-server.ts, `listen`). */
    let recording: LocalRecorder | undefined;
    ws.on('message', (data, isBinary) => {
      if (!isBinary || !recording) return;
      const bytes = Buffer.isBuffer(data)
        ? data
        : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
      const idLength = bytes[0] ?? 0;
      recording.hear(bytes.subarray(1, 1 + idLength).toString(), bytes.subarray(1 + idLength));
    });
    let current: ((outcome: SpeechOutcome) => void) | undefined;
    /** An opening clause (SayOptions.continues), said with the rest of its sentence: one line in the room. */
    let opening = '';
    const speech: Speech = {
      say: async (said, sayOptions) => {
        // Nothing to prepare here (the room page speaks the text): the line just waits for its turn.
        if (sayOptions?.startWhen && !(await sayOptions.startWhen)) return 'interrupted';
        if (sayOptions?.continues) {
          opening = `${opening}${said} `;
          return 'done';
        }
        const text = `${opening}${said}`;
        opening = '';
        current?.('interrupted');
        send({ type: 'speaking', active: true });
        send({ type: 'say', text, voice: options.voice });
        recording?.hush();
        recording?.say(text, options.voice);
        return new Promise<SpeechOutcome>((resolve) => {
          const finish = (outcome: SpeechOutcome) => {
            if (current !== finish) return;
            current = undefined;
            clearTimeout(timer);
            // A line cut off by someone talking over it: the room page stops its voice and marks the line.
            send({ type: 'speaking', active: false, ...(outcome === 'interrupted' && { cut: true }) });
            resolve(outcome);
          };
          const timer = setTimeout(() => finish('done'), Math.max(300, text.length * this.speechMsPerChar));
          current = finish;
        });
      },
      // The room's chat is its transcript: a line sent without the speaking signal is a typed line.
      write: async (text) => {
        send({ type: 'say', text });
      },
      stop: () => {
        opening = '';
        current?.('interrupted');
        recording?.hush();
      },
    };

    return {
      selfId,
      speech,
      ...(recorderOptions && {
        async record(o: RecordOptions): Promise<RoomRecording> {
          if (recording) throw new Error('already recording');
          if (prepared instanceof Error) throw prepared;
          recording = await (prepared ?? (await prepareLocalRecorder(recorderOptions))).start(o);
          send({ type: 'listen', audio: true });
          return recording;
        },
      }),
      participants: () => [...people.values()],
      on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void) {
        emitter.on(event, listener);
      },
      async leave() {
        leaving = true;
        speech.stop();
        await recording?.close();
        if (!recording && prepared && !(prepared instanceof Error)) await prepared.close();
        if (ws.readyState === WebSocket.CLOSED) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            ws.terminate();
            resolve();
          }, 2000);
          ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          ws.close(1000, 'bot leaving');
        });
      },
    };
  }
}
