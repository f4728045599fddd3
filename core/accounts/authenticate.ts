// Bearer API-key authentication and the per-key rate limit; every failure is one 401 body.
import { BoundedMap } from '../bots/bounded-map';
import { ApiError } from '../errors';
import type { AccountsStore, ApiKeyRecord } from '../ports/accounts-store';
import type { RateLimiter } from '../ports/rate-limiter';
import { hashApiKey, looksLikeApiKey, sameHash } from './secrets';

export interface Caller {
  accountId: string;
  keyId: string;
}

const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The API key from an Authorization header value, or an authentication_error saying what is wrong. */
export function apiKeyFromHeader(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw new ApiError('authentication_error', 'missing Authorization header');
  }
  const match = bearer.exec(header);
  if (!match)
    throw new ApiError('authentication_error', "the Authorization header must be 'Bearer <API key>'");
  const key = match[1]!;
  if (!looksLikeApiKey(key)) throw new ApiError('authentication_error', 'the API key is malformed');
  return key;
}

export class Authenticator {
  private readonly cache = new BoundedMap<{ record: ApiKeyRecord; until: number }>(10_000, Infinity);

  constructor(
    private readonly accounts: AccountsStore,
    private readonly rateLimiter: RateLimiter,
    private readonly options: { keyCacheTtlMs: number; rateLimitPerMinute: number },
  ) {}

  async authenticate(authorization: string | undefined, now = new Date()): Promise<Caller> {
    const hash = hashApiKey(apiKeyFromHeader(authorization));
    const record = await this.lookup(hash, now.getTime());
    // The lookup is by hash; comparing the stored digest in constant time keeps timing independent of content.
    if (!record || !sameHash(record.hash, hash)) {
      throw new ApiError('authentication_error', 'the API key is not recognised');
    }
    if (record.revokedAt) throw new ApiError('authentication_error', 'the API key has been revoked');
    const decision = await this.rateLimiter.consume(record.keyId, this.options.rateLimitPerMinute, now);
    if (!decision.allowed) {
      throw new ApiError(
        'rate_limited',
        `more than ${this.options.rateLimitPerMinute} requests a minute for this key`,
        { retryAfter: decision.retryAfterSeconds },
      );
    }
    return { accountId: record.accountId, keyId: record.keyId };
  }

  private async lookup(hash: string, nowMs: number): Promise<ApiKeyRecord | null> {
    const ttl = this.options.keyCacheTtlMs;
    if (ttl > 0) {
      const hit = this.cache.get(hash);
      if (hit && hit.until > nowMs) return hit.record;
    }
    const record = await this.accounts.findKeyByHash(hash);
    if (ttl > 0 && record && !record.revokedAt) this.cache.set(hash, { record, until: nowMs + ttl }, 0);
    return record;
  }
}
