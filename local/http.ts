// The local stack's own pages and endpoints (rooms, mail, docs, recordings): their answers and error bodies.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers with `body`, never cached unless `headers` say otherwise; to a HEAD request, the headers alone. */
export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): true {
  res.writeHead(status, {
    'content-type': type,
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
  return true;
}

export const sendJson = (res: ServerResponse, status: number, body: unknown): true =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
/** An error answer, `{ error, detail, message }` as the API's own. */
export const sendError = (
  res: ServerResponse,
  status: number,
  error: string,
  detail: string,
  message = detail,
) => sendJson(res, status, { error, detail, message });

/** A request's JSON body; undefined when it is not JSON or over 256 KiB. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 256 * 1024) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
