// Bot ids are UUIDs of version 7 (RFC 9562): 48 bits of the creation time in Unix milliseconds, then 74 random bits.
// They are as unguessable as version 4 for our purpose (74 random bits, and every read is scoped to its account), sort
// by creation, and carry the join's time: the credit hold needs no attribute of its own to record when it was placed
// (credit-ledger.ts), which kept one ~70-byte attribute per running bot off the account item that every join rewrites.
import { randomFillSync } from 'node:crypto';

/** Random bytes drawn 2,560 at a time (one call to the system's source per 256 ids, as randomUUID does). */
const pool = Buffer.alloc(2_560);
let used = pool.length;

/** A new bot id whose time is `at` (milliseconds; the caller's clock, so tests with a fake clock agree). */
export function newBotId(at: Date): string {
  const ms = at.getTime();
  if (!Number.isInteger(ms) || ms < 0 || ms >= 2 ** 48)
    throw new RangeError(`a UUIDv7 holds no time of ${ms} ms`);
  if (used + 10 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const r = pool.subarray(used, used + 10);
  used += 10;
  r[0] = 0x70 | ((r[0] ?? 0) & 0x0f); // version 7
  r[2] = 0x80 | ((r[2] ?? 0) & 0x3f); // variant 10
  const time = ms.toString(16).padStart(12, '0');
  const rest = r.toString('hex');
  return `${time.slice(0, 8)}-${time.slice(8)}-${rest.slice(0, 4)}-${rest.slice(4, 8)}-${rest.slice(8)}`;
}

const version7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The creation time (ISO 8601) a version 7 bot id carries; undefined for any other id (version 4 ids of old bots). */
export function botIdTime(botId: string): string | undefined {
  if (!version7.test(botId)) return undefined;
  return new Date(Number.parseInt(botId.slice(0, 8) + botId.slice(9, 13), 16)).toISOString();
}
