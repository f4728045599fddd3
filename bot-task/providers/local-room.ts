// RoomProvider for the local room server: joins over WebSocket and maps its events and refusals like Daily's.
import { once } from 'node:events';
import WebSocket from 'ws';
import { joinErrorTypeOf } from '../../core/bots/join-errors';
import {
  type DisconnectKind,
  type JoinOptions,
  type RecordOptions,
  type RoomConnection,
  RoomJoinError,
  type RoomParticipant,
  type RoomProvider,
  type RoomRecording,
} from '../../core/ports/room-provider';
import type { Speech, SpeechOutcome } from '../../core/ports/speech';
import { timedOut, within } from '../../core/within';
import { joinLimits } from './join-limits';
import { type LocalRecorder, type LocalRecorderOptions, prepareLocalRecorder } from './local-room-recorder';
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
  /** `speechMsPerChar`: how long the room page's voice takes per character; without `recorder` it cannot record. */
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

    // A recorder is got ready before the bot enters, so the recording starts as it is in the room; a recorder that
    // cannot be made fails the recording, not the join.
    const recorderOptions = this.recorder;
    const prepared = options.recording && recorderOptions ? prepareLocalRecorder(recorderOptions) : undefined;
    await prepared?.catch(() => {});
    const closeRecorder = () =>
      prepared?.then(
        (r) => r.close(),
        () => {},
      );
    const ws = new WebSocket(url);
    const emitter = new RoomEventHub();
    const people = new Map<string, RoomParticipant>();
    let selfId = '';
    let leaving = false;
    const disconnect = (kind: DisconnectKind, reason: string) => {
      if (!leaving) emitter.emit('disconnected', { kind, reason });
    };

    await new Promise<void>((resolve, reject) => {
      ws.once('close', () => {
        if (!selfId) void closeRecorder();
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
      // ws's default binaryType, nodebuffer: a binary message is one Buffer.
      const bytes = data as Buffer;
      const idLength = bytes[0] ?? 0;
      recording.hear(bytes.subarray(1, 1 + idLength).toString(), bytes.subarray(1 + idLength));
    });
    let current: ((outcome: SpeechOutcome) => void) | undefined;
    /** An opening clause (SayOptions.continues), said with the rest of its sentence: one line in the room. */
    let opening = '';
    const speech: Speech = {
      say: async (said, sayOptions) => {
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
          recording = await (await (prepared ?? prepareLocalRecorder(recorderOptions))).start(o);
          send({ type: 'listen', audio: true });
          return recording;
        },
      }),
      participants: () => [...people.values()],
      on: (event, listener) => emitter.on(event, listener),
      async leave() {
        leaving = true;
        speech.stop();
        await recording?.close();
        if (!recording) await closeRecorder();
        if (ws.readyState === WebSocket.CLOSED) return;
        const closed = once(ws, 'close');
        ws.close(1000, 'bot leaving');
        if ((await within(closed, 2000).catch(() => timedOut)) === timedOut) ws.terminate();
      },
    };
  }
}
