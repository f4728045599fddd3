// Port: a session's audio recording, stored as the pieces its bots upload while the meeting runs and, once the
// session ended, as the one file assembled from them. The deletion of a meeting's data removes both (deleteAll).

/** Where a piece came from: the task that recorded it (0 the first bot, n the n-th replacement) and its number. */
export interface PieceKey {
  attempt: number;
  /** 0 the first piece of that task's recorder (the one that carries the WebM header), then 1, 2, … */
  seq: number;
}

/** One stored piece, with the time its task's recorder started (milliseconds since the epoch). */
export interface StoredPiece extends PieceKey {
  startedAtMs: number;
  bytes: Uint8Array;
}

/**
 * A stored piece as a listing names it: its bytes are read only when asked for, so a 4-hour meeting's ~1,440 pieces
 * are never all in memory at once.
 */
export interface ListedPiece extends PieceKey {
  read(): Promise<StoredPiece>;
}

/** What the assembled file is, as the status view and the recording endpoint describe it. */
export interface RecordingFile {
  contentType: string;
  sizeBytes: number;
  durationSeconds: number;
}

/** A time-limited address the customer downloads the file from. */
export interface RecordingLink {
  url: string;
  expiresAt: Date;
}

/** The file's bytes at once, or (the assembly) its chunks in order, written as they come. */
export type RecordingBody = Uint8Array | AsyncIterable<Uint8Array>;

export interface RecordingStore {
  /**
   * Saves one piece; a retried upload of the same key overwrites itself. `startedAtMs` is the wall-clock start of
   * that task's recorder, the same on every piece of the task, so the assembly can place a replacement's audio
   * where it happened.
   */
  putPiece(botId: string, key: PieceKey, startedAtMs: number, bytes: Uint8Array): Promise<void>;
  /** Every stored piece of the session, ordered by attempt, then seq; none of their bytes read yet. */
  listPieces(botId: string): Promise<ListedPiece[]>;
  /**
   * Saves the assembled file (overwriting an earlier assembly), streamed: a chunked body is written as it comes, never
   * held whole, and the file appears only once complete (a failed write leaves the earlier file, or none).
   */
  putFile(botId: string, body: RecordingBody, file: RecordingFile): Promise<void>;
  /** The assembled file's description, or undefined before it is assembled. */
  describeFile(botId: string): Promise<RecordingFile | undefined>;
  /**
   * A download address valid for `ttlSeconds` (at most an hour), or less where the signature cannot last that long
   * (temporary credentials that expire sooner): `expiresAt` is when it really stops working.
   */
  link(botId: string, ttlSeconds: number, now: Date): Promise<RecordingLink>;
  /**
   * Removes the assembled file only: what its assembler takes back when the session's data was deleted while it was
   * writing it (the pieces are the deletion's). Idempotent.
   */
  deleteFile(botId: string): Promise<void>;
  /** Removes every piece and the assembled file of the session; idempotent (nothing stored is not an error). */
  deleteAll(botId: string): Promise<void>;
}

/** The format of every recording (docs/recording.md): Opus in WebM, mono. */
export const recordingContentType = 'audio/webm';

/** A body as chunks in order (a whole body is one chunk). */
export async function* chunksOf(body: RecordingBody): AsyncIterable<Uint8Array> {
  if (body instanceof Uint8Array) yield body;
  else yield* body;
}
