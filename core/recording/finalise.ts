// The results stage's part of a recording: the pieces every task of the session uploaded become one file, stored
// beside them; what it is (length, size, gaps) goes on the session when it completes.
import type { RecordingFileInfo } from '../bots/session';
import type { Logger } from '../log';
import { type RecordingStore, recordingContentType } from '../ports/recordings';
import { assembleRecording, type RecorderStream, WebmFormatError } from './webm';

export type Finalised = { file: RecordingFileInfo } | { error: string };

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
  const streams: RecorderStream[] = [];
  for (const attempt of [...new Set(pieces.map((p) => p.attempt))]) {
    const own = pieces.filter((p) => p.attempt === attempt);
    const contiguous = own.filter((p, i) => p.seq === i);
    if (contiguous.length < own.length)
      log.warn('a recording piece is missing', { attempt, seq: contiguous.length });
    if (contiguous.length === 0) continue;
    const bytes = new Uint8Array(contiguous.reduce((n, p) => n + p.bytes.length, 0));
    let at = 0;
    for (const p of contiguous) {
      bytes.set(p.bytes, at);
      at += p.bytes.length;
    }
    streams.push({ startedAtMs: contiguous[0]?.startedAtMs ?? 0, bytes });
  }
  try {
    const assembled = assembleRecording(streams);
    const file: RecordingFileInfo = {
      durationSeconds: assembled.durationSeconds,
      sizeBytes: assembled.bytes.length,
      gaps: assembled.gaps,
    };
    await store.putFile(botId, assembled.bytes, {
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
