// The S3 recording store against moto's S3: pieces with their recorder start in metadata, listed in order across
// tasks and pages, the assembled file described by HeadObject, a presigned GET that downloads it, deleteFile removing
// the file alone, and deleteAll removing every object of one bot (and nothing of another), idempotently. (The
// deployed bucket's SSE-KMS is checked on the template: test/infra/stack.test.ts.)
import { execFileSync } from 'node:child_process';
import { CreateBucketCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../core/adapters/aws-clients';
import { S3RecordingStore } from '../../core/adapters/s3/recording-store';
import { type Moto, motoMissing, motoRegion, skipReason, startMoto } from './support/moto';

const skip = skipReason([motoMissing()]);
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
    const pieces = await store.listPieces(botA);
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
});
