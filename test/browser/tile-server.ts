// A local http server for background_image_url in browser tests: /tile.png is a 1×1 PNG, anything else an HTML page.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

export async function startTileServer(): Promise<{ base: string; close(): void }> {
  const server = createServer((req, res) => {
    if (req.url === '/tile.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>not an image</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}
