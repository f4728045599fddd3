// Test helper: a webhook receiver on a free port that records every attempt and verifies Standard Webhooks signatures.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** How the receiver answers; with neither, every attempt gets 200. */
export interface ReceiverAnswers {
  /** Fails the first `failFirst` attempts of every webhook-id with 503. */
  failFirst?: number;
  /** Status codes for the next attempts, whatever their webhook-id, then 200; the test may empty it to recover. */
  script?: number[];
}

/** Starts one. A 503 or 429 carries Retry-After 0, so the sender's retry is not held up. */
export async function webhookReceiver({ failFirst = 0, script = [] }: ReceiverAnswers = {}) {
  const received: ReceivedWebhook[] = [];
  const tries = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const n = (tries.get(id) ?? 0) + 1;
      tries.set(id, n);
      const status = script.shift() ?? (n <= failFirst ? 503 : 200);
      received.push({ headers: req.headers, body, status });
      res.writeHead(status, status === 503 || status === 429 ? { 'retry-after': '0' } : {});
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    /** The bodies answered 200, each checked against `secret` with the standardwebhooks package (throws if not). */
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
    delivered(secret: string): any[] {
      const hook = new Webhook(secret);
      return received
        .filter((r) => r.status === 200)
        .map((r) => hook.verify(r.body, r.headers as Record<string, string>));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
