// Use case: keep a meeting's content no longer than its account asks. A meeting's end lists it in the retention index
// at its due time (the end plus the account's retention_days); each sweep reads every shard's due entries, page by
// page within its time, and deletes the content of each exactly as a customer's deletion does
// (core/data/delete-meeting-data.ts); the tombstone stays. Design and migration: docs/data-retention.md.
import type { BotSession } from '../bots/session';
import type { Config } from '../config';
import type { Stores } from '../deps';
import {
  type RetentionEntry,
  type RetentionIndex,
  type RetentionPart,
  retentionShardOf,
} from '../ports/retention-index';
import { type DataDeletionDeps, deleteMeetingData } from './delete-meeting-data';

/** What an account's `retention_days` may be: 0 (delete once delivered) to ten years. */
export const retentionDaysBounds = { min: 0, max: 3650 } as const;

const dayMs = 24 * 3600 * 1000;
/**
 * A session found still running when its entry came due: its end writes the entry before its final write, so the
 * sweep can meet one between the two (or until the end's retry, when the final write failed). Looked at again this
 * much later; the entry stays for the end, never deleted.
 */
const runningRecheckMs = 10 * 60 * 1000;
/**
 * With retention 0, a meeting whose deliveries are still being tried is looked at again after as long as it has
 * waited so far, between these bounds: a few looks an hour at most during a webhook's 76 hours of retries, and the
 * content gone within half an hour (and a sweep period) of its last delivery.
 */
const pendingRecheckMs = { min: 60 * 1000, max: 30 * 60 * 1000 } as const;
/** Entries read by one Query: a look takes longer than reading a page, so a small page loses nothing. */
const pageSize = 50;
/**
 * The retention sweep's share of the sweeper's 60 s (infra/limits.ts), where no Lambda context says what is left (the
 * local stack, the benchmark): after the stale-heartbeat sweep, the holds and the pending deletions (up to
 * sweepDeletionBudgetMs), with 10 s to spare for the look in flight when it runs out.
 */
export const retentionSweepBudgetMs = 30_000;
/** Left of the function's time when the sweep stops beginning looks: the look in flight ends, and the metrics go out. */
const spareMs = 10_000;

/**
 * When the retention sweep stops: `remainingMs` before the function's timeout (Lambda's getRemainingTimeInMillis) less
 * what it must keep spare, or retentionSweepBudgetMs from now where nothing says.
 */
export function retentionDeadline(now: Date, remainingMs?: number): Date {
  return new Date(
    now.getTime() + (remainingMs === undefined ? retentionSweepBudgetMs : remainingMs - spareMs),
  );
}

export interface RetentionDeps extends DataDeletionDeps {
  stores: DataDeletionDeps['stores'] & Pick<Stores, 'accounts' | 'retention'>;
  config: Pick<Config, 'RETENTION_DAYS'>;
  /**
   * No look begins at or after it, and a deletion under way stops its purges there (its pending entry has the sweeper
   * finish it): what is still due waits for the next sweep.
   */
  deadline: Date;
}

export interface RetentionSweep {
  /** Bots whose content this sweep deleted. */
  deleted: string[];
  /** Bots whose look failed (logged); their entries stay due for the next sweep. */
  failed: string[];
  /** Entries looked at (deleted, re-dated, cleared or failed). */
  looked: number;
  /** The sweep stopped at its deadline with entries still due: the next sweep goes on with them. */
  unfinished: boolean;
}

/**
 * Lists an ending session for the sweep, due at its end plus its account's retention: written by every end before its
 * final write, so a retry writes it again (a retry's later end time adds a second entry; the first, looked at, is
 * moved onto the second).
 */
export async function listForRetention(
  deps: { stores: Pick<Stores, 'accounts' | 'retention'>; config: Pick<Config, 'RETENTION_DAYS'> },
  session: Pick<BotSession, 'botId' | 'accountId'>,
  endedAt: string,
): Promise<void> {
  const days = await retentionDaysOf(deps, session.accountId);
  await deps.stores.retention.add(session.botId, dueAt(endedAt, days));
}

/** When a meeting that ended at `endedAt` is due to go, with `days` of retention. */
export function dueAt(endedAt: string, days: number): string {
  return new Date(Date.parse(endedAt) + days * dayMs).toISOString();
}

/**
 * One sweep: every shard of the index (and the old single partition) read side by side, each page by page, every due
 * entry looked at once, until the deadline.
 */
export async function sweepRetention(deps: RetentionDeps): Promise<RetentionSweep> {
  const now = deps.now();
  const upTo = now.toISOString();
  const index = deps.stores.retention;
  const result: RetentionSweep = { deleted: [], failed: [], looked: 0, unfinished: false };
  const accountDays = new Map<string, Promise<number>>();
  const days = (accountId: string) => {
    const known = accountDays.get(accountId) ?? retentionDaysOf(deps, accountId);
    accountDays.set(accountId, known);
    return known;
  };
  /** Past the deadline: what is still due waits for the next sweep. */
  const outOfTime = () => {
    if (deps.now().getTime() < deps.deadline.getTime()) return false;
    result.unfinished = true;
    return true;
  };

  const sweepPart = async (part: RetentionPart) => {
    let after: RetentionEntry | undefined;
    do {
      if (outOfTime()) return;
      const page = await index.listDue(part, upTo, pageSize, after);
      for (const entry of page.entries) {
        if (outOfTime()) return;
        result.looked++;
        try {
          if (await lookAt(deps, entry, days)) result.deleted.push(entry.botId);
        } catch (err) {
          result.failed.push(entry.botId);
          deps.log.error('retention sweep could not handle a bot; it stays due', {
            bot_id: entry.botId,
            err,
          });
        }
      }
      after = page.next;
    } while (after);
  };
  // A part whose Query fails (throttled) waits for the next sweep; the other parts go on.
  await Promise.all(
    [...partsOf(index)].map((part) =>
      sweepPart(part).catch((err) => {
        result.unfinished = true;
        deps.log.error('retention sweep could not read a part of its index; it is read again next sweep', {
          part,
          err,
        });
      }),
    ),
  );
  return result;
}

/** The shards, then the single partition of earlier versions. */
function* partsOf(index: RetentionIndex): Iterable<RetentionPart> {
  for (let shard = 0; shard < index.shards; shard++) yield shard;
  yield 'legacy';
}

/**
 * Looks at one due entry: deleted (true), or re-dated, or cleared. The account's retention is read now, not taken
 * from the entry: a lengthened retention moves the entry to its new time; a shortened one was re-dated when it was
 * set (redateRetention).
 */
async function lookAt(
  deps: RetentionDeps,
  entry: RetentionEntry,
  daysOf: (accountId: string) => Promise<number>,
): Promise<boolean> {
  const { sessions, deliveries, retention } = deps.stores;
  const now = deps.now().getTime();
  const session = await sessions.get(entry.botId);
  // Deleted by its customer before it was due, or gone: nothing left to keep or delete.
  if (!session || session.dataDeletedAt) {
    await retention.clear(entry);
    return false;
  }
  if (session.status === 'running') {
    await retention.move(entry, new Date(now + runningRecheckMs).toISOString());
    return false;
  }
  const ended = endOf(session);
  const days = await daysOf(session.accountId);
  const expires = dueAt(ended, days);
  if (Date.parse(expires) > now) {
    await retention.move(entry, expires);
    return false;
  }
  // 0 days: deleted as soon as it was delivered (or given up on), never before the customer had it.
  if (days === 0 && (await deliveries.list(entry.botId)).some((d) => d.status === 'pending')) {
    const waited = now - Date.parse(ended);
    const wait = Math.min(pendingRecheckMs.max, Math.max(pendingRecheckMs.min, waited));
    await retention.move(entry, new Date(now + wait).toISOString());
    return false;
  }
  await deleteMeetingData(deps, session, 'retention');
  await retention.clear(entry);
  return true;
}

/** When the meeting ended, as the end's entry was dated: its completion (completed or failed). */
function endOf(session: Pick<BotSession, 'completedAt' | 'leftAt' | 'createdAt'>): string {
  return session.completedAt ?? session.leftAt ?? session.createdAt;
}

async function retentionDaysOf(
  deps: { stores: Pick<Stores, 'accounts'>; config: Pick<Config, 'RETENTION_DAYS'> },
  accountId: string,
): Promise<number> {
  return (await deps.stores.accounts.get(accountId))?.retentionDays ?? deps.config.RETENTION_DAYS;
}

/**
 * Re-dates an account's retained meetings after its retention was shortened from `fromDays` to `toDays` (the admin
 * CLI, as it sets it): each ended meeting still kept is moved to its end plus `toDays`, so none waits for the longer
 * time. Reads the account's bots newest first and stops at the first created before any still kept could be. A
 * lengthened retention needs none: the sweep moves each entry on when it comes due. Idempotent: run again, it moves
 * nothing further. Returns how many entries it moved.
 */
export async function redateRetention(
  deps: { stores: Pick<Stores, 'sessions' | 'retention'>; now: () => Date },
  accountId: string,
  fromDays: number,
  toDays: number,
): Promise<number> {
  if (toDays >= fromDays) return 0;
  const now = deps.now().getTime();
  // A session lasts at most two days (its safety cap, with replacements): one created before this ended before
  // `now - fromDays` and is due already under the old retention.
  const oldest = new Date(now - fromDays * dayMs - 2 * dayMs).toISOString();
  const { sessions, retention } = deps.stores;
  let moved = 0;
  let before: { createdAt: string; botId: string } | undefined;
  for (;;) {
    const page = await sessions.listForAccount(accountId, { limit: 100, ...(before && { before }) });
    for (const session of page.sessions) {
      if (session.createdAt < oldest) return moved;
      if (session.status === 'running') continue;
      const ended = endOf(session);
      const was = dueAt(ended, fromDays);
      if (Date.parse(was) <= now) continue;
      const entry = {
        botId: session.botId,
        due: was,
        part: retentionShardOf(session.botId, retention.shards),
      };
      await retention.move(entry, dueAt(ended, toDays));
      moved++;
    }
    if (!page.next) return moved;
    before = page.next;
  }
}
