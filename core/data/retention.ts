// Use case: keep a meeting's content no longer than its account asks. Each sweep looks at the bots whose retention
// entry is due, and deletes the content of those past the account's retention_days exactly as a customer's deletion
// does (core/data/delete-meeting-data.ts); the tombstone stays.
import type { Config } from '../config';
import type { Stores } from '../deps';
import type { RetentionDue } from '../ports/sessions-store';
import { type DataDeletionDeps, deleteMeetingData } from './delete-meeting-data';

/** What an account's `retention_days` may be: 0 (delete once delivered) to ten years. */
export const retentionDaysBounds = { min: 0, max: 3650 } as const;

const dayMs = 24 * 3600 * 1000;
/**
 * A running bot's entry is looked at again this much later. Its end writes the entry before the final write, so the
 * sweep can find a session still running for a moment (or until the end's retry, when the final write failed); the
 * entry must stay for the end, never be deleted. Entries written at the join by earlier versions land here too.
 */
const runningRecheckMs = 3600 * 1000;
/** With retention 0, a bot whose deliveries are still being tried is looked at again this much later. */
const pendingRecheckMs = 60 * 1000;
/**
 * A kept bot is looked at again at least this often, so an account's shorter retention applies to its older
 * meetings within a day.
 */
const keptRecheckMs = dayMs;

export interface RetentionDeps extends DataDeletionDeps {
  stores: DataDeletionDeps['stores'] & Pick<Stores, 'accounts'>;
  config: Pick<Config, 'RETENTION_DAYS'>;
}

export interface RetentionSweep {
  /** Bots whose content this sweep deleted. */
  deleted: string[];
  /** Bots whose look failed (logged); their entries stay due for the next sweep. */
  failed: string[];
}

/** One sweep: up to `batch` due bots, each deleted, moved to its next look, or left for the next sweep on failure. */
export async function sweepRetention(deps: RetentionDeps, batch = 100): Promise<RetentionSweep> {
  const now = deps.now();
  const due = await deps.stores.sessions.listRetentionDue(now.toISOString(), batch);
  const result: RetentionSweep = { deleted: [], failed: [] };
  const accountDays = new Map<string, number>();
  for (const entry of due) {
    try {
      if (await lookAt(deps, entry, now, accountDays)) result.deleted.push(entry.botId);
    } catch (err) {
      result.failed.push(entry.botId);
      deps.log.error('retention sweep could not handle a bot; it stays due', { bot_id: entry.botId, err });
    }
  }
  return result;
}

async function lookAt(
  deps: RetentionDeps,
  entry: RetentionDue,
  now: Date,
  accountDays: Map<string, number>,
): Promise<boolean> {
  const { sessions, accounts, deliveries } = deps.stores;
  const later = (ms: number) => sessions.moveRetentionDue(entry, new Date(ms).toISOString());
  const session = await sessions.get(entry.botId);
  if (!session || session.dataDeletedAt) {
    await sessions.clearRetentionDue(entry);
    return false;
  }
  if (session.status === 'running') {
    await later(now.getTime() + runningRecheckMs);
    return false;
  }
  let days = accountDays.get(session.accountId);
  if (days === undefined) {
    days = (await accounts.get(session.accountId))?.retentionDays ?? deps.config.RETENTION_DAYS;
    accountDays.set(session.accountId, days);
  }
  const ended = Date.parse(session.completedAt ?? session.leftAt ?? session.createdAt);
  const expires = ended + days * dayMs;
  if (expires > now.getTime()) {
    await later(Math.min(expires, now.getTime() + keptRecheckMs));
    return false;
  }
  // 0 days: deleted as soon as it was delivered (or given up on), never before the customer had it.
  if (days === 0 && (await deliveries.list(entry.botId)).some((d) => d.status === 'pending')) {
    await later(now.getTime() + pendingRecheckMs);
    return false;
  }
  await deleteMeetingData(deps, session, 'retention');
  await sessions.clearRetentionDue(entry);
  return true;
}
