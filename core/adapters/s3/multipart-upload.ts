// One S3 object written from a stream of chunks without holding it whole: a multipart upload of fixed-size parts
// (S3's least is 5 MiB, except the last), one part uploading while the next fills, aborted when anything fails so no
// parts are left billed. A body that fits in one part is a single PutObject. (@aws-sdk/lib-storage's Upload does the
// same with more machinery and a dependency pinned to the client's version; this is the part of it we need.)
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { chunksOf, type RecordingBody } from '../../ports/recordings';

/** S3's least size of a part that is not the last. */
export const minPartBytes = 5 * 1024 * 1024;

/** What an object is, apart from its body: the PutObject/CreateMultipartUpload fields we use. */
export type ObjectHead = Pick<
  PutObjectCommandInput,
  'Bucket' | 'Key' | 'ContentType' | 'ContentDisposition' | 'Metadata'
>;

/** Uploads `body` to `head.Key`, holding at most two parts of `partBytes` at a time. */
export async function uploadStreamed(
  s3: S3Client,
  head: ObjectHead,
  body: RecordingBody,
  partBytes: number,
): Promise<void> {
  if (partBytes < minPartBytes)
    throw new Error(`a multipart upload's parts are at least ${minPartBytes} bytes`);
  let part = new Uint8Array(partBytes);
  let filled = 0;
  let upload: { id: string; parts: CompletedPart[]; pending?: Promise<void> } | undefined;
  try {
    for await (const chunk of chunksOf(body)) {
      let at = 0;
      while (at < chunk.length) {
        const n = Math.min(chunk.length - at, partBytes - filled);
        part.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled < partBytes) continue;
        // A full part, and more may follow: it goes as one part of a multipart upload.
        upload ??= { id: await create(s3, head), parts: [] };
        await upload.pending;
        upload.pending = sendPart(s3, head, upload, part);
        // Awaited before the next part or the end; this only keeps a failure meanwhile from being an unhandled
        // rejection (which would end the process) while the next part fills.
        upload.pending.catch(() => {});
        part = new Uint8Array(partBytes);
        filled = 0;
      }
    }
    if (!upload) {
      await s3.send(new PutObjectCommand({ ...head, Body: part.subarray(0, filled) }));
      return;
    }
    await upload.pending;
    if (filled > 0) await sendPart(s3, head, upload, part.subarray(0, filled));
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: head.Bucket,
        Key: head.Key,
        UploadId: upload.id,
        MultipartUpload: { Parts: upload.parts },
      }),
    );
  } catch (err) {
    if (upload) {
      await upload.pending?.catch(() => {});
      await s3
        .send(new AbortMultipartUploadCommand({ Bucket: head.Bucket, Key: head.Key, UploadId: upload.id }))
        .catch(() => {}); // the bucket's lifecycle rule removes what an abort could not
    }
    throw err;
  }
}

async function create(s3: S3Client, head: ObjectHead): Promise<string> {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand(head));
  if (!UploadId) throw new Error('S3 started a multipart upload without an id');
  return UploadId;
}

async function sendPart(
  s3: S3Client,
  head: ObjectHead,
  upload: { id: string; parts: CompletedPart[] },
  bytes: Uint8Array,
): Promise<void> {
  const PartNumber = upload.parts.length + 1;
  // Numbered when sent, in order: the part before has been sent (awaited) by then.
  upload.parts.push({ PartNumber });
  const { ETag } = await s3.send(
    new UploadPartCommand({
      Bucket: head.Bucket,
      Key: head.Key,
      UploadId: upload.id,
      PartNumber,
      Body: bytes,
      ContentLength: bytes.length,
    }),
  );
  const entry = upload.parts[PartNumber - 1];
  if (entry) entry.ETag = ETag;
}
