// Port: the record of a meeting's content deletion: the session's tombstone, and while the purges run a pending entry,
// so a deletion cut off half-way (a timeout, a crash, its deadline) is found and finished by the sweeper.

/**
 * Where a purge that stopped between two pages resumes (a store's own page key, opaque to the use case); undefined
 * once the store holds none of the meeting's content.
 */
export type PurgeCursor = Record<string, unknown>;

/**
 * A deletion begun at `startedAt` whose purges are not all done yet (the first deletion's `startedAt` is the tombstone's
 * `data_deleted_at`; a repeat has an entry of its own while it purges).
 */
export interface PendingDeletion {
  botId: string;
  startedAt: string;
}

/** What marking a session's content deleted found: newly marked, marked before (with that time), running, missing. */
export type DataDeletionMark =
  | { outcome: 'marked' | 'already'; dataDeletedAt: string }
  | { outcome: 'running' | 'not_found'; dataDeletedAt?: undefined };

export interface DataDeletionsStore {
  /**
   * Lists a deletion begun at `at` as pending, then marks an ended session's content deleted (`dataDeletedAt`), once
   * (a repeat finds the first time). In that order, so no tombstone is ever without an entry while purges remain. A
   * running or missing session is left alone, and the entry just written goes again.
   */
  mark(botId: string, at: Date): Promise<DataDeletionMark>;
  /** Up to `limit` pending deletions begun at `upTo` or before, oldest first. */
  listPending(upTo: string, limit: number): Promise<PendingDeletion[]>;
  /** Every purge of these deletions is done: their entries go (idempotent). */
  finished(...entries: PendingDeletion[]): Promise<void>;
}
