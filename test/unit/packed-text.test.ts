// Large text in DynamoDB items: stored Brotli-compressed above a size, read back unchanged either way.
import { describe, expect, it } from 'vitest';
import {
  packAboveBytes,
  packJson,
  packText,
  unpackJson,
  unpackText,
} from '../../core/adapters/dynamodb/packed-text';

const speech = (bytes: number) => {
  const lines: string[] = [];
  for (let i = 0, n = 0; n < bytes; i++) {
    const line = `Speaker ${i % 3}: item ${i} — we agreed on the ${i % 7}th option, café and naïve résumé included.`;
    lines.push(line);
    n += Buffer.byteLength(line) + 1;
  }
  return lines.join('\n');
};

describe('packText / unpackText', () => {
  it('keeps text up to the threshold as a plain string', () => {
    const text = speech(packAboveBytes - 200);
    expect(packText(text)).toBe(text);
    expect(unpackText(text)).toBe(text);
  });

  it('compresses larger text to a fraction of its size, and restores it exactly (multi-byte characters too)', () => {
    const text = speech(500_000);
    const packed = packText(text);
    expect(packed).toBeInstanceOf(Uint8Array);
    expect((packed as Uint8Array).byteLength).toBeLessThan(Buffer.byteLength(text) / 4);
    expect(unpackText(packed)).toBe(text);
  });

  it('reads what is neither a string nor binary as undefined', () => {
    expect(unpackText(undefined)).toBeUndefined();
    expect(unpackText(42)).toBeUndefined();
  });
});

describe('packJson / unpackJson', () => {
  it('leaves small values as they are and round-trips large ones through compressed JSON', () => {
    const small = [{ question: 'Why?', answer: 'Because.' }];
    expect(packJson(small)).toBe(small);
    expect(unpackJson(small)).toBe(small);
    const large = Array.from({ length: 2000 }, (_, i) => ({
      question: `Question ${i}?`,
      answer: `Answer ${i}.`,
    }));
    const packed = packJson(large);
    expect(packed).toBeInstanceOf(Uint8Array);
    expect(unpackJson(packed)).toEqual(large);
  });
});
