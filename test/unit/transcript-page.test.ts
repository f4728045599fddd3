// The transcript endpoint's query (after_seq, limit) and its pages: property tests of the parser and of paging.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Utterance } from '../../core/bots/transcript';
import { transcriptPage } from '../../core/bots/transcript-page';
import { ApiError } from '../../core/errors';
import { transcriptPageQuerySchema as query, transcriptPageSchema } from '../../core/schemas/transcript-page';
import { parseOrThrow } from '../../core/schemas/validate';

const refusal = (raw: Record<string, string>) => {
  try {
    parseOrThrow(query, raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('validation_error');
    return (err as ApiError).detail;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
};

describe('the query', () => {
  it('defaults to after_seq 0 and limit 100', () => {
    expect(query.parse({})).toEqual({ after_seq: 0, limit: 100 });
  });

  it('takes any whole number in range written in digits', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.integer({ min: 1, max: 1000 }), (after, limit) => {
        expect(query.parse({ after_seq: String(after), limit: String(limit) })).toEqual({
          after_seq: after,
          limit,
        });
      }),
    );
  });

  it('refuses a limit outside 1-1000 and an after_seq beyond the safe integers', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constant(0), fc.integer({ min: 1001, max: 10 ** 15 })), (limit) => {
        expect(refusal({ limit: String(limit) })).toMatch(/^limit: /);
      }),
    );
    expect(refusal({ after_seq: String(2 ** 53) })).toMatch(/^after_seq: /);
  });

  it('refuses anything but digits, naming the parameter', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }).filter((s) => !/^\d+$/.test(s)),
        fc.constantFrom('after_seq', 'limit'),
        (value, name) => {
          expect(refusal({ [name]: value })).toMatch(new RegExp(`^${name}: `));
        },
      ),
    );
    for (const value of ['-1', '1.5', '1e3', '0x10', ' 5', '5 ', '+5', '', 'Infinity', 'NaN', '１']) {
      expect(refusal({ after_seq: value }), value).toMatch(/^after_seq: must be a whole number/);
    }
  });

  it('refuses an unknown parameter by name, as GET /api/bots does', () => {
    expect(refusal({ after: '3' })).toBe('after: unknown field');
    expect(refusal({ limit: '5', offset: '10' })).toBe('offset: unknown field');
  });
});

const line = (i: number): Utterance => ({
  speaker: i % 3 === 0 ? 'Scribe' : `Speaker ${i % 2}`,
  participant_id: `p-${i % 3}`,
  text: `line ${i + 1}`,
  started_at: new Date(Date.UTC(2026, 0, 1, 9) + i * 1000).toISOString(),
  ...(i % 3 === 0 ? { is_bot: true } : {}),
});

describe('pages', () => {
  const botId = '6c1b9a52-3f0e-4d7a-9b1e-2f4c8d5a7e10';

  it('following next_after_seq from any start gives every later line once, in order, numbered from 1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 320 }),
        (n, limit, start) => {
          const lines = Array.from({ length: n }, (_, i) => line(i));
          const seen: number[] = [];
          let after = start;
          for (;;) {
            const page = transcriptPageSchema.parse(
              transcriptPage(botId, 'running', lines, { after_seq: after, limit }),
            );
            expect(page.utterances.length).toBeLessThanOrEqual(limit);
            expect(page.last_seq).toBe(n);
            for (const u of page.utterances) {
              expect(u.text).toBe(`line ${u.seq}`);
              expect(u.is_bot).toBe((u.seq - 1) % 3 === 0);
            }
            seen.push(...page.utterances.map((u) => u.seq));
            if (page.next_after_seq === null) break;
            expect(page.utterances).toHaveLength(limit);
            expect(page.next_after_seq).toBe(page.utterances.at(-1)!.seq);
            after = page.next_after_seq;
          }
          expect(seen).toEqual(Array.from({ length: Math.max(0, n - start) }, (_, i) => start + i + 1));
        },
      ),
    );
  });

  it('an empty transcript, or a start at or past its end, is an empty last page', () => {
    const lines = [line(0), line(1)];
    for (const after of [2, 3, 1_000_000]) {
      expect(transcriptPage(botId, 'completed', lines, { after_seq: after, limit: 100 })).toEqual({
        bot_id: botId,
        status: 'completed',
        utterances: [],
        next_after_seq: null,
        last_seq: 2,
      });
    }
    expect(transcriptPage(botId, 'running', [], { after_seq: 0, limit: 1 }).next_after_seq).toBeNull();
  });
});
