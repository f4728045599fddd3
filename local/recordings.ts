// The local stack's recording downloads: GET /recordings/<bot_id>.webm?expires=&signature= serves the assembled file
// of a session, only with a genuine, unexpired link from the recording endpoint (as an S3 presigned URL works).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FileRecordingStore, verifyLink } from '../core/adapters/files/recording-store';
import { recordingContentType } from '../core/ports/recordings';
import { sendError } from './http';

const path = /^\/recordings\/([0-9a-f-]{36})\.webm$/;

export function recordingDownloads(store: FileRecordingStore, key: string) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const m = path.exec(url.pathname);
    if (!m || req.method !== 'GET') return false;
    const botId = m[1] as string;
    const refuse = (status: number, detail: string) =>
      sendError(res, status, status === 403 ? 'forbidden' : 'not_found', detail);
    if (
      !verifyLink(key, botId, url.searchParams.get('expires'), url.searchParams.get('signature'), new Date())
    )
      return refuse(403, 'The link is not valid or has expired: ask the recording endpoint for a new one.');
    const file = store.filePath(botId);
    const info = await stat(file).catch(() => undefined);
    if (!info) return refuse(404, 'No recording.');
    res.writeHead(200, {
      'content-type': recordingContentType,
      'content-length': String(info.size),
      'content-disposition': `attachment; filename="recording-${botId}.webm"`,
      'cache-control': 'private, no-store',
    });
    createReadStream(file).pipe(res);
    return true;
  };
}
