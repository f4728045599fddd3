// The recording store on S3: pieces under recordings/<bot>/pieces/<attempt>/<seq>.webm (the recorder's start in
// their metadata), the assembled file at recordings/<bot>/recording.webm (its duration in its metadata), and a
// presigned GET for the customer's download. The bucket encrypts with the stack's KMS key by default, so no call
// here names a key. One prefix per bot, so the deletion of a meeting's data lists and deletes that prefix.
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import type {
  PieceKey,
  RecordingFile,
  RecordingLink,
  RecordingStore,
  StoredPiece,
} from '../../ports/recordings';
import { recordingContentType } from '../../ports/recordings';
import { NodeSha256 } from './sha256';

const prefix = (botId: string) => `recordings/${botId}/`;
const fileKey = (botId: string) => `${prefix(botId)}recording.webm`;
const piecePattern = /pieces\/(\d+)\/(\d+)\.webm$/;

export class S3RecordingStore implements RecordingStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

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
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: `${prefix(botId)}${under}`,
          ContinuationToken: token,
        }),
      );
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  async listPieces(botId: string): Promise<StoredPiece[]> {
    const pieces: StoredPiece[] = [];
    for (const key of await this.keys(botId, 'pieces/')) {
      const m = piecePattern.exec(key);
      if (!m) continue;
      const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!object.Body) continue;
      pieces.push({
        attempt: Number(m[1]),
        seq: Number(m[2]),
        startedAtMs: Number(object.Metadata?.['started-at-ms'] ?? 0),
        bytes: await object.Body.transformToByteArray(),
      });
    }
    return pieces.sort((a, b) => a.attempt - b.attempt || a.seq - b.seq);
  }

  async putFile(botId: string, bytes: Uint8Array, file: RecordingFile): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: fileKey(botId),
        Body: bytes,
        ContentType: file.contentType,
        ContentDisposition: `attachment; filename="recording-${botId}.webm"`,
        Metadata: { 'duration-seconds': String(file.durationSeconds) },
      }),
    );
  }

  async describeFile(botId: string): Promise<RecordingFile | undefined> {
    try {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: fileKey(botId) }));
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

  /** A SigV4 query-signed GET (what @aws-sdk/s3-request-presigner does), signed with the caller's credentials. */
  async link(botId: string, ttlSeconds: number, now: Date): Promise<RecordingLink> {
    const endpoint = await this.objectUrl(botId);
    const signer = new SignatureV4({
      service: 's3',
      region: await this.s3.config.region(),
      credentials: this.s3.config.credentials,
      sha256: NodeSha256,
      uriEscapePath: false,
    });
    const signed = await signer.presign(
      {
        method: 'GET',
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: endpoint.port ? Number(endpoint.port) : undefined,
        path: endpoint.pathname,
        query: {},
        headers: { host: endpoint.host },
      },
      { expiresIn: ttlSeconds, signingDate: now },
    );
    const url = new URL(endpoint.toString());
    for (const [k, v] of Object.entries(signed.query ?? {}))
      if (typeof v === 'string') url.searchParams.set(k, v);
    return { url: url.toString(), expiresAt: new Date(now.getTime() + ttlSeconds * 1000) };
  }

  private async objectUrl(botId: string): Promise<URL> {
    const key = fileKey(botId)
      .split('/')
      .map((p) => encodeURIComponent(p))
      .join('/');
    const custom = this.s3.config.endpoint ? await this.s3.config.endpoint() : undefined;
    if (custom) {
      const port = custom.port ? `:${custom.port}` : '';
      return new URL(
        `${custom.protocol}//${custom.hostname}${port}${custom.path.replace(/\/$/, '')}/${this.bucket}/${key}`,
      );
    }
    const region = await this.s3.config.region();
    return new URL(`https://${this.bucket}.s3.${region}.amazonaws.com/${key}`);
  }

  async deleteFile(botId: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: fileKey(botId) }));
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
