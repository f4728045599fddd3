// API keys and webhook signing secrets: generation, SHA-256 hashing, constant-time comparison.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const apiKeyPrefix = 'mbk_';
const apiKeyPattern = /^mbk_[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  keyId: string;
  /** Shown once, never stored. */
  apiKey: string;
  hash: string;
}

export function newApiKey(): NewApiKey {
  const apiKey = apiKeyPrefix + randomBytes(32).toString('base64url');
  return { keyId: `key_${randomBytes(8).toString('hex')}`, apiKey, hash: hashApiKey(apiKey) };
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

export function looksLikeApiKey(value: string): boolean {
  return apiKeyPattern.test(value);
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A Standard Webhooks signing secret: "whsec_" + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function newAccountId(): string {
  return `acct_${randomBytes(10).toString('hex')}`;
}

/** Hash of a request body (canonical JSON) for idempotency comparison. */
export function requestFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
