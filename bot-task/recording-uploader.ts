// The bot's side of a recording: each piece the room's recorder hands over is uploaded at once, in order, retried, so
// a lost task loses at most the piece it was cutting (core/recording/finalise.ts assembles them).

import type { SessionWarning } from '../core/bots/session';
import type { Logger } from '../core/log';
import type { RecordingStore } from '../core/ports/recordings';
import type { RoomConnection, RoomRecording } from '../core/ports/room-provider';
import { retry } from '../core/retry';

export interface RecordingUploader {
  /** Stops the recorder and waits for every piece to be uploaded (or given up). */
  finish(): Promise<void>;
  /**
   * The bot stops waiting for finish(): no upload starts from now on (a piece not yet stored is lost, and the session
   * warned), and this resolves once the one under way settled.
   * The session is handed over only after it: its data may then be deleted, and a piece stored later would outlive it.
   */
  abandon(): Promise<void>;
}

const attempts = 4;

/** Starts recording the room: undefined, with a warning on the session (never a failed session), when it cannot. */
export async function startRecording(o: {
  room: RoomConnection;
  store: RecordingStore | undefined;
  botId: string;
  attempt: number;
  pieceMs: number;
  log: Logger;
  onWarning: (w: SessionWarning) => void;
  /** Backoff before the second upload attempt of a piece, doubling after (tests shorten it). */
  retryMs?: number;
}): Promise<RecordingUploader | undefined> {
  const { room, store, botId, attempt, log } = o;
  const warn = (message: string) => o.onWarning({ code: 'recording_failed', message });
  if (!store) {
    log.error('this session records, but the bot has no recording store');
    warn('The bot had nowhere to store the recording.');
    return undefined;
  }
  if (!room.record) {
    log.error('the room provider cannot record; the session goes on without a recording');
    warn('This room provider cannot record audio; the session has no recording.');
    return undefined;
  }
  let uploads: Promise<void> = Promise.resolve();
  let lost = 0;
  const abandoned = new AbortController();
  /** The store call under way, settled or not (abandon waits for it). */
  let putting: Promise<unknown> = Promise.resolve();
  let recording: RoomRecording | undefined;
  const pending: { seq: number; bytes: Uint8Array }[] = [];
  const giveUp = (seq: number, reason: string) => {
    lost++;
    log.error('a recording piece could not be uploaded; the recording ends before it', { seq, err: reason });
    if (lost === 1)
      warn(`A piece of the recording could not be stored (${reason}); the recording is cut short.`);
  };
  const upload = (piece: { seq: number; bytes: Uint8Array }, startedAtMs: number) =>
    retry(
      () => {
        const put = store.putPiece(botId, { attempt, seq: piece.seq }, startedAtMs, piece.bytes);
        putting = put.catch(() => {});
        return put;
      },
      { attempts, baseMs: o.retryMs ?? 500, signal: abandoned.signal },
    ).catch((err: unknown) =>
      giveUp(
        piece.seq,
        abandoned.signal.aborted ? 'the bot left before it was uploaded' : (err as Error).message,
      ),
    );
  const enqueue = (piece: { seq: number; bytes: Uint8Array }) => {
    if (!recording) {
      pending.push(piece);
      return;
    }
    const startedAtMs = recording.startedAtMs;
    uploads = uploads.then(() => upload(piece, startedAtMs));
  };
  try {
    recording = await room.record({ pieceMs: o.pieceMs, onPiece: enqueue, onWarning: warn });
  } catch (err) {
    log.error('the recorder could not start; the session goes on without a recording', { err });
    warn(`The recorder could not start (${(err as Error).message}); the session has no recording.`);
    return undefined;
  }
  for (const piece of pending.splice(0)) enqueue(piece);
  log.info('recording', { piece_ms: o.pieceMs });
  const started = recording;
  return {
    async finish() {
      await started.stop().catch((err) => log.warn('the recorder did not stop cleanly', { err }));
      await uploads;
    },
    async abandon() {
      abandoned.abort();
      await putting;
    },
  };
}
