// Use case: delete a meeting's content and keep its tombstone. The customer (DELETE /api/bot/{bot_id}/data), an
// operator (admin CLI) and the account's retention (the sweeper) all come here, so all three delete the same set.
import { type BotSession, recordsAudio } from '../bots/session';
import type { Outbox } from '../control/outbox';
import type { Stores } from '../deps';
import { ApiError, notFound } from '../errors';
import type { Logger } from '../log';
import type { RecordingStore } from '../ports/recordings';
import type { DataDeletion } from '../schemas/api';

/**
 * One place a meeting's content lives. Deletion purges every store of the list, in order; each purge is
 * idempotent (a repeat, or a retry after a crash half-way, purges what is left).
 */
export interface MeetingContentStore {
  readonly name: string;
  /** Whether the session can have content here at all (none: every session); a store it cannot is not called. */
  holdsContentOf?(session: Pick<BotSession, 'recording'>): boolean;
  purge(botId: string, at: Date): Promise<void>;
}

/** Who asked: the account (the API), an operator (admin CLI), or the account's retention. */
export type DeletionReason = 'requested' | 'operator' | 'retention';

/**
 * Every store holding a meeting's content: the transcript segments (the transcript's only copy, live or final), the
 * payloads of stored webhook and e-mail deliveries, the recording's objects, and last the session's results (Q&A
 * pairs, insights; the tombstone stays). The session's own purge runs last so a half-done deletion is still visible
 * as unfinished content. Every caller (the API, the admin CLI, retention) gets this one list, so none can miss a store.
 */
export function meetingContentStores(
  stores: Pick<Stores, 'sessions' | 'transcripts' | 'deliveries'>,
  recordings: Pick<RecordingStore, 'deleteAll'>,
): MeetingContentStore[] {
  return [
    { name: 'transcript_segments', purge: async (botId) => void (await stores.transcripts.deleteAll(botId)) },
    {
      name: 'delivery_payloads',
      purge: async (botId, at) => void (await stores.deliveries.purgeContent(botId, at)),
    },
    recordingContent(recordings),
    { name: 'session_results', purge: (botId) => stores.sessions.purgeContent(botId) },
  ];
}

/** The recording's objects (its pieces and the assembled file): deleted with the rest of the meeting's content. */
function recordingContent(recordings: Pick<RecordingStore, 'deleteAll'>): MeetingContentStore {
  return {
    name: 'recording',
    // A session that never asked for a recording has no objects: the bucket is not asked.
    holdsContentOf: recordsAudio,
    purge: (botId) => recordings.deleteAll(botId),
  };
}

export interface DataDeletionDeps {
  stores: Pick<Stores, 'sessions' | 'transcripts' | 'deliveries'>;
  /** The recording's pieces and file (S3, or files locally): required, so no caller deletes less than the others. */
  recordings: Pick<RecordingStore, 'deleteAll'>;
  /** Where `bot.data_deleted` goes (the bot-events queue). */
  outbox: Outbox;
  log: Logger;
  now: () => Date;
}

/**
 * Deletes `session`'s content: marks the tombstone first (readers show it at once, and a running bot can never be
 * marked), then purges every content store. Idempotent: a repeat purges again and answers the first time. The
 * `bot.data_deleted` event goes out once, when the mark is new.
 */
export async function deleteMeetingData(
  deps: DataDeletionDeps,
  session: Pick<BotSession, 'botId' | 'accountId' | 'webhookUrl' | 'webhookEvents' | 'recording'>,
  reason: DeletionReason,
): Promise<DataDeletion> {
  const now = deps.now();
  const mark = await deps.stores.sessions.markDataDeleted(session.botId, now);
  if (mark.outcome === 'not_found') throw notFound(session.botId);
  if (mark.outcome === 'running' || !mark.dataDeletedAt) {
    throw new ApiError('bot_running', `bot ${session.botId} is still running; stop it first`);
  }
  const deletedAt = mark.dataDeletedAt;
  for (const store of meetingContentStores(deps.stores, deps.recordings)) {
    if (store.holdsContentOf && !store.holdsContentOf(session)) continue;
    await store.purge(session.botId, now);
  }
  const log = deps.log.child({ bot_id: session.botId, account_id: session.accountId });
  if (mark.outcome === 'marked') {
    await deps.outbox.send({
      kind: 'bot_event',
      bot_id: session.botId,
      account_id: session.accountId,
      webhook: session.webhookUrl
        ? { url: session.webhookUrl, ...(session.webhookEvents && { events: session.webhookEvents }) }
        : null,
      event: 'bot.data_deleted',
      at: deletedAt,
      detail: reason,
      data: { reason, data_deleted_at: deletedAt },
    });
    log.info('meeting data deleted', { reason });
  } else {
    log.info('meeting data deletion repeated', { reason, data_deleted_at: deletedAt });
  }
  return { bot_id: session.botId, status: 'data_deleted', data_deleted_at: deletedAt };
}
