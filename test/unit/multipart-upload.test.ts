// The streamed upload of an assembled recording, against a stand-in S3 client: parts of the configured size (the
// last smaller), numbered in order; a small body is one PutObject; a part that fails while the next one is filling
// fails the upload and aborts it, never an unhandled rejection.
import type { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { minPartBytes, uploadStreamed } from '../../core/adapters/s3/multipart-upload';

type Sent = { name: string; input: Record<string, unknown> };

/** Records each command; `failPart` makes that UploadPart fail (after a moment, as a network error would). */
function fakeS3(failPart?: number) {
  const sent: Sent[] = [];
  const s3 = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const name = command.constructor.name.replace(/Command$/, '');
      sent.push({ name, input: command.input });
      if (name === 'CreateMultipartUpload') return { UploadId: 'upload-1' };
      if (name === 'UploadPart') {
        await new Promise((r) => setTimeout(r, 5));
        if (command.input.PartNumber === failPart) throw new Error('connection reset');
        return { ETag: `"etag-${command.input.PartNumber}"` };
      }
      return {};
    },
  } as unknown as S3Client;
  return { s3, sent };
}

const head = { Bucket: 'bucket', Key: 'recordings/b/recording.webm', ContentType: 'audio/webm' };

/** `total` bytes in chunks of `chunk`, yielding to the event loop between them as a real assembly does. */
async function* body(total: number, chunk: number) {
  for (let at = 0; at < total; at += chunk) {
    await new Promise((r) => setTimeout(r, 1));
    yield new Uint8Array(Math.min(chunk, total - at)).fill(at % 251);
  }
}

describe('uploadStreamed', () => {
  it('sends parts of the part size in order, the last smaller, and completes with their ETags', async () => {
    const { s3, sent } = fakeS3();
    const total = 2 * minPartBytes + 1234;
    await uploadStreamed(s3, head, body(total, 300_000), minPartBytes);
    const parts = sent.filter((c) => c.name === 'UploadPart');
    expect(parts.map((p) => [p.input.PartNumber, (p.input.Body as Uint8Array).length])).toEqual([
      [1, minPartBytes],
      [2, minPartBytes],
      [3, 1234],
    ]);
    const complete = sent.find((c) => c.name === 'CompleteMultipartUpload');
    expect(complete?.input.MultipartUpload).toEqual({
      Parts: [1, 2, 3].map((n) => ({ PartNumber: n, ETag: `"etag-${n}"` })),
    });
    expect(sent.map((c) => c.name)).not.toContain('AbortMultipartUpload');
  });

  it('a body smaller than a part is one PutObject', async () => {
    const { s3, sent } = fakeS3();
    await uploadStreamed(s3, head, Uint8Array.of(1, 2, 3), minPartBytes);
    expect(sent.map((c) => c.name)).toEqual(['PutObject']);
    expect([...(sent[0]!.input.Body as Uint8Array)]).toEqual([1, 2, 3]);
  });

  it('a part that fails while the next fills fails the upload and aborts it', async () => {
    const { s3, sent } = fakeS3(1);
    await expect(uploadStreamed(s3, head, body(3 * minPartBytes, 64 * 1024), minPartBytes)).rejects.toThrow(
      'connection reset',
    );
    expect(sent.at(-1)).toMatchObject({ name: 'AbortMultipartUpload', input: { UploadId: 'upload-1' } });
    expect(sent.map((c) => c.name)).not.toContain('CompleteMultipartUpload');
  });

  it('refuses parts smaller than S3 takes', async () => {
    await expect(uploadStreamed(fakeS3().s3, head, Uint8Array.of(1), 1024)).rejects.toThrow(/at least/);
  });
});
