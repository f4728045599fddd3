// POSTs a webhook without following redirects, with a hard timeout, and only to public addresses: the address is
// checked after DNS resolution, at connect time, so a name that rebinds to 169.254.169.254 cannot be reached.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress, urlRefusal } from './address-policy';

export interface PostResult {
  /** HTTP status, or undefined when no response came (refused, timeout, network). */
  status?: number;
  latencyMs: number;
  retryAfter?: string;
  error?: string;
}

export class BlockedAddressError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'BlockedAddressError';
  }
}

export interface PostOptions {
  timeoutMs: number;
  /** Local mode: http and private/loopback targets are allowed. */
  allowInsecure: boolean;
  /** For tests: a resolver standing in for DNS. */
  resolve?: (host: string) => Promise<string[]>;
}

/** A connect-time lookup that refuses any non-public answer. */
export function guardedLookup(options: PostOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const done = (err: Error | null, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const bad = addresses.find((a) => !isPublicAddress(a.address));
      if (bad && !options.allowInsecure) {
        return callback(
          new BlockedAddressError(`${hostname} resolves to ${bad.address}, which is not a public address`),
          '',
          0,
        );
      }
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} did not resolve`), '', 0);
      if ((lookupOptions as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, first.address, first.family);
    };
    if (options.resolve)
      options.resolve(hostname).then(
        (list) =>
          done(
            null,
            list.map((address) => ({ address, family: isIP(address) })),
          ),
        (err) => done(err, []),
      );
    else dnsLookup(hostname, { all: true }, (err, addresses) => done(err, addresses ?? []));
  };
}

export async function safePost(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { latencyMs: 0, error: 'invalid URL' };
  }
  const refusal = urlRefusal(url, options.allowInsecure, 'webhooks');
  if (refusal) return { latencyMs: 0, error: `blocked: ${refusal}` };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'meeting-bot-webhooks/1',
          ...headers,
          'content-length': Buffer.byteLength(body),
        },
        lookup: guardedLookup(options),
        agent: false,
      },
      (res) => {
        // Drain at most 64 KiB of the reply; its content does not matter.
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > 64 * 1024) res.destroy();
        });
        const retryAfter = res.headers['retry-after'];
        const done = () =>
          finish({
            status: res.statusCode,
            latencyMs: elapsed(),
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (err) => {
      const blocked = err instanceof BlockedAddressError || err.name === 'BlockedAddressError';
      finish({ latencyMs: elapsed(), error: blocked ? `blocked: ${err.message}` : err.message });
    });
    req.end(body);
  });
}
