// The recording store on S3: pieces under recordings/<bot>/pieces/<attempt>/<seq>.webm (the recorder's start in
// their metadata), the assembled file at recordings/<bot>/recording.webm (its duration in its metadata), and a
// presigned GET for the customer's download. The bucket encrypts with the stack's KMS key by default, so no call
// here names a key. One prefix per bot, so the deletion of a meeting's data lists and deletes that prefix.
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type {
  ListedPiece,
  PieceKey,
  RecordingBody,
  RecordingFile,
  RecordingLink,
  RecordingStore,
} from '../../ports/recordings';
import { recordingContentType } from '../../ports/recordings';
import { uploadStreamed } from './multipart-upload';

const prefix = (botId: string) => `recordings/${botId}/`;
const fileKey = (botId: string) => `${prefix(botId)}recording.webm`;
const piecePattern = /pieces\/(\d+)\/(\d+)\.webm$/;
/** 8 MiB parts: a 4-hour recording (~56 MB) in 7, two in memory at a time. */
const defaultPartBytes = 8 * 1024 * 1024;

/**
 * How long a link signed at `now` may last: the TTL asked for, cut to the signing credentials' expiry when they have
 * one. The SDK's credential provider hands out credentials with at least 5 minutes left (it refreshes them sooner), so
 * a cut link still lasts minutes; a link is never given for less than a second.
 */
export function linkSeconds(ttlSeconds: number, now: Date, credentialsExpire?: Date): number {
  if (!credentialsExpire) return ttlSeconds;
  const left = Math.floor((credentialsExpire.getTime() - now.getTime()) / 1000);
  return Math.max(1, Math.min(ttlSeconds, left));
}

export class S3RecordingStore implements RecordingStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    /** The size of each part of a multipart upload of the assembled file (S3's least is 5 MiB). */
    private readonly partBytes = defaultPartBytes,
  ) {}

  /** The assembled file's object. */
  private file(botId: string) {
    return { Bucket: this.bucket, Key: fileKey(botId) };
  }

  async putPiece(botId: string, key: PieceKey, startedAtMs: number, bytes: Uint8Array): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: `${prefix(botId)}pieces/${key.attempt}/${key.seq}.webm`,
        Body: bytes,
        ContentType: recordingContentType,
        Metadata: { 'started-at-ms': String(Math.round(startedAtMs)) },
      }),
    );
  }

  private async keys(botId: string, under: string): Promise<string[]> {
    const keys: string[] = [];
    const pages = paginateListObjectsV2(
      { client: this.s3 },
      { Bucket: this.bucket, Prefix: `${prefix(botId)}${under}` },
    );
    for await (const page of pages) for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
    return keys;
  }

  async listPieces(botId: string): Promise<ListedPiece[]> {
    const pieces: ListedPiece[] = [];
    for (const objectKey of await this.keys(botId, 'pieces/')) {
      const m = piecePattern.exec(objectKey);
      if (!m) continue;
      const key = { attempt: Number(m[1]), seq: Number(m[2]) };
      pieces.push({
        ...key,
        read: async () => {
          const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }));
          return {
            ...key,
            startedAtMs: Number(object.Metadata?.['started-at-ms'] ?? 0),
            bytes: object.Body ? await object.Body.transformToByteArray() : new Uint8Array(),
          };
        },
      });
    }
    return pieces.sort((a, b) => a.attempt - b.attempt || a.seq - b.seq);
  }

  /** A multipart upload of the streamed body (a single PutObject when it fits in one part). */
  async putFile(botId: string, body: RecordingBody, file: RecordingFile): Promise<void> {
    await uploadStreamed(
      this.s3,
      {
        ...this.file(botId),
        ContentType: file.contentType,
        ContentDisposition: `attachment; filename="recording-${botId}.webm"`,
        Metadata: { 'duration-seconds': String(file.durationSeconds) },
      },
      body,
      this.partBytes,
    );
  }

  async describeFile(botId: string): Promise<RecordingFile | undefined> {
    try {
      const head = await this.s3.send(new HeadObjectCommand(this.file(botId)));
      return {
        contentType: head.ContentType ?? recordingContentType,
        sizeBytes: head.ContentLength ?? 0,
        durationSeconds: Number(head.Metadata?.['duration-seconds'] ?? 0),
      };
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (e as Error).name === 'NotFound') return undefined;
      throw e;
    }
  }

  /**
   * A presigned GET signed with the client's credentials. S3 refuses a presigned request once the credentials that
   * signed it expired, whatever X-Amz-Expires says: a Lambda role's session credentials may end before the hour, so
   * the link lasts no longer than they do. The credentials are read before signing from the same memoised provider
   * the presigner asks: it hands back these or, if it refreshed in between, later-expiring ones, so the cut holds.
   * In Lambda the client's X-Ray middleware sees the presigning as an S3 GetObject (a subsegment with no request
   * sent); the trace header it adds is never signed (SigV4 leaves X-Amzn-Trace-Id out), so the link needs none.
   * https://docs.aws.amazon.com/AmazonS3/latest/userguide/ShareObjectPreSignedURL.html
   */
  async link(botId: string, ttlSeconds: number, now: Date): Promise<RecordingLink> {
    const credentials = await this.s3.config.credentials();
    const expiresIn = linkSeconds(ttlSeconds, now, credentials.expiration);
    const get = new GetObjectCommand(this.file(botId));
    const url = await getSignedUrl(this.s3, get, { expiresIn, signingDate: now });
    return { url, expiresAt: new Date(now.getTime() + expiresIn * 1000) };
  }

  async deleteFile(botId: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand(this.file(botId)));
  }

  async deleteAll(botId: string): Promise<void> {
    const keys = await this.keys(botId, '');
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const out = await this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      if (out.Errors?.length) {
        throw new Error(
          `S3 refused to delete ${out.Errors.length} recording object(s): ${out.Errors[0]?.Code}`,
        );
      }
    }
  }
}
