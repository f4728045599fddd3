// The bot's recording uploader when the bot stops waiting for it (its leave timeout): no piece may be stored after the
// bot hands the session over, since from then on the session's data may be deleted and a later piece would outlive
// the deletion.
import { describe, expect, it } from 'vitest';
import { startRecording } from '../../bot-task/recording-uploader';
import type { SessionWarning } from '../../core/bots/session';
import { createLogger } from '../../core/log';
import type { PieceKey, RecordingStore } from '../../core/ports/recordings';
import type { RecordOptions, RoomConnection } from '../../core/ports/room-provider';

/** A promise settled from outside. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A room whose recorder hands over the pieces the test gives it. */
function recordingRoom() {
  let onPiece: RecordOptions['onPiece'] = () => {};
  const room = {
    record: async (o: RecordOptions) => {
      onPiece = o.onPiece;
      return { startedAtMs: 1_000, stop: async () => {} };
    },
  } as unknown as RoomConnection;
  return { room, piece: (seq: number) => onPiece({ seq, bytes: Uint8Array.of(seq) }) };
}

/** A store whose every putPiece waits for the test to settle it. */
function heldStore() {
  const calls: { key: PieceKey; done: ReturnType<typeof deferred<void>> }[] = [];
  const called: ((n: number) => void)[] = [];
  const store = {
    putPiece: (_botId: string, key: PieceKey) => {
      const done = deferred();
      calls.push({ key, done });
      for (const f of called.splice(0)) f(calls.length);
      return done.promise;
    },
  } as unknown as RecordingStore;
  /** Resolves once `n` calls were made. */
  const untilCalls = (n: number) =>
    calls.length >= n ? Promise.resolve() : new Promise<void>((r) => called.push((m) => m >= n && r()));
  return { store, calls, untilCalls };
}

async function uploader(store: RecordingStore, room: RoomConnection) {
  const warnings: SessionWarning[] = [];
  const warned = deferred();
  const started = await startRecording({
    room,
    store,
    botId: '33333333-3333-4333-8333-333333333333',
    attempt: 0,
    pieceMs: 1000,
    log: createLogger('silent'),
    onWarning: (w) => {
      warnings.push(w);
      warned.resolve();
    },
    retryMs: 1,
  });
  return { recording: started!, warnings, warned: warned.promise };
}

describe('recording uploader, abandoned by a bot that stopped waiting', () => {
  it('settles only once the upload under way has, and starts none after it', async () => {
    const { room, piece } = recordingRoom();
    const { store, calls, untilCalls } = heldStore();
    const { recording, warnings, warned } = await uploader(store, room);
    piece(0);
    piece(1);
    await untilCalls(1);

    let settled = false;
    const abandoned = recording.abandon().then(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    calls[0]!.done.resolve();
    await abandoned;
    // Piece 1 was never sent: it is lost, loudly.
    await warned;
    expect(calls.map((c) => c.key.seq)).toEqual([0]);
    expect(warnings).toEqual([{ code: 'recording_failed', message: expect.stringContaining('cut short') }]);
    piece(2);
    await new Promise((r) => setImmediate(r));
    expect(calls).toHaveLength(1);
  });

  it('does not retry a failed upload once abandoned', async () => {
    const { room, piece } = recordingRoom();
    const { store, calls, untilCalls } = heldStore();
    const { recording, warned } = await uploader(store, room);
    piece(0);
    await untilCalls(1);
    const abandoned = recording.abandon();
    calls[0]!.done.reject(new Error('connection reset'));
    await abandoned;
    await warned;
    expect(calls).toHaveLength(1);
  });

  it('without abandon, a failed upload is retried', async () => {
    const { room, piece } = recordingRoom();
    const { store, calls, untilCalls } = heldStore();
    await uploader(store, room);
    piece(0);
    await untilCalls(1);
    calls[0]!.done.reject(new Error('connection reset'));
    await untilCalls(2);
    calls[1]!.done.resolve();
    expect(calls.map((c) => c.key.seq)).toEqual([0, 0]);
  });
});
