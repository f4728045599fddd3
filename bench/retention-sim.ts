// The retention sweep at production size, simulated: a year of meetings of many accounts ends, each listed by the
// end's own code (listForRetention) in an index, and the sweep's own code (sweepRetention, deleteMeetingData) runs
// every minute, as EventBridge runs the sweeper, within the sweeper's time, on a virtual clock. Only the platform is
// simulated: the stores are in memory (the index is MemoryRetentionIndex, the other stores keep what the sweep reads),
// each call moves the clock by a DynamoDB-like latency and is metered in request units. The DynamoDB index adapter
// runs the same scenario at a smaller size in test/integration/retention.test.ts.
import type { BotSession } from '../core/bots/session';
import type { OutboxMessage } from '../core/control/outbox';
import {
  listForRetention,
  type RetentionDeps,
  redateRetention,
  retentionDeadline,
  sweepRetention,
} from '../core/data/retention';
import { createLogger } from '../core/log';
import { moveRetentionEntry, type RetentionIndex } from '../core/ports/retention-index';
import { seeded } from './storm-sim';

const dayMs = 24 * 3600 * 1000;
const minuteMs = 60 * 1000;
/** EventBridge's schedule of the sweeper (infra/constructs/operations.ts). */
export const sweepPeriodMs = minuteMs;

/**
 * Simulated latency of each call (ms), as DynamoDB, S3 and SQS answer inside a region (single-digit ms for an item,
 * more for a page or a batch). Charged one after another even where the sweep runs its shards side by side, so the
 * sweep's time is over-stated, never under.
 */
const latencyMs = {
  query: 8,
  getItem: 5,
  putItem: 6,
  deleteItem: 6,
  updateItem: 7,
  transactWrite: 12,
  sqsSend: 10,
  /** The recording's objects: a listing and a DeleteObjects. */
  s3DeleteAll: 40,
  /** One page of a purge: a Query and a BatchWriteItem (the transcript segments, the deliveries' bodies). */
  purgePage: 25,
};

/** An index entry as stored: its keys (`RETENTION#<n>`, `<due>#<bot_id>`) and type, about 100 bytes. */
const entryBytes = 100;
/**
 * Items read by a Query are billed by their summed size, 0.5 read unit per 4 KB eventually consistent; one that finds
 * nothing still costs the minimum, 0.5 ("Capacity unit consumption for read operations": a Query is charged for the
 * partition it searched even if no data exists; dynalite charges nothing for it).
 */
const queryReadUnits = (items: number) => Math.max(1, Math.ceil((items * entryBytes) / 4096)) * 0.5;

/** The scenario: its size, how its meetings end and what their accounts keep. */
export interface RetentionScenario {
  meetings: number;
  accounts: number;
  /** Meetings end over this many days from the start. */
  endsOverDays: number;
  seed: number;
  /** Retention days an account may have, each with its weight. */
  retentionDays: [days: number, weight: number][];
  /** Share of meetings whose content the customer deletes before it is due. */
  deletedEarlyShare: number;
  /** Share of meetings listed by an earlier version, in the old single partition (due at their creation). */
  legacyShare: number;
  /** Accounts that change their retention during the run: half lengthen it, half shorten it (the admin CLI). */
  retentionChanges: number;
  /** A burst: this many meetings ending within one hour, on one day of the run. */
  burst: number;
}

export const fullScenario: RetentionScenario = {
  meetings: 200_000,
  accounts: 500,
  endsOverDays: 365,
  seed: 34,
  retentionDays: [
    [0, 5],
    [1, 5],
    [7, 15],
    [30, 45],
    [90, 20],
    [365, 10],
  ],
  deletedEarlyShare: 0.01,
  legacyShare: 0.01,
  retentionChanges: 20,
  burst: 10_000,
};

/** The same scenario, small: seconds, for CI (`npm run bench -- --quick retention`) and the tests. */
export const quickScenario: RetentionScenario = {
  ...fullScenario,
  meetings: 2_000,
  accounts: 40,
  endsOverDays: 20,
  retentionDays: [
    [0, 10],
    [1, 30],
    [3, 30],
    [7, 30],
  ],
  retentionChanges: 6,
  burst: 500,
};

interface SimMeeting {
  botId: string;
  accountId: string;
  createdAt: number;
  endedAt: number;
  /** With 0 days, its deliveries are pending until then. */
  deliveredAt: number;
  deletedEarlyAt?: number;
  legacy: boolean;
  recorded: boolean;
}

interface Meter {
  indexReads: number;
  indexWrites: number;
  indexReadUnits: number;
  indexWriteUnits: number;
  queries: number;
  emptyQueries: number;
  sessionReads: number;
  accountReads: number;
  deliveryLists: number;
}

const newMeter = (): Meter => ({
  indexReads: 0,
  indexWrites: 0,
  indexReadUnits: 0,
  indexWriteUnits: 0,
  queries: 0,
  emptyQueries: 0,
  sessionReads: 0,
  accountReads: 0,
  deliveryLists: 0,
});

export interface RetentionSimResult {
  meetings: number;
  accounts: number;
  simulated_days: number;
  sweeps: number;
  deleted: number;
  deleted_early_by_customer: number;
  /** Minutes past its due time each meeting's content was deleted: the target is 60 at most. */
  lateness_minutes: { p50: number; p99: number; max: number };
  /** Deleted before it was due: must be 0. */
  deleted_too_early: number;
  /** Meetings still holding content at the end of the run, past their due time: must be 0. */
  missed: number;
  /** How many times the sweep read each meeting's session (1: looked at once, when due). */
  looks_per_meeting: { one: number; two: number; more: number; max: number };
  /** The sweep's simulated time per run (ms): its budget is what the sweeper leaves it. */
  sweep_ms: { p50: number; max: number; budget: number };
  sweeps_cut_off_by_deadline: number;
  /** The index: entries read by the sweep's Queries and written (added, moved, deleted), and request units. */
  /** The index's request units over the whole run, as counted (the DynamoDB rules above), and its empty Queries. */
  index_units: { read: number; write: number; empty_queries: number };
  per_day: {
    entries_read: number;
    entries_written: number;
    queries: number;
    read_units: number;
    write_units: number;
    session_reads: number;
    account_reads: number;
  };
  peak_day: { entries_read: number; entries_written: number; read_units: number; write_units: number };
  usd_per_day_on_demand: number;
  legacy_entries_left: number;
}

/** US East on-demand prices per million request units (2024-11), as bench/storage.ts. */
const usdPerMillion = { read: 0.125, write: 0.625 };

/**
 * Runs the scenario through `index` (the in-memory one for the 200,000; the DynamoDB adapter on dynalite in the
 * integration test). `sweepEveryMs` is the sweeper's period (1 minute as deployed); `budgetMs` the time each sweep
 * may take (as deployed: what the sweeper leaves it, retentionDeadline).
 */
export async function runRetentionSim(
  scenario: RetentionScenario,
  index: RetentionIndex & { addLegacy?(botId: string, due: string): void | Promise<void> },
  options: { sweepEveryMs?: number; latency?: boolean; budgetMs?: number } = {},
): Promise<RetentionSimResult> {
  const sweepEvery = options.sweepEveryMs ?? sweepPeriodMs;
  const withLatency = options.latency !== false;
  const charge = (ms: number) => {
    if (withLatency) clock.t += ms;
  };
  const random = seeded(scenario.seed);
  const start = Date.parse('2026-01-05T00:00:00.000Z');
  const clock = { t: start };
  const now = () => new Date(clock.t);

  // Accounts and their retention.
  const totalWeight = scenario.retentionDays.reduce((s, [, w]) => s + w, 0);
  const pickDays = () => {
    let r = random() * totalWeight;
    for (const [days, w] of scenario.retentionDays) {
      r -= w;
      if (r < 0) return days;
    }
    return scenario.retentionDays[0]![0];
  };
  const accountDays = new Map<string, number>();
  for (let a = 0; a < scenario.accounts; a++) accountDays.set(`acct-${a}`, pickDays());
  const accountIds = [...accountDays.keys()];

  // Meetings: weekdays' working hours mostly, a burst on one day, 30 minutes to 2 hours long.
  const meetings: SimMeeting[] = [];
  const burstDay = Math.floor(scenario.endsOverDays / 2);
  for (let i = 0; i < scenario.meetings; i++) {
    let endedAt: number;
    if (i < scenario.burst) endedAt = start + burstDay * dayMs + 14 * 3600_000 + random() * 3600_000;
    else {
      const day = Math.floor(random() * scenario.endsOverDays);
      const working = random() < 0.8;
      const hour = working ? 8 + random() * 10 : random() * 24;
      endedAt = start + day * dayMs + hour * 3600_000;
    }
    const createdAt = endedAt - (30 + random() * 90) * minuteMs;
    const accountId = accountIds[Math.floor(random() ** 2 * accountIds.length)]!;
    const hex = Math.floor(random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
    meetings.push({
      botId: `${hex}-0000-4000-8000-${String(i).padStart(12, '0')}`,
      accountId,
      createdAt,
      endedAt,
      // Most are delivered within a minute; some webhooks are retried for hours.
      deliveredAt: endedAt + (random() < 0.9 ? random() * minuteMs : random() * 12 * 3600_000),
      ...(random() < scenario.deletedEarlyShare && { deletedEarlyAt: endedAt + random() * 3600_000 }),
      legacy: random() < scenario.legacyShare,
      recorded: random() < 0.5,
    });
  }
  const byId = new Map(meetings.map((m) => [m.botId, m]));

  // Retention changes: at a random time, an account's retention is shortened or lengthened (the admin CLI re-dates a
  // shortened one's meetings, as it does).
  type Change = { at: number; accountId: string; days: number };
  const changes: Change[] = [];
  for (let c = 0; c < scenario.retentionChanges; c++) {
    const accountId = accountIds[Math.floor(random() * accountIds.length)]!;
    const at = start + random() * scenario.endsOverDays * dayMs;
    const from = accountDays.get(accountId)!;
    const days = c % 2 === 0 ? Math.floor(from / 3) : from * 2 + 1;
    changes.push({ at, accountId, days });
  }

  // The world the sweep reads, as stored.
  const sessions = new Map<string, BotSession>();
  const sessionsOf = new Map<string, BotSession[]>();
  const days = new Map(accountDays);
  const deletedAt = new Map<string, number>();
  const looks = new Map<string, number>();
  const meter = newMeter();
  const daily = new Map<number, Meter>();
  const dayMeter = () => {
    const d = Math.floor((clock.t - start) / dayMs);
    const m = daily.get(d) ?? newMeter();
    daily.set(d, m);
    return m;
  };
  const count = (f: (m: Meter) => void) => {
    f(meter);
    f(dayMeter());
  };
  const sent: OutboxMessage[] = [];

  const meteredIndex: RetentionIndex = {
    shards: index.shards,
    async add(botId, due) {
      charge(latencyMs.putItem);
      count((m) => {
        m.indexWrites++;
        m.indexWriteUnits++;
      });
      await index.add(botId, due);
    },
    async listDue(part, upTo, limit, after) {
      charge(latencyMs.query);
      const page = await index.listDue(part, upTo, limit, after);
      count((m) => {
        m.queries++;
        if (page.entries.length === 0) m.emptyQueries++;
        m.indexReads += page.entries.length;
        m.indexReadUnits += queryReadUnits(page.entries.length);
      });
      return page;
    },
    // The adapters' own move: a put, then a delete, each metered as above.
    move: (entry, due) => moveRetentionEntry(meteredIndex, entry, due),
    async clear(entry) {
      charge(latencyMs.deleteItem);
      count((m) => {
        m.indexWrites++;
        m.indexWriteUnits++;
      });
      await index.clear(entry);
    },
  };

  const stores = {
    retention: meteredIndex,
    accounts: {
      get: async (accountId: string) => {
        charge(latencyMs.getItem);
        count((m) => m.accountReads++);
        const d = days.get(accountId);
        return d === undefined ? null : ({ accountId, retentionDays: d } as never);
      },
    },
    sessions: {
      get: async (botId: string) => {
        charge(latencyMs.getItem);
        count((m) => m.sessionReads++);
        looks.set(botId, (looks.get(botId) ?? 0) + 1);
        const s = sessions.get(botId);
        return s ? { ...s } : null;
      },
      purgeContent: async () => charge(latencyMs.updateItem),
      listForAccount: async (
        accountId: string,
        o: { limit: number; before?: { createdAt: string; botId: string } },
      ) => {
        charge(latencyMs.query);
        // Newest first, as the account's list of bots is read.
        const all = [...(sessionsOf.get(accountId) ?? [])].sort((a, b) =>
          a.createdAt < b.createdAt ? 1 : -1,
        );
        const from = o.before ? all.findIndex((s) => s.botId === o.before!.botId) + 1 : 0;
        const page = all.slice(from, from + o.limit);
        const last = page[page.length - 1];
        return {
          sessions: page,
          ...(page.length === o.limit && last && { next: { createdAt: last.createdAt, botId: last.botId } }),
        };
      },
    },
    deletions: {
      mark: async (botId: string, at: Date) => {
        charge(latencyMs.transactWrite);
        const s = sessions.get(botId);
        if (!s) return { outcome: 'not_found' as const };
        if (s.dataDeletedAt) return { outcome: 'already' as const, dataDeletedAt: s.dataDeletedAt };
        s.dataDeletedAt = at.toISOString();
        deletedAt.set(botId, at.getTime());
        return { outcome: 'marked' as const, dataDeletedAt: s.dataDeletedAt };
      },
      finished: async () => charge(latencyMs.deleteItem),
    },
    transcripts: {
      purgePage: async () => {
        charge(latencyMs.purgePage);
        return undefined;
      },
    },
    deliveries: {
      purgeContent: async () => {
        charge(latencyMs.purgePage);
        return undefined;
      },
      list: async (botId: string) => {
        charge(latencyMs.query);
        count((m) => m.deliveryLists++);
        return [{ status: clock.t < byId.get(botId)!.deliveredAt ? 'pending' : 'delivered' }];
      },
    },
  };
  const log = createLogger('silent');
  const deps = (deadline: Date) =>
    ({
      stores,
      config: { RETENTION_DAYS: 30 },
      recordings: { deleteAll: async () => charge(latencyMs.s3DeleteAll) },
      outbox: {
        send: async (m: OutboxMessage) => {
          charge(latencyMs.sqsSend);
          sent.push(m);
        },
      },
      log,
      now,
      deadline,
    }) as unknown as RetentionDeps;

  // Every event of the world in time order: ends (the end lists the meeting), customers' deletions, retention changes.
  type WorldEvent = { at: number; run: () => Promise<void> };
  const events: WorldEvent[] = [];
  for (const m of meetings) {
    events.push({
      at: m.endedAt,
      run: async () => {
        const ended = new Date(m.endedAt).toISOString();
        const session = {
          botId: m.botId,
          accountId: m.accountId,
          status: 'completed',
          createdAt: new Date(m.createdAt).toISOString(),
          startedAt: new Date(m.createdAt).toISOString(),
          leftAt: ended,
          completedAt: ended,
          ...(m.recorded && { recording: { audio: true } }),
        } as BotSession;
        sessions.set(m.botId, session);
        const list = sessionsOf.get(m.accountId) ?? [];
        list.push(session);
        sessionsOf.set(m.accountId, list);
        // An earlier version listed it in the single partition, due at its creation; this one at its due time.
        if (m.legacy && index.addLegacy) await index.addLegacy(m.botId, new Date(m.createdAt).toISOString());
        else await listForRetention({ stores: stores as never, config: { RETENTION_DAYS: 30 } }, m, ended);
      },
    });
    if (m.deletedEarlyAt !== undefined) {
      const at = m.deletedEarlyAt;
      events.push({
        at,
        run: async () => {
          const s = sessions.get(m.botId)!;
          s.dataDeletedAt = new Date(at).toISOString();
        },
      });
    }
  }
  const changedAt = new Map<string, { at: number; from: number; to: number }[]>();
  for (const c of changes) {
    events.push({
      at: c.at,
      run: async () => {
        const from = days.get(c.accountId)!;
        days.set(c.accountId, c.days);
        const list = changedAt.get(c.accountId) ?? [];
        list.push({ at: c.at, from, to: c.days });
        changedAt.set(c.accountId, list);
        await redateRetention({ stores: stores as never, now }, c.accountId, from, c.days);
      },
    });
  }
  events.sort((a, b) => a.at - b.at);

  // The run: the world's events between sweeps, a sweep every period, until every meeting is due and past an hour.
  const maxDays = Math.max(...days.values(), ...changes.map((c) => c.days));
  const lastEnd = events[events.length - 1]!.at;
  const end = lastEnd + maxDays * dayMs + dayMs;
  const sweepMs: number[] = [];
  let cutOff = 0;
  let next = 0;
  const budget = options.budgetMs ?? retentionDeadline(new Date(0)).getTime();
  for (let tick = start; tick <= end; tick += sweepEvery) {
    while (next < events.length && events[next]!.at <= tick) {
      const e = events[next++]!;
      clock.t = e.at;
      await e.run();
    }
    clock.t = tick;
    const swept = await sweepRetention(deps(new Date(tick + budget)));
    sweepMs.push(clock.t - tick);
    if (swept.unfinished) cutOff++;
  }

  // What each meeting should have had: deleted at its end plus its account's retention in force at the deletion (or
  // at the end of the run), never before its deliveries were done when that is 0 days.
  const lateness: number[] = [];
  let tooEarly = 0;
  let missed = 0;
  let deletedEarly = 0;
  /** The account's retention at `at`, and since when it was in force. */
  const daysAt = (m: SimMeeting, at: number) => {
    let d = accountDays.get(m.accountId)!;
    let since = start;
    for (const c of changedAt.get(m.accountId) ?? [])
      if (c.at <= at) {
        d = c.to;
        since = c.at;
      }
    return { d, since };
  };
  for (const m of meetings) {
    if (m.deletedEarlyAt !== undefined) {
      deletedEarly++;
      continue;
    }
    const at = deletedAt.get(m.botId);
    const { d, since } = daysAt(m, at ?? end);
    // A shortened retention makes an older meeting due when it is set, not before.
    let due = Math.max(m.endedAt + d * dayMs, since);
    if (d === 0) due = Math.max(due, m.deliveredAt);
    if (at === undefined) {
      if (due < end - 3600_000) missed++;
      continue;
    }
    if (at < due) tooEarly++;
    lateness.push((at - due) / minuteMs);
  }
  lateness.sort((a, b) => a - b);
  const lookCounts = meetings.map((m) => looks.get(m.botId) ?? 0);
  sweepMs.sort((a, b) => a - b);
  const simulatedDays = (end - start) / dayMs;
  const perDay = (v: number) => Math.round((v / simulatedDays) * 10) / 10;
  const peak = [...daily.values()].reduce(
    (p, m) => ({
      entries_read: Math.max(p.entries_read, m.indexReads),
      entries_written: Math.max(p.entries_written, m.indexWrites),
      read_units: Math.max(p.read_units, m.indexReadUnits),
      write_units: Math.max(p.write_units, m.indexWriteUnits),
    }),
    { entries_read: 0, entries_written: 0, read_units: 0, write_units: 0 },
  );
  const readUnitsPerDay = meter.indexReadUnits / simulatedDays;
  const writeUnitsPerDay = meter.indexWriteUnits / simulatedDays;
  const pct = (q: number) =>
    round1(lateness[Math.min(lateness.length - 1, Math.floor(q * lateness.length))] ?? 0);
  return {
    meetings: scenario.meetings,
    accounts: scenario.accounts,
    simulated_days: Math.round(simulatedDays),
    sweeps: sweepMs.length,
    deleted: deletedAt.size,
    deleted_early_by_customer: deletedEarly,
    lateness_minutes: { p50: pct(0.5), p99: pct(0.99), max: round1(lateness[lateness.length - 1] ?? 0) },
    deleted_too_early: tooEarly,
    missed,
    looks_per_meeting: {
      one: lookCounts.filter((n) => n === 1).length,
      two: lookCounts.filter((n) => n === 2).length,
      more: lookCounts.filter((n) => n > 2).length,
      max: lookCounts.reduce((a, b) => Math.max(a, b), 0),
    },
    sweep_ms: {
      p50: sweepMs[Math.floor(sweepMs.length / 2)] ?? 0,
      max: sweepMs[sweepMs.length - 1] ?? 0,
      budget,
    },
    sweeps_cut_off_by_deadline: cutOff,
    index_units: {
      read: meter.indexReadUnits,
      write: meter.indexWriteUnits,
      empty_queries: meter.emptyQueries,
    },
    per_day: {
      entries_read: perDay(meter.indexReads),
      entries_written: perDay(meter.indexWrites),
      queries: perDay(meter.queries),
      read_units: perDay(meter.indexReadUnits),
      write_units: perDay(meter.indexWriteUnits),
      session_reads: perDay(meter.sessionReads),
      account_reads: perDay(meter.accountReads),
    },
    peak_day: peak,
    usd_per_day_on_demand:
      Math.round(
        ((readUnitsPerDay * usdPerMillion.read + writeUnitsPerDay * usdPerMillion.write) / 1e6) * 1e4,
      ) / 1e4,
    legacy_entries_left: (await index.listDue('legacy', new Date(end + 1e12).toISOString(), 1)).entries
      .length,
  };
}

const round1 = (v: number) => Math.round(v * 10) / 10;
