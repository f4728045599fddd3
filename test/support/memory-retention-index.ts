// The retention index in memory, with the DynamoDB adapter's keys and order: for unit tests and the retention
// benchmark's 200,000 meetings (bench/retention.ts), where the sweep's own code runs against it.
import {
  moveRetentionEntry,
  type RetentionEntry,
  type RetentionIndex,
  type RetentionPage,
  type RetentionPart,
  retentionEntryOf,
  retentionShardOf,
  retentionSortKey as sortKey,
} from '../../core/ports/retention-index';

export class MemoryRetentionIndex implements RetentionIndex {
  /** Each part's sort keys, in order (a part is one partition in DynamoDB). */
  private readonly parts = new Map<RetentionPart, string[]>();

  constructor(readonly shards: number) {}

  async add(botId: string, due: string): Promise<void> {
    this.insert(retentionShardOf(botId, this.shards), sortKey(due, botId));
  }

  /** Writes an entry as an earlier version did, into the single partition the sweep still reads (`legacy`). */
  addLegacy(botId: string, due: string): void {
    this.insert('legacy', sortKey(due, botId));
  }

  async listDue(
    part: RetentionPart,
    upTo: string,
    limit: number,
    after?: RetentionEntry,
  ): Promise<RetentionPage> {
    const keys = this.parts.get(part) ?? [];
    const end = `${upTo}#~`;
    let i = after ? upperBound(keys, sortKey(after.due, after.botId)) : 0;
    const entries: RetentionEntry[] = [];
    for (; i < keys.length && entries.length < limit && keys[i]! <= end; i++)
      entries.push(retentionEntryOf(keys[i]!, part));
    // As DynamoDB: a page that stopped at its limit says where the next starts, whether or not more are due.
    return { entries, ...(entries.length === limit && { next: entries[entries.length - 1] }) };
  }

  move(entry: RetentionEntry, due: string): Promise<void> {
    return moveRetentionEntry(this, entry, due);
  }

  async clear(entry: RetentionEntry): Promise<void> {
    const keys = this.parts.get(entry.part);
    if (!keys) return;
    const sk = sortKey(entry.due, entry.botId);
    const i = lowerBound(keys, sk);
    if (keys[i] === sk) keys.splice(i, 1);
  }

  /** Entries held, in every part. */
  size(): number {
    let n = 0;
    for (const keys of this.parts.values()) n += keys.length;
    return n;
  }

  /** Every entry of `part`, in order (tests). */
  entriesOf(part: RetentionPart): RetentionEntry[] {
    return (this.parts.get(part) ?? []).map((sk) => retentionEntryOf(sk, part));
  }

  private insert(part: RetentionPart, sk: string): void {
    const keys = this.parts.get(part) ?? [];
    this.parts.set(part, keys);
    const i = lowerBound(keys, sk);
    if (keys[i] !== sk) keys.splice(i, 0, sk);
  }
}

/** The first index whose key is at or after `key`. */
function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose key is after `key`. */
function upperBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
