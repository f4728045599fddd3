// A webhook subscriber on loopback: records every request and answers with the status set for its path.
import { createServer } from 'node:http';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export async function startWebhookReceiver() {
  const received: Received[] = [];
  const statusByPath = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const path = req.url ?? '/';
    received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(statusByPath.get(path) ?? 204).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    answer(path: string, status: number) {
      statusByPath.set(path, status);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
