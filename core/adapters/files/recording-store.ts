// The recording store on local files (the local stack: DATA_DIR/recordings): one folder per session, its pieces
// named by task, number and recorder start, the assembled file beside its description. Download links point at the
// local stack's /recordings route, signed with an HMAC so a link expires like an S3 presigned one. The assembled file
// is written through a file stream to a temporary name and renamed when complete.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  chunksOf,
  type ListedPiece,
  type PieceKey,
  type RecordingBody,
  type RecordingFile,
  type RecordingLink,
  type RecordingStore,
} from '../../ports/recordings';

const piecePattern = /^a(\d+)-s(\d+)-t(\d+)\.webm$/;
/** Bot ids are UUIDs; anything else never becomes a path. */
const safeId = /^[0-9a-f-]{36}$/i;

export class FileRecordingStore implements RecordingStore {
  constructor(
    private readonly dir: string,
    private readonly link_: { baseUrl: () => string; key: string },
  ) {}

  private folder(botId: string): string {
    if (!safeId.test(botId)) throw new Error('recording store: not a bot id');
    return join(this.dir, botId);
  }

  /** The assembled file's path (the local stack serves it). */
  filePath(botId: string): string {
    return join(this.folder(botId), 'recording.webm');
  }

  async putPiece(botId: string, key: PieceKey, startedAtMs: number, bytes: Uint8Array): Promise<void> {
    const folder = join(this.folder(botId), 'pieces');
    await mkdir(folder, { recursive: true });
    await writeAtomically(
      join(folder, `a${key.attempt}-s${key.seq}-t${Math.round(startedAtMs)}.webm`),
      bytes,
    );
  }

  async listPieces(botId: string): Promise<ListedPiece[]> {
    const folder = join(this.folder(botId), 'pieces');
    const names = await readdir(folder).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [] as string[];
      throw e;
    });
    const pieces: ListedPiece[] = [];
    for (const name of names) {
      const m = piecePattern.exec(name);
      if (!m) continue;
      const key = { attempt: Number(m[1]), seq: Number(m[2]) };
      const startedAtMs = Number(m[3]);
      pieces.push({
        ...key,
        read: async () => ({
          ...key,
          startedAtMs,
          bytes: new Uint8Array(await readFile(join(folder, name))),
        }),
      });
    }
    return pieces.sort((a, b) => a.attempt - b.attempt || a.seq - b.seq);
  }

  async putFile(botId: string, body: RecordingBody, file: RecordingFile): Promise<void> {
    await mkdir(this.folder(botId), { recursive: true });
    await writeAtomically(this.filePath(botId), body);
    await writeAtomically(join(this.folder(botId), 'recording.json'), Buffer.from(JSON.stringify(file)));
  }

  async describeFile(botId: string): Promise<RecordingFile | undefined> {
    try {
      return JSON.parse(await readFile(join(this.folder(botId), 'recording.json'), 'utf8')) as RecordingFile;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async link(botId: string, ttlSeconds: number, now: Date): Promise<RecordingLink> {
    const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
    const signature = signLink(this.link_.key, botId, expires);
    return {
      url: `${this.link_.baseUrl()}/recordings/${botId}.webm?expires=${expires}&signature=${signature}`,
      expiresAt: new Date(expires * 1000),
    };
  }

  async deleteFile(botId: string): Promise<void> {
    await rm(this.filePath(botId), { force: true });
    await rm(join(this.folder(botId), 'recording.json'), { force: true });
  }

  async deleteAll(botId: string): Promise<void> {
    await rm(this.folder(botId), { recursive: true, force: true });
  }
}

/** Writes through a file stream to a name of its own (a redelivered assembly may write beside one still running). */
async function writeAtomically(path: string, body: RecordingBody): Promise<void> {
  const tmp = `${path}.${randomUUID()}.tmp`;
  try {
    await pipeline(Readable.from(chunksOf(body)), createWriteStream(tmp));
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
}

function signLink(key: string, botId: string, expires: number): string {
  return createHmac('sha256', key).update(`${botId}:${expires}`).digest('base64url');
}

/** Whether a /recordings link is genuine and unexpired (the local stack's check before serving the file). */
export function verifyLink(
  key: string,
  botId: string,
  expires: string | null,
  signature: string | null,
  now: Date,
) {
  const at = Number(expires);
  if (!key || !signature || !Number.isInteger(at) || at * 1000 < now.getTime()) return false;
  const want = Buffer.from(signLink(key, botId, at));
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
