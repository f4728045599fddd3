import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchImage, imageLimits } from '../../core/net/fetch-image';

let base: string;
const server = createServer((req, res) => {
  if (req.url === '/ok.png')
    return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([137, 80, 78, 71]));
  if (req.url === '/big.png') {
    res.writeHead(200, { 'content-type': 'image/png' });
    return res.end(Buffer.alloc(imageLimits.maxBytes + 10));
  }
  if (req.url === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
  res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

describe('tile image fetch', () => {
  const local = { allowInsecure: true };
  it('returns a data URL for an image', async () => {
    expect(await fetchImage(`${base}/ok.png`, local)).toBe('data:image/png;base64,iVBORw==');
  });
  it('refuses other content types, oversize bodies and redirects', async () => {
    await expect(fetchImage(`${base}/page.html`, local)).rejects.toThrow(/unsupported image type text\/html/);
    await expect(fetchImage(`${base}/big.png`, local)).rejects.toThrow(/over/);
    await expect(fetchImage(`${base}/redirect`, local)).rejects.toThrow(/answered 302/);
  });
  it('in production refuses http, private literals and names resolving to private addresses', async () => {
    await expect(fetchImage(`${base}/ok.png`)).rejects.toThrow(/https/);
    await expect(fetchImage('https://127.0.0.1/x.png')).rejects.toThrow(/not a public address/);
    await expect(fetchImage('https://169.254.169.254/x.png')).rejects.toThrow(/not a public address/);
    await expect(
      fetchImage('https://images.example.com/x.png', {
        allowInsecure: false,
        resolve: async () => ['10.0.0.5'],
      }),
    ).rejects.toThrow(/not a public address/);
  });
});
