// Fetches the bot's tile image (bot_config.background_image_url) with the SSRF guard, a size cap, a type check and
// a timeout; returns a data: URL for the page, or throws with a reason (the caller falls back to the name card).
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { urlRefusal } from './address-policy';
import { guardedLookup } from './safe-post';

export const imageLimits = { maxBytes: 5 * 1024 * 1024, timeoutMs: 10_000 };
const allowedTypes = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

export function fetchImage(
  rawUrl: string,
  options: { allowInsecure: boolean; resolve?: (host: string) => Promise<string[]> } = {
    allowInsecure: false,
  },
): Promise<string> {
  const url = new URL(rawUrl);
  const refusal = urlRefusal(url, options.allowInsecure, 'image URLs');
  if (refusal) return Promise.reject(new Error(refusal));
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const req = get(
      url,
      {
        lookup: guardedLookup({
          allowInsecure: options.allowInsecure,
          resolve: options.resolve,
          timeoutMs: imageLimits.timeoutMs,
        }),
        agent: false,
        headers: { accept: 'image/png, image/jpeg, image/webp, image/gif' },
      },
      (res) => {
        const type = String(res.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        if (res.statusCode !== 200) return fail(`the image URL answered ${res.statusCode}`);
        if (!allowedTypes.has(type)) return fail(`unsupported image type ${type || '(none)'}`);
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > imageLimits.maxBytes) return fail(`the image is over ${imageLimits.maxBytes} bytes`);
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > imageLimits.maxBytes) return fail(`the image is over ${imageLimits.maxBytes} bytes`);
          chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve(`data:${type};base64,${Buffer.concat(chunks).toString('base64')}`);
        });
      },
    );
    const fail = (reason: string) => {
      clearTimeout(timer);
      req.destroy();
      reject(new Error(reason));
    };
    const timer = setTimeout(
      () => fail(`timed out after ${imageLimits.timeoutMs} ms`),
      imageLimits.timeoutMs,
    );
    req.on('error', (err) => fail(err.message));
  });
}
