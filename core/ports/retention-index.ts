// Port: the retention index, each ended meeting listed once at the time its content is due to go, on shards.

/** A meeting listed for the retention sweep: its content is looked at from `due` on. */
export interface RetentionEntry {
  botId: string;
  /** When the sweep looks at it (ISO 8601): the meeting's end plus its account's retention, as dated. */
  due: string;
  /** The part of the index holding it: a shard number, or `legacy` for an entry of the old single partition. */
  part: RetentionPart;
}

/** A shard of the index, or the single partition of earlier versions (read until it is empty). */
export type RetentionPart = number | 'legacy';

/** One page of a part's due entries; `next` is where the next page of the same query starts (absent: no more). */
export interface RetentionPage {
  entries: RetentionEntry[];
  next?: RetentionEntry;
}

export interface RetentionIndex {
  /** How many shards the index spreads its entries over (the sweep reads each, and `legacy`). */
  readonly shards: number;
  /**
   * Lists a meeting for the sweep at `due`, in its bot's shard. Idempotent: writing the same (bot, due) again (an end's
   * retry) leaves one entry.
   */
  add(botId: string, due: string): Promise<void>;
  /** Up to `limit` entries of `part` due at `upTo` or before, oldest first, starting after `after`. */
  listDue(part: RetentionPart, upTo: string, limit: number, after?: RetentionEntry): Promise<RetentionPage>;
  /** Re-dates an entry: listed at `due` in its bot's shard (a legacy entry moves into the shards), the old one removed. */
  move(entry: RetentionEntry, due: string): Promise<void>;
  /** Removes an entry: its content is deleted, or the session is gone. */
  clear(entry: RetentionEntry): Promise<void>;
}

/** Entries are ordered within a part by this key, `<due>#<bot_id>` (ISO times sort as text). */
export const retentionSortKey = (due: string, botId: string) => `${due}#${botId}`;

/** The entry a part's sort key names. */
export function retentionEntryOf(sortKey: string, part: RetentionPart): RetentionEntry {
  const at = sortKey.lastIndexOf('#');
  return { due: sortKey.slice(0, at), botId: sortKey.slice(at + 1), part };
}

/**
 * Re-dates an entry with an index's own add and clear: the new entry first, so a crash between the two writes leaves
 * the meeting listed twice, never not at all. Nothing to do when it is already there.
 */
export async function moveRetentionEntry(
  index: Pick<RetentionIndex, 'add' | 'clear'>,
  entry: RetentionEntry,
  due: string,
): Promise<void> {
  if (entry.due === due && entry.part !== 'legacy') return;
  await index.add(entry.botId, due);
  await index.clear(entry);
}

/** The shard of a bot's entries: a hash of its id, so one account's meetings, and one minute's, spread over them all. */
export function retentionShardOf(botId: string, shards: number): number {
  // FNV-1a: the id's time-ordered prefix (UUIDv7) must not decide the shard.
  let h = 0x811c9dc5;
  for (let i = 0; i < botId.length; i++) {
    h ^= botId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}
