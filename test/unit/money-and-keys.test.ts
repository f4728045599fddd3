import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiKeyFromHeader } from '../../core/accounts/authenticate';
import { startedMinutes, usageCharge } from '../../core/accounts/pricing';
import {
  hashApiKey,
  looksLikeApiKey,
  newApiKey,
  requestFingerprint,
  sameHash,
} from '../../core/accounts/secrets';
import { ApiError } from '../../core/errors';
import { isPublicAddress } from '../../core/net/address-policy';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

describe('pricing: credits per started minute', () => {
  it('counts started minutes at the boundaries', () => {
    expect(startedMinutes(at(0), at(0))).toBe(0);
    expect(startedMinutes(at(0), at(1))).toBe(1);
    expect(startedMinutes(at(0), at(60_000))).toBe(1);
    expect(startedMinutes(at(0), at(60_001))).toBe(2);
    expect(startedMinutes(at(5000), at(0))).toBe(0);
  });

  it('is monotonic and never charges less than the full minutes used', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 * 3600_000 }),
        fc.integer({ min: 0, max: 600_000 }),
        fc.integer({ min: 0, max: 5 }),
        (a, d, rate) => {
          const m1 = startedMinutes(at(0), at(a));
          const m2 = startedMinutes(at(0), at(a + d));
          expect(m2).toBeGreaterThanOrEqual(m1);
          expect(m1 * 60_000).toBeGreaterThanOrEqual(a);
          expect((m1 - 1) * 60_000).toBeLessThan(a || 1);
          expect(usageCharge(at(0), at(a), rate)).toBe(m1 * rate);
        },
      ),
    );
  });
});

describe('API keys', () => {
  it('are random, well-formed, and stored only as a SHA-256 hash', () => {
    const a = newApiKey();
    const b = newApiKey();
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(looksLikeApiKey(a.apiKey)).toBe(true);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash).toBe(hashApiKey(a.apiKey));
    expect(a.hash).not.toContain(a.apiKey.slice(4, 20));
  });

  it('compare hashes in constant time, only when equal', () => {
    const { hash } = newApiKey();
    expect(sameHash(hash, hash)).toBe(true);
    expect(sameHash(hash, newApiKey().hash)).toBe(false);
    expect(sameHash(hash, '')).toBe(false);
    expect(sameHash('', '')).toBe(false);
  });

  it('parse the Authorization header strictly', () => {
    const { apiKey } = newApiKey();
    expect(apiKeyFromHeader(`Bearer ${apiKey}`)).toBe(apiKey);
    expect(apiKeyFromHeader(`bearer ${apiKey}`)).toBe(apiKey);
    for (const bad of [
      undefined,
      '',
      'Bearer',
      `Basic ${apiKey}`,
      `Bearer ${apiKey} extra`,
      'Bearer mbk_short',
    ]) {
      expect(() => apiKeyFromHeader(bad)).toThrow(ApiError);
    }
  });

  it('never accept arbitrary strings as keys', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(looksLikeApiKey(s)).toBe(false);
      }),
    );
  });
});

describe('request fingerprint', () => {
  it('ignores key order and undefined members but not values', () => {
    expect(requestFingerprint({ a: 1, b: { c: 2, d: 3 } })).toBe(
      requestFingerprint({ b: { d: 3, c: 2 }, a: 1, e: undefined }),
    );
    expect(requestFingerprint({ a: 1 })).not.toBe(requestFingerprint({ a: 2 }));
    expect(requestFingerprint({ a: [1, 2] })).not.toBe(requestFingerprint({ a: [2, 1] }));
  });
});

describe('address policy', () => {
  it('classifies public and non-public addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])
      expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd12::1',
      '::ffff:10.0.0.1',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '2002:7f00:1::1',
      '64:ff9b:1::a',
      'fec0::1',
      'localhost',
      'example.com',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });
});
