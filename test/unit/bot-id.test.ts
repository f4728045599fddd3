import { describe, expect, it } from 'vitest';
import { botIdTime, newBotId } from '../../core/bots/bot-id';
import { botIdSchema } from '../../core/schemas/api';

describe('bot ids (UUIDv7)', () => {
  it('carry the time they were made at, to the millisecond, and are valid UUIDs of version 7', () => {
    const at = new Date('2026-11-26T08:30:00.123Z');
    const id = newBotId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(botIdSchema.safeParse(id).success).toBe(true);
    expect(botIdTime(id)).toBe(at.toISOString());
    expect(id.slice(0, 13)).toBe('01a216f9-cfbb'); // 1,764,145,800,123 ms in 48 bits, big-endian
  });

  it('differ in their random bits when made in the same millisecond, and sort by time', () => {
    const at = new Date('2026-11-26T08:30:00.123Z');
    const ids = new Set(Array.from({ length: 1000 }, () => newBotId(at)));
    expect(ids.size).toBe(1000);
    const earlier = newBotId(new Date('2026-11-26T08:29:59.999Z'));
    for (const id of ids) expect(earlier < id).toBe(true);
  });

  it('give no time for ids of other versions (the version 4 ids of older bots) or malformed ones', () => {
    expect(botIdTime('0f8fad5b-d9cb-469f-a165-70867728950e')).toBeUndefined();
    expect(botIdTime('not-an-id')).toBeUndefined();
    expect(botIdTime('019abf1b-a67b-7000-c000-000000000000')).toBeUndefined(); // variant bits not RFC 9562's
  });

  it('refuse a time outside the 48 bits a UUIDv7 holds', () => {
    expect(() => newBotId(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => newBotId(new Date(-1))).toThrow(RangeError);
  });
});
