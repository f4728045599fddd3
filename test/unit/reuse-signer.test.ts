// reuseSigner: one SigV4 signer per client instead of one per request, with nothing a request needs fresh lost.
// A real DynamoDBClient sends to a local HTTP server that keeps each request: rotated credentials must show up in the
// next request, and a clock-skew correction in the next signing date. (The signature itself is the SDK's own
// SignatureV4 with the SDK's own parameters; the aws tests send through these clients to moto.)
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reuseSigner } from '../../core/adapters/aws-clients';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let endpoint: string;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** x-amz-date (20261126T051403Z) as milliseconds. */
const signedAt = (r: Received) => {
  const d = String(r.headers['x-amz-date']);
  return Date.parse(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 11)}:${d.slice(11, 13)}:${d.slice(13)}`);
};

describe('reuseSigner', () => {
  it('builds one signer per auth scheme; each request still gets the current credentials and clock offset', async () => {
    const keys = [
      { accessKeyId: 'AKIDFIRST', secretAccessKey: 'first-secret' },
      { accessKeyId: 'AKIDSECOND', secretAccessKey: 'second-secret' },
    ];
    let current = 0;
    const client = reuseSigner(
      new DynamoDBClient({
        region: 'eu-west-1',
        endpoint,
        maxAttempts: 1,
        // Expiring within the SDK's refresh window, so it asks again on each request (as it asks the default chain
        // when a role's credentials are about to expire).
        credentials: async () => ({ ...keys[current]!, expiration: new Date(Date.now() + 1000) }),
      }),
    );
    const signerOf = (client.config as unknown as { signer: () => Promise<unknown> }).signer;
    expect(await signerOf()).toBe(await signerOf());

    const get = () =>
      client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' }, sk: { S: 'b' } } }));
    received.length = 0;
    await get();
    await get();
    current = 1;
    await get();
    // What the SDK does when a service answers that our clock is off by an hour.
    (client.config as unknown as { systemClockOffset: number }).systemClockOffset = 3600_000;
    await get();

    expect(received).toHaveLength(4);
    const used = received.map((r) => /Credential=([^/]+)/.exec(String(r.headers.authorization))![1]);
    expect(used).toEqual(['AKIDFIRST', 'AKIDFIRST', 'AKIDSECOND', 'AKIDSECOND']);
    expect(signedAt(received[3]!) - signedAt(received[2]!)).toBeGreaterThanOrEqual(3600_000 - 60_000);
    expect(signedAt(received[2]!) - signedAt(received[0]!)).toBeLessThan(60_000);
  });
});
