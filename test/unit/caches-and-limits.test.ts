import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../core/adapters/memory/rate-limiter';
import type { BotSession } from '../../core/bots/session';
import { endedSessionTtlMs, SessionCache } from '../../core/bots/status-cache';
import { TranscriptCache } from '../../core/bots/transcript-cache';
import { JsonText } from '../../core/json-text';

const session = (botId: string, status: BotSession['status']) => ({ botId, status }) as BotSession;

describe('session cache for the status endpoint', () => {
  it('reuses a running session for the TTL only', () => {
    const cache = new SessionCache(1000);
    cache.put(session('a', 'running'), 0);
    expect(cache.get('a', 999)?.botId).toBe('a');
    expect(cache.get('a', 1001)).toBeUndefined();
  });

  it('keeps ended sessions for a minute (only a data deletion changes them), then reads them again', () => {
    const cache = new SessionCache(1000);
    cache.put(session('b', 'completed'), 0);
    expect(cache.get('b', endedSessionTtlMs)?.status).toBe('completed');
    expect(cache.get('b', endedSessionTtlMs + 1)).toBeUndefined();
    cache.put(session('c', 'completed'), 0);
    cache.forget('c');
    expect(cache.get('c', 1)).toBeUndefined();
  });

  it('caches no running session when the TTL is 0, and stays bounded', () => {
    const cache = new SessionCache(0, 2);
    cache.put(session('a', 'running'), 0);
    expect(cache.get('a', 0)).toBeUndefined();
    cache.put(session('x', 'failed'), 0);
    cache.put(session('y', 'failed'), 0);
    cache.put(session('z', 'failed'), 0);
    expect(cache.get('x', 0)).toBeUndefined();
    expect(cache.get('z', 0)?.botId).toBe('z');
  });
});

describe('session cache memory bound', () => {
  it('evicts the oldest sessions to stay under its byte budget and skips one larger than it', () => {
    const cache = new SessionCache(1000, 10_000, 100_000);
    const big = (id: string, chars = 20_000) =>
      ({
        botId: id,
        status: 'completed',
        qaPairs: [{ question: 'q', answer: 'x'.repeat(chars) }],
      }) as BotSession;
    // Each is about 42 KB: two fit in 100 KB, a third pushes out the oldest.
    for (const id of ['a', 'b']) cache.put(big(id), 0);
    expect(cache.get('a', 0)).toBeDefined();
    cache.put(big('d'), 0);
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.get('b', 0)).toBeDefined();
    expect(cache.get('d', 0)).toBeDefined();
    cache.put(big('huge', 60_000), 0);
    expect(cache.get('huge', 0)).toBeUndefined();
    expect(cache.get('d', 0)).toBeDefined();
  });
});

describe('session cache rendered answers', () => {
  it('renders a cached session once per version, anew when either changes, and always for one not cached', () => {
    const cache = new SessionCache(1000);
    let renders = 0;
    const render = () => new JsonText({ n: ++renders });
    const first = session('a', 'running');
    const lines: string[] = [];
    cache.put(first, 0);
    expect(cache.renderedJson(first, lines, render).text).toBe('{"n":1}');
    expect(cache.renderedJson(first, lines, render).text).toBe('{"n":1}');
    expect(cache.renderedJson(first, ['new line'], render).text).toBe('{"n":2}');
    const second = session('a', 'completed');
    cache.put(second, 10);
    expect(cache.renderedJson(second, lines, render).text).toBe('{"n":3}');
    const stranger = session('x', 'running');
    expect(cache.renderedJson(stranger, lines, render).text).toBe('{"n":4}');
    expect(cache.renderedJson(stranger, lines, render).text).toBe('{"n":5}');
  });

  it('counts a rendered answer in its byte budget', () => {
    const cache = new SessionCache(1000, 10_000, 100_000);
    for (const id of ['a', 'b']) cache.put(session(id, 'completed'), 0);
    const a = cache.get('a', 0)!;
    cache.renderedJson(a, [], () => new JsonText('x'.repeat(48_000)));
    // 'a' now holds ~98 KB: with 'b' that is over the budget, so the oldest ('b', older after a's re-render) goes.
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('a', 0)).toBe(a);
  });
});

describe('session cache single flight', () => {
  it('concurrent misses for one bot share one read, and the result is cached', async () => {
    const cache = new SessionCache(1000);
    let reads = 0;
    const loader = async () => {
      reads++;
      // The read takes a while, so the other misses come while it is in flight.
      await new Promise((r) => setTimeout(r, 10));
      return session('a', 'running');
    };
    const all = await Promise.all(Array.from({ length: 20 }, () => cache.load('a', 0, loader)));
    expect(all.every((x) => x?.botId === 'a')).toBe(true);
    expect(reads).toBe(1);
    await cache.load('a', 500, loader);
    expect(reads).toBe(1);
    await cache.load('a', 1500, loader);
    expect(reads).toBe(2);
  });

  it('a failed read is not cached and does not block the next one', async () => {
    const cache = new SessionCache(1000);
    await expect(cache.load('b', 0, async () => Promise.reject(new Error('throttled')))).rejects.toThrow(
      'throttled',
    );
    expect(await cache.load('b', 0, async () => session('b', 'completed'))).toMatchObject({ botId: 'b' });
  });
});

describe('in-memory rate limiter (local stack)', () => {
  it('allows the limit per key per minute, then tells how long to wait', async () => {
    const limiter = new MemoryRateLimiter();
    const t = new Date('2026-01-01T00:00:10Z');
    for (let i = 0; i < 3; i++) expect((await limiter.consume('k', 3, t)).allowed).toBe(true);
    expect(await limiter.consume('k', 3, t)).toEqual({ allowed: false, retryAfterSeconds: 50 });
    expect((await limiter.consume('other', 3, t)).allowed).toBe(true);
    expect((await limiter.consume('k', 3, new Date('2026-01-01T00:01:00Z'))).allowed).toBe(true);
  });
});

describe('transcript cache (status view and transcript endpoint)', () => {
  const line = (n: number) => ({
    speaker: 'Ann',
    participant_id: 'a',
    started_at: `t${n}`,
    text: `line ${n}`,
  });
  /** A store of one task's segments, counting reads. */
  const store = (segments: Map<string, { seq: number; utterances: ReturnType<typeof line>[] }[]>) => {
    const reads: string[] = [];
    return {
      reads,
      segmentsFrom: async (botId: string, _attempt: number, fromSeq: number) => {
        reads.push(`${botId}@${fromSeq}`);
        // The read takes a while, so concurrent readers overlap it.
        await new Promise((r) => setTimeout(r, 5));
        return (segments.get(botId) ?? []).filter((s) => s.seq >= fromSeq);
      },
    };
  };
  const running = (botId: string) => ({ botId, status: 'running' as const });

  it('reuses a running bot’s lines for the TTL, and concurrent readers share one read', async () => {
    const s = store(new Map([['a', [{ seq: 1, utterances: [line(1)] }]]]));
    const cache = new TranscriptCache(s, 1000);
    const [x, y] = await Promise.all([cache.read(running('a'), 0), cache.read(running('a'), 0)]);
    expect(x.lines).toEqual([line(1)]);
    expect(y.lines).toEqual([line(1)]);
    expect(s.reads).toEqual(['a@1']);
    await cache.read(running('a'), 999);
    expect(s.reads).toEqual(['a@1']);
    await cache.read(running('a'), 1001);
    expect(s.reads).toEqual(['a@1', 'a@1']);
  });

  it('stays under its byte budget, evicting the least recently read', async () => {
    const big = (n: number) => [{ seq: 1, utterances: [{ ...line(n), text: 'x'.repeat(10_000) }] }];
    const s = store(
      new Map([
        ['a', big(1)],
        ['b', big(2)],
        ['c', big(3)],
      ]),
    );
    // Each entry is about 41 KB: two fit in 100 KB.
    const cache = new TranscriptCache(s, 60_000, 100, 100_000);
    await cache.read(running('a'), 0);
    await cache.read(running('b'), 0);
    await cache.read(running('a'), 1); // a is now the most recently read
    await cache.read(running('c'), 2); // evicts b
    s.reads.length = 0;
    await cache.read(running('a'), 3);
    await cache.read(running('b'), 3);
    expect(s.reads).toEqual(['b@1']);
  });

  it('reads nothing for a session marked as having saved no segment; reads an unmarked (older) session as always', async () => {
    const s = store(new Map([['a', [{ seq: 1, utterances: [line(1)] }]]]));
    const cache = new TranscriptCache(s, 1000);
    const none = await cache.read({ ...running('a'), transcriptAt: null }, 0);
    expect(none.lines).toEqual([]);
    expect(none.text()).toBe('');
    expect(s.reads).toEqual([]);
    // Marked since: the next read (past the TTL or not) catches up from the first segment.
    expect((await cache.read({ ...running('a'), transcriptAt: 't1' }, 1)).lines).toEqual([line(1)]);
    // Written before the mark existed: no field at all, so its segments are read.
    expect((await cache.read({ botId: 'b', status: 'completed' as const }, 2)).lines).toEqual([]);
    expect(s.reads).toEqual(['a@1', 'b@1']);
  });
});
