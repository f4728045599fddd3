// Retention's index and sweep: the in-memory index keeps the DynamoDB adapter's order and paging, a bot's shard is
// spread by its id, entries are dated at the end plus the retention, and the benchmark's scenario (small) meets the
// targets: every meeting deleted within an hour of its due time, never before, nearly all looked at once.
import { describe, expect, it } from 'vitest';
import { quickScenario, runRetentionSim } from '../../bench/retention-sim';
import { retentionShardCount } from '../../core/adapters/dynamodb/retention-index';
import {
  dueAt,
  type RetentionDeps,
  retentionDeadline,
  retentionSweepBudgetMs,
  sweepRetention,
} from '../../core/data/retention';
import { createLogger } from '../../core/log';
import { retentionShardOf } from '../../core/ports/retention-index';
import { MemoryRetentionIndex } from '../support/memory-retention-index';

const id = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

describe('MemoryRetentionIndex', () => {
  it('lists each shard’s due entries oldest first, a page at a time, after the last one read', async () => {
    const index = new MemoryRetentionIndex(1);
    for (let n = 0; n < 7; n++) await index.add(id(n), `2026-01-0${n + 1}T00:00:00.000Z`);
    const upTo = '2026-01-05T00:00:00.000Z';
    const first = await index.listDue(0, upTo, 3);
    expect(first.entries.map((e) => e.botId)).toEqual([id(0), id(1), id(2)]);
    expect(first.next).toEqual(first.entries[2]);
    const second = await index.listDue(0, upTo, 3, first.next);
    // Due at `upTo` itself is in; later is not.
    expect(second.entries.map((e) => e.botId)).toEqual([id(3), id(4)]);
    expect(second.next).toBeUndefined();
  });

  it('adds idempotently, moves into the bot’s shard, clears, and reads the legacy partition apart', async () => {
    const index = new MemoryRetentionIndex(4);
    await index.add(id(1), '2026-01-01T00:00:00.000Z');
    await index.add(id(1), '2026-01-01T00:00:00.000Z');
    expect(index.size()).toBe(1);
    index.addLegacy(id(2), '2025-12-01T00:00:00.000Z');
    const [legacy] = (await index.listDue('legacy', '2026-01-01T00:00:00.000Z', 10)).entries;
    expect(legacy).toEqual({ botId: id(2), due: '2025-12-01T00:00:00.000Z', part: 'legacy' });
    await index.move(legacy!, '2026-02-01T00:00:00.000Z');
    expect(index.entriesOf('legacy')).toEqual([]);
    expect(index.entriesOf(retentionShardOf(id(2), 4))).toContainEqual({
      botId: id(2),
      due: '2026-02-01T00:00:00.000Z',
      part: retentionShardOf(id(2), 4),
    });
    const [entry] = (await index.listDue(retentionShardOf(id(1), 4), '2026-01-01T00:00:00.000Z', 10)).entries;
    await index.clear(entry!);
    expect(index.size()).toBe(1);
  });
});

describe('retention dates', () => {
  it('spreads time-ordered ids (UUIDv7) over every shard', () => {
    const counts = new Array(retentionShardCount).fill(0);
    for (let n = 0; n < 8000; n++) counts[retentionShardOf(id(n), retentionShardCount)]++;
    for (const c of counts) expect(c).toBeGreaterThan(800);
  });

  it('dates an entry at the end plus the retention, and stops the sweep before the function ends', () => {
    expect(dueAt('2026-01-01T10:00:00.000Z', 30)).toBe('2026-01-31T10:00:00.000Z');
    expect(dueAt('2026-01-01T10:00:00.000Z', 0)).toBe('2026-01-01T10:00:00.000Z');
    const now = new Date('2026-01-01T00:00:00.000Z');
    // 42 s left of the sweeper's 60: 10 s of them kept spare.
    expect(retentionDeadline(now, 42_000).getTime() - now.getTime()).toBe(32_000);
    expect(retentionDeadline(now).getTime() - now.getTime()).toBe(retentionSweepBudgetMs);
  });
});

describe('sweepRetention', () => {
  it('goes on with the other shards when one cannot be read, and says the sweep is unfinished', async () => {
    const index = new MemoryRetentionIndex(2);
    const a = id(1);
    const b = [...Array(50).keys()].map(id).find((x) => retentionShardOf(x, 2) !== retentionShardOf(a, 2))!;
    const due = '2026-01-01T00:00:00.000Z';
    await index.add(a, due);
    await index.add(b, due);
    const broken = retentionShardOf(a, 2);
    const failing = Object.assign(Object.create(index) as MemoryRetentionIndex, {
      listDue: (part: number | 'legacy', ...rest: [string, number]) =>
        part === broken ? Promise.reject(new Error('ThrottlingException')) : index.listDue(part, ...rest),
    });
    // Both sessions gone: a look clears the entry (no deletion to set up).
    const now = new Date('2026-02-01T00:00:00.000Z');
    const r = await sweepRetention({
      stores: { retention: failing, sessions: { get: async () => null } },
      config: { RETENTION_DAYS: 30 },
      log: createLogger('silent'),
      now: () => now,
      deadline: new Date(now.getTime() + 30_000),
    } as unknown as RetentionDeps);
    expect(r).toMatchObject({ looked: 1, unfinished: true, failed: [] });
    expect(index.entriesOf(broken)).toHaveLength(1);
    expect(index.size()).toBe(1);
  });
});

describe('the sweep at size (bench/retention-sim.ts, the quick scenario)', () => {
  it('deletes every meeting within an hour of its due time, none early, nearly all looked at once', async () => {
    const r = await runRetentionSim(quickScenario, new MemoryRetentionIndex(retentionShardCount));
    expect(r.deleted + r.deleted_early_by_customer).toBe(quickScenario.meetings);
    expect(r.deleted_too_early).toBe(0);
    expect(r.missed).toBe(0);
    expect(r.lateness_minutes.max).toBeLessThanOrEqual(60);
    // Kept meetings are not looked at again daily: more than one look only for the meetings whose retention was
    // lengthened, whose deliveries were still pending at 0 days, or that an earlier version listed.
    expect(r.looks_per_meeting.one / quickScenario.meetings).toBeGreaterThan(0.9);
    // The index's reads: one Query a shard (and the legacy partition) a sweep, and each entry once.
    const oneQueryEach = (retentionShardCount + 1) * 1440;
    expect(r.per_day.queries).toBeGreaterThanOrEqual(oneQueryEach);
    expect(r.per_day.queries).toBeLessThan(oneQueryEach * 1.01);
    expect(r.sweep_ms.max).toBeLessThan(r.sweep_ms.budget);
    expect(r.legacy_entries_left).toBe(0);
  }, 60_000);

  it('a sweep cut off by its deadline leaves the rest due for the next: none lost, none early', async () => {
    // A burst of 2,000 meetings due in the same hour, and sweeps of 2 s: many stop at their deadline.
    const r = await runRetentionSim(
      { ...quickScenario, burst: 2_000, retentionDays: [[1, 1]], deletedEarlyShare: 0, retentionChanges: 0 },
      new MemoryRetentionIndex(retentionShardCount),
      { budgetMs: 2_000 },
    );
    expect(r.sweeps_cut_off_by_deadline).toBeGreaterThan(10);
    expect(r.deleted).toBe(quickScenario.meetings);
    expect(r.deleted_too_early).toBe(0);
    expect(r.missed).toBe(0);
    // Each sweep still looks at what its 2 s allow (the deployed 30 s are 15 times that).
    expect(r.sweep_ms.max).toBeLessThan(2_000 + 1_000);
  }, 60_000);
});
