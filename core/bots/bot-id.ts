// Bot ids are UUIDs of version 7 (RFC 9562): 48 bits of the creation time in Unix milliseconds, then 74 random bits.
// They are as unguessable as version 4 for our purpose (74 random bits, and every read is scoped to its account), sort
// by creation, and carry the join's time: the credit hold needs no attribute of its own to record when it was placed
// (credit-ledger.ts), which kept one ~70-byte attribute per running bot off the account item that every join rewrites.
import { randomFillSync } from 'node:crypto';

const random = new Uint8Array(10);

/** A new bot id whose time is `at` (milliseconds; the caller's clock, so tests with a fake clock agree). */
export function newBotId(at: Date): string {
  const ms = at.getTime();
  if (!Number.isInteger(ms) || ms < 0 || ms >= 2 ** 48)
    throw new RangeError(`a UUIDv7 holds no time of ${ms} ms`);
  randomFillSync(random);
  const time = ms.toString(16).padStart(12, '0');
  const hex = (from: number, to: number) =>
    Array.from(random.subarray(from, to), (b) => b.toString(16).padStart(2, '0')).join('');
  const word = (i: number) => ((random[i] ?? 0) << 8) | (random[i + 1] ?? 0);
  const versioned = (0x7000 | (word(0) & 0x0fff)).toString(16);
  const variant = (0x8000 | (word(2) & 0x3fff)).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-${versioned}-${variant}-${hex(4, 10)}`;
}

const version7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The creation time (ISO 8601) a version 7 bot id carries; undefined for any other id (version 4 ids of old bots). */
export function botIdTime(botId: string): string | undefined {
  if (!version7.test(botId)) return undefined;
  return new Date(Number.parseInt(botId.slice(0, 8) + botId.slice(9, 13), 16)).toISOString();
}
