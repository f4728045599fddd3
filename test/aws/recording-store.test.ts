// The S3 recording store against moto's S3: pieces with their recorder start in metadata, listed in order across
// tasks and pages, the assembled file described by HeadObject, a presigned GET that downloads it (never outliving the
// credentials that signed it), deleteFile removing the file alone, and deleteAll removing every object of one bot
// (and nothing of another), idempotently. A 4-hour recording's 1,440 pieces are assembled into one file by a
// multipart upload in bounded memory. (The deployed bucket's SSE-KMS is checked on the template:
// test/infra/stack.test.ts.)
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../core/adapters/aws-clients';
import { minPartBytes } from '../../core/adapters/s3/multipart-upload';
import { S3RecordingStore } from '../../core/adapters/s3/recording-store';
import { createLogger } from '../../core/log';
import { finaliseRecording } from '../../core/recording/finalise';
import { peakMemoryGrowth } from '../support/peak-memory';
import { requires, skipReason } from '../support/requirements';
import { longRecordingPieces, webmFileDuration, webmLoudnessAt } from '../support/webm-audio';
import { type Moto, motoRegion, startMoto } from './support/moto';

const skip = skipReason(requires.motoServer());
const bucket = 'meeting-bot-recordings-test';
const botA = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const botB = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

describe.skipIf(skip)('S3RecordingStore against moto', () => {
  let moto: Moto;
  let s3: S3Client;
  let store: S3RecordingStore;

  beforeAll(async () => {
    moto = await startMoto();
    s3 = s3Client({ AWS_REGION: motoRegion, S3_ENDPOINT: moto.endpoint });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    store = new S3RecordingStore(s3, bucket);
  }, 60_000);
  afterAll(async () => {
    s3?.destroy();
    await moto?.stop();
  });

  it('keeps pieces in order across tasks, with each recorder start', async () => {
    // Put out of order, two tasks, a number past 9 (a listing sorts keys as text).
    for (const [attempt, seq] of [
      [1, 0],
      [0, 10],
      [0, 2],
      [0, 0],
      [0, 1],
    ] as const) {
      await store.putPiece(
        botA,
        { attempt, seq },
        attempt === 0 ? 1_000 : 9_000,
        Uint8Array.of(attempt, seq),
      );
    }
    const listed = await store.listPieces(botA);
    // Listed without their bytes; each read when asked for.
    const pieces = await Promise.all(listed.map((p) => p.read()));
    expect(pieces.map((p) => [p.attempt, p.seq, p.startedAtMs, [...p.bytes]])).toEqual([
      [0, 0, 1_000, [0, 0]],
      [0, 1, 1_000, [0, 1]],
      [0, 2, 1_000, [0, 2]],
      [0, 10, 1_000, [0, 10]],
      [1, 0, 9_000, [1, 0]],
    ]);
    expect(await store.listPieces(botB)).toEqual([]);
  });

  it('stores the file, describes it, and a presigned link valid an hour downloads it', async () => {
    expect(await store.describeFile(botA)).toBeUndefined();
    const bytes = new Uint8Array(2048).map((_, i) => i % 251);
    await store.putFile(botA, bytes, {
      contentType: 'audio/webm',
      sizeBytes: bytes.length,
      durationSeconds: 12.5,
    });
    expect(await store.describeFile(botA)).toEqual({
      contentType: 'audio/webm',
      sizeBytes: bytes.length,
      durationSeconds: 12.5,
    });
    const now = new Date();
    const link = await store.link(botA, 3600, now);
    expect(link.expiresAt.getTime() - now.getTime()).toBe(3_600_000);
    const url = new URL(link.url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.pathname).toBe(`/${bucket}/recordings/${botA}/recording.webm`);
    // Fetched as the customer would: no credentials, just the address.
    const got = await fetch(link.url);
    expect(got.status).toBe(200);
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes);
    // curl too (another HTTP client, the address as text).
    expect(execFileSync('curl', ['-sf', link.url]).length).toBe(bytes.length);
  });

  it('deleteFile removes the assembled file only (the pieces stay), idempotently', async () => {
    const botC = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
    await store.putPiece(botC, { attempt: 0, seq: 0 }, 5, Uint8Array.of(1));
    await store.putFile(botC, Uint8Array.of(1, 2), {
      contentType: 'audio/webm',
      sizeBytes: 2,
      durationSeconds: 1,
    });
    await store.deleteFile(botC);
    await store.deleteFile(botC);
    expect(await store.describeFile(botC)).toBeUndefined();
    expect((await store.listPieces(botC)).map((p) => [p.attempt, p.seq])).toEqual([[0, 0]]);
    await store.deleteAll(botC);
  });

  it('deleteAll removes every object of one bot, nothing of another, and is idempotent', async () => {
    await store.putPiece(botB, { attempt: 0, seq: 0 }, 5, Uint8Array.of(9));
    await store.deleteAll(botA);
    const left = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect((left.Contents ?? []).map((o) => o.Key)).toEqual([`recordings/${botB}/pieces/0/0.webm`]);
    expect(await store.describeFile(botA)).toBeUndefined();
    await store.deleteAll(botA);
    await store.deleteAll('cccccccc-cccc-4ccc-8ccc-cccccccccccc');
  });
  it('a link signed with credentials that expire before the TTL lasts as long as they do, and says so', async () => {
    const now = new Date();
    const expiration = new Date(now.getTime() + 10 * 60_000);
    const temporary = new S3Client({
      region: motoRegion,
      endpoint: moto.endpoint,
      forcePathStyle: true,
      credentials: async () => ({
        accessKeyId: 'ASIATEMPORARY',
        secretAccessKey: 'temporary',
        sessionToken: 'session',
        expiration,
      }),
    });
    try {
      const short = new S3RecordingStore(temporary, bucket);
      await short.putFile(botA, Uint8Array.of(1, 2, 3), {
        contentType: 'audio/webm',
        sizeBytes: 3,
        durationSeconds: 1,
      });
      const link = await short.link(botA, 3600, now);
      // Ten minutes, not the hour asked for: S3 refuses the signature once its credentials expired.
      expect(link.expiresAt.getTime()).toBe(now.getTime() + 600_000);
      const url = new URL(link.url);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
      expect(url.searchParams.get('X-Amz-Security-Token')).toBe('session');
      expect((await fetch(link.url)).status).toBe(200);
      // Credentials with longer to live than the TTL leave it alone.
      const later = new Date(now.getTime() - 3 * 3600_000);
      expect((await short.link(botA, 3600, later)).expiresAt.getTime()).toBe(later.getTime() + 3_600_000);
    } finally {
      temporary.destroy();
    }
  });

  // moto answers a request in tens of milliseconds: 1,440 uploads and two readings of them take minutes here.
  it('assembles a 4-hour recording (1,440 pieces) in a multipart upload, holding a fraction of the file', {
    timeout: 900_000,
  }, async () => {
    const long = new S3RecordingStore(s3, bucket, minPartBytes);
    const botId = randomUUID();
    const startedAtMs = Date.now() - 4 * 3600_000;
    let seq = 0;
    let stored = 0;
    // Eight uploads at a time, as the pieces are made.
    const uploading = new Set<Promise<void>>();
    for (const bytes of longRecordingPieces(1_440)) {
      const put = long.putPiece(botId, { attempt: 0, seq: seq++ }, startedAtMs, bytes);
      uploading.add(put);
      void put.finally(() => uploading.delete(put));
      stored += bytes.length;
      if (uploading.size >= 8) await Promise.race(uploading);
    }
    await Promise.all(uploading);
    const started = performance.now();
    const { result: outcome, peakBytes } = await peakMemoryGrowth(() =>
      finaliseRecording(long, botId, createLogger('silent')),
    );
    const seconds = (performance.now() - started) / 1000;
    if (!('file' in outcome)) throw new Error(outcome.error);
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key: `recordings/${botId}/recording.webm` }),
    );
    const parts = Number(head.ETag?.match(/-(\d+)"?$/)?.[1]);
    console.info(
      `[recording] 4 h through S3 (moto): 1440 pieces, ${(stored / 1e6).toFixed(1)} MB stored, a ` +
        `${(outcome.file.sizeBytes / 1e6).toFixed(1)} MB file in ${parts} parts in ${seconds.toFixed(1)} s; ` +
        `most memory held at once +${(peakBytes / 1e6).toFixed(1)} MB`,
    );
    expect(head.ContentLength).toBe(outcome.file.sizeBytes);
    // A multipart object's ETag ends in its number of parts: 5 MiB parts, the last one smaller.
    expect(parts).toBe(Math.ceil(outcome.file.sizeBytes / minPartBytes));
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? []).toEqual([]);
    expect(await long.describeFile(botId)).toEqual({
      contentType: 'audio/webm',
      sizeBytes: outcome.file.sizeBytes,
      durationSeconds: outcome.file.durationSeconds,
    });
    expect(Math.abs(outcome.file.durationSeconds - 4 * 3600)).toBeLessThan(1);
    // Downloaded as the customer would: plays for 4 hours, and its end plays after a seek.
    const dir = mkdtempSync(join(tmpdir(), 'recording-s3-'));
    try {
      const file = join(dir, 'recording.webm');
      const got = await fetch((await long.link(botId, 600, new Date())).url);
      writeFileSync(file, Buffer.from(await got.arrayBuffer()));
      expect(Math.abs(webmFileDuration(file) - outcome.file.durationSeconds)).toBeLessThan(0.5);
      expect(webmLoudnessAt(file, 4 * 3600 - 5, 4)).toBeGreaterThan(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Two parts of 5 MiB at most, a few pieces and the cue index; the file itself would be all of it.
    expect(peakBytes).toBeLessThan(outcome.file.sizeBytes / 3);
    await long.deleteAll(botId);
  });

  it('a failed assembly aborts its multipart upload and leaves no file', async () => {
    const botId = randomUUID();
    const long = new S3RecordingStore(s3, bucket, minPartBytes);
    async function* failing() {
      yield new Uint8Array(minPartBytes + 1);
      throw new Error('a piece could not be read');
    }
    await expect(
      long.putFile(botId, failing(), { contentType: 'audio/webm', sizeBytes: 0, durationSeconds: 0 }),
    ).rejects.toThrow('a piece could not be read');
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? []).toEqual([]);
    expect(await long.describeFile(botId)).toBeUndefined();
  });
});
