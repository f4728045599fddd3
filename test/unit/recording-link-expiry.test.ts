// A recording link never outlives the credentials that sign it: its lifetime is the TTL asked for, cut to the time the
// signing credentials have left when they say (S3 refuses a presigned request once they expired).
import { describe, expect, it } from 'vitest';
import { linkSeconds } from '../../core/adapters/s3/recording-store';

const now = new Date('2026-11-28T06:00:00.000Z');
const inSeconds = (s: number) => new Date(now.getTime() + s * 1000);

describe('linkSeconds', () => {
  it('keeps the TTL when the credentials outlast it or do not say when they expire', () => {
    expect(linkSeconds(3600, now, inSeconds(7200))).toBe(3600);
    expect(linkSeconds(3600, now, inSeconds(3600))).toBe(3600);
    expect(linkSeconds(3600, now)).toBe(3600);
  });

  it('cuts it to what the credentials have left, in whole seconds', () => {
    expect(linkSeconds(3600, now, inSeconds(600))).toBe(600);
    expect(linkSeconds(3600, now, new Date(now.getTime() + 599_999))).toBe(599);
  });

  it('never gives a link of no time at all', () => {
    expect(linkSeconds(3600, now, inSeconds(0))).toBe(1);
    expect(linkSeconds(3600, now, inSeconds(-30))).toBe(1);
  });
});
