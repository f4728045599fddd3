// The results stage's part of a recording: the pieces every task of the session uploaded become one file, stored
// beside them, streamed from the pieces to the store (a 4-hour meeting's ~1,440 pieces are never in memory at once);
// what it is (length, size, gaps) goes on the session.
import type { RecordingFileInfo } from '../bots/session';
import type { Logger } from '../log';
import {
  type ListedPiece,
  type RecordingStore,
  recordingContentType,
  type StoredPiece,
} from '../ports/recordings';
import { planRecording, type RecorderSource, WebmFormatError } from './webm';

export type Finalised = { file: RecordingFileInfo } | { error: string };

/**
 * Pieces read at once, ahead of the one being assembled: S3 answers each GET in tens of milliseconds, so reading one
 * after another would spend a minute on a 4-hour meeting; 8 × ~40 KB is nothing to hold.
 */
export const piecesReadAhead = 8;

/** Assembles the session's pieces into its recording; a session with no usable audio is an error, never a throw. */
export async function finaliseRecording(
  store: RecordingStore,
  botId: string,
  log: Logger,
): Promise<Finalised> {
  const pieces = await store.listPieces(botId);
  if (pieces.length === 0)
    return { error: 'The bot recorded no audio (no piece of the recording was uploaded).' };
  // Each task's pieces, in order, are one recorder's stream; a missing middle piece (a lost upload) would break the
  // stream after it, so a task's stream stops at its first hole.
  const sources: RecorderSource[] = [];
  for (const attempt of [...new Set(pieces.map((p) => p.attempt))]) {
    const own = pieces.filter((p) => p.attempt === attempt);
    const contiguous = own.filter((p, i) => p.seq === i);
    if (contiguous.length < own.length)
      log.warn('a recording piece is missing', { attempt, seq: contiguous.length });
    if (contiguous.length > 0) sources.push({ pieces: () => readInOrder(contiguous, piecesReadAhead) });
  }
  try {
    const plan = await planRecording(sources);
    const file: RecordingFileInfo = {
      durationSeconds: plan.durationSeconds,
      sizeBytes: plan.sizeBytes,
      gaps: plan.gaps,
    };
    await store.putFile(botId, plan.body(), {
      contentType: recordingContentType,
      sizeBytes: file.sizeBytes,
      durationSeconds: file.durationSeconds,
    });
    return { file };
  } catch (err) {
    if (err instanceof WebmFormatError)
      return { error: `The recording could not be assembled: ${err.message}.` };
    throw err;
  }
}

/** The pieces' contents in order, with up to `ahead` reads in flight. */
export async function* readInOrder(pieces: ListedPiece[], ahead: number): AsyncIterable<StoredPiece> {
  const pending: Promise<StoredPiece>[] = [];
  let next = 0;
  const fill = () => {
    while (next < pieces.length && pending.length < ahead) {
      const read = (pieces[next++] as ListedPiece).read();
      // Awaited below in order; this only keeps a read abandoned with the assembly from being an unhandled rejection.
      read.catch(() => {});
      pending.push(read);
    }
  };
  fill();
  while (pending.length > 0) {
    const piece = await (pending.shift() as Promise<StoredPiece>);
    fill();
    yield piece;
  }
}
