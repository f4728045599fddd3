// Use case: delete a meeting's content and keep its tombstone. The customer (DELETE /api/bot/{bot_id}/data), an
// operator (admin CLI) and the account's retention (the sweeper) all come here, so all three delete the same set. A
// deletion works in bounded steps up to a deadline; one cut off (its deadline, a timeout, a crash) stays listed as
// pending and the sweeper finishes it (finishPendingDeletions).
import { type BotSession, recordsAudio } from '../bots/session';
import { lifecycleEvent } from '../control/messages';
import type { Outbox } from '../control/outbox';
import type { Stores } from '../deps';
import { ApiError, notFound } from '../errors';
import type { Logger } from '../log';
import type { PendingDeletion, PurgeCursor } from '../ports/data-deletions';
import type { RecordingStore } from '../ports/recordings';
import type { DataDeletion } from '../schemas/bot-views';

/**
 * One place a meeting's content lives. Deletion purges every store of the list, in order, one bounded step at a time;
 * each step is idempotent (a repeat, or a retry after a crash half-way, purges what is left).
 */
export interface MeetingContentStore {
  readonly name: string;
  /** Whether the session can have content here at all (none: every session); a store it cannot is not called. */
  holdsContentOf?(session: Pick<BotSession, 'recording'>): boolean;
  /** Purges one step from `from` (a page); returns where the next step starts, undefined when nothing is left. */
  purge(botId: string, at: Date, from?: PurgeCursor): Promise<PurgeCursor | undefined>;
}

/** Who asked: the account (the API), an operator (admin CLI), or the account's retention. */
export type DeletionReason = 'requested' | 'operator' | 'retention';

/**
 * How long the API's deletion purges before it answers `deleting` and leaves the rest to the sweeper: the data
 * function has 10 s (infra/limits.ts, route functions); the authentication, the session's read, the mark and the event
 * come before, and one step (a page: a Query and its writes, or the recording's objects) may still be under way when
 * the deadline passes.
 */
export const requestDeletionBudgetMs = 6_000;

/** How long one sweep spends finishing cut-off deletions, of the sweeper's 60 s shared with its other steps. */
export const sweepDeletionBudgetMs = 15_000;

/**
 * A deletion still pending this long after it began was cut off: the data function's own run is far shorter. A younger
 * one may still be purging (a second purge would be harmless, only wasted), or be between its entry's write and its
 * tombstone's, which must not be taken for a deletion that never got its tombstone.
 */
export const pendingDeletionGraceMs = 60_000;

/**
 * Every store holding a meeting's content: the transcript segments (the transcript's only copy, live or final), the
 * payloads of stored webhook and e-mail deliveries, the recording's objects, and last the session's own content
 * (results, prompts, greeting, e-mail address, the recording's description; the tombstone stays). Every caller (the
 * API, the admin CLI, retention, the sweeper's finishing) gets this one list, so none can miss a store.
 */
export function meetingContentStores(
  stores: Pick<Stores, 'sessions' | 'transcripts' | 'deliveries'>,
  recordings: Pick<RecordingStore, 'deleteAll'>,
): MeetingContentStore[] {
  return [
    { name: 'transcript_segments', purge: (botId, _at, from) => stores.transcripts.purgePage(botId, from) },
    {
      name: 'delivery_payloads',
      purge: (botId, at, from) => stores.deliveries.purgeContent(botId, at, from),
    },
    {
      name: 'recording',
      // A session that never asked for a recording has no objects: the bucket is not asked.
      holdsContentOf: recordsAudio,
      // One step: the store deletes a session's objects a listing page at a time (1,000 keys), seconds at most.
      purge: async (botId) => void (await recordings.deleteAll(botId)),
    },
    { name: 'session_content', purge: async (botId) => void (await stores.sessions.purgeContent(botId)) },
  ];
}

export interface DataDeletionDeps {
  stores: Pick<Stores, 'sessions' | 'transcripts' | 'deliveries' | 'deletions'>;
  /** The recording's pieces and file (S3, or files locally): required, so no caller deletes less than the others. */
  recordings: Pick<RecordingStore, 'deleteAll'>;
  /** Where `bot.data_deleted` goes (the bot-events queue). */
  outbox: Outbox;
  log: Logger;
  now: () => Date;
  /**
   * No step begins after this time (`now()` is asked): the rest is left pending for the sweeper. None: every step runs
   * (the admin CLI; retention, whose sweeper's timeout leaves a cut-off deletion pending all the same).
   */
  deadline?: Date;
}

/**
 * Purges `session`'s content store by store, page by page, until done (true) or the deadline passed between two steps
 * (false: the deletion stays pending).
 */
export async function purgeMeetingContent(
  deps: Pick<DataDeletionDeps, 'stores' | 'recordings' | 'now' | 'deadline'>,
  session: Pick<BotSession, 'botId' | 'recording'>,
  at: Date,
): Promise<boolean> {
  const pastDeadline = () => deps.deadline !== undefined && deps.now().getTime() >= deps.deadline.getTime();
  for (const store of meetingContentStores(deps.stores, deps.recordings)) {
    if (store.holdsContentOf && !store.holdsContentOf(session)) continue;
    let from: PurgeCursor | undefined;
    do {
      if (pastDeadline()) return false;
      from = await store.purge(session.botId, at, from);
    } while (from);
  }
  return true;
}

/**
 * Deletes `session`'s content: lists the deletion as pending and marks the tombstone (readers show it at once, and a
 * running bot can never be marked), announces it, then purges every content store up to the deadline. Done: the entry
 * goes, and the answer is `data_deleted`; cut off by the deadline: `deleting`, and the sweeper finishes it. Idempotent:
 * a repeat purges again (finishing a pending one) and answers the first time. `bot.data_deleted` goes out once, when the
 * mark is new, before the purges, so a deletion cut off after it is still announced.
 */
export async function deleteMeetingData(
  deps: DataDeletionDeps,
  session: Pick<BotSession, 'botId' | 'accountId' | 'webhookUrl' | 'webhookEvents' | 'recording'>,
  reason: DeletionReason,
): Promise<DataDeletion> {
  const now = deps.now();
  const mark = await deps.stores.deletions.mark(session.botId, now);
  if (mark.outcome === 'not_found') throw notFound(session.botId);
  if (mark.outcome === 'running' || !mark.dataDeletedAt) {
    throw new ApiError('bot_running', `bot ${session.botId} is still running; stop it first`);
  }
  const deletedAt = mark.dataDeletedAt;
  const log = deps.log.child({ bot_id: session.botId, account_id: session.accountId });
  if (mark.outcome === 'marked') {
    await deps.outbox.send(
      lifecycleEvent(session, {
        event: 'bot.data_deleted',
        at: deletedAt,
        detail: reason,
        data: { reason, data_deleted_at: deletedAt },
      }),
    );
  }
  const done = await purgeMeetingContent(deps, session, now);
  // Its own entry, and a repeat's also the first deletion's (keyed by the tombstone's time): every purge is done.
  if (done)
    await deps.stores.deletions.finished(
      { botId: session.botId, startedAt: now.toISOString() },
      ...(mark.outcome === 'already' ? [{ botId: session.botId, startedAt: deletedAt }] : []),
    );
  const fields = { reason, data_deleted_at: deletedAt, finished: done };
  if (mark.outcome === 'marked') log.info('meeting data deleted', fields);
  else log.info('meeting data deletion repeated', fields);
  return { bot_id: session.botId, status: done ? 'data_deleted' : 'deleting', data_deleted_at: deletedAt };
}

export interface PendingDeletionsSweep {
  /** Bots whose cut-off deletion this sweep finished. */
  finished: string[];
  /** Bots whose deletion failed again (logged); they stay pending for the next sweep. */
  failed: string[];
}

/**
 * The sweeper's step: finishes deletions cut off half-way (begun over pendingDeletionGraceMs ago), oldest first, up to
 * `batch` of them and until the deadline; what is left stays pending for the next sweep. A deletion's tombstone is in
 * place already, so nothing is announced again; a session that no longer exists only loses its entry.
 */
export async function finishPendingDeletions(
  deps: Omit<DataDeletionDeps, 'outbox'>,
  batch = 25,
): Promise<PendingDeletionsSweep> {
  const now = deps.now();
  const pending = await deps.stores.deletions.listPending(
    new Date(now.getTime() - pendingDeletionGraceMs).toISOString(),
    batch,
  );
  const result: PendingDeletionsSweep = { finished: [], failed: [] };
  for (const entry of pending) {
    try {
      if (!(await finishOne(deps, entry))) break;
      result.finished.push(entry.botId);
    } catch (err) {
      result.failed.push(entry.botId);
      deps.log.error('a pending data deletion failed again; it stays pending', { bot_id: entry.botId, err });
    }
  }
  return result;
}

async function finishOne(deps: Omit<DataDeletionDeps, 'outbox'>, entry: PendingDeletion): Promise<boolean> {
  const session = await deps.stores.sessions.get(entry.botId);
  // An entry is written just before its tombstone (DataDeletionsStore.mark): one without, past the grace, is a
  // deletion that never got its tombstone (a crash between the two writes), so nothing was asked to go.
  const deleting = session?.dataDeletedAt !== undefined;
  if (session && deleting && !(await purgeMeetingContent(deps, session, new Date(entry.startedAt))))
    return false;
  await deps.stores.deletions.finished(entry);
  deps.log.info(
    deleting ? 'pending meeting data deletion finished' : 'pending deletion without a tombstone dropped',
    { bot_id: entry.botId, ...(session && { account_id: session.accountId }), started_at: entry.startedAt },
  );
  return true;
}
