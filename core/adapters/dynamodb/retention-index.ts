// The retention index in DynamoDB: each ended meeting's entry, at its due time, in one of a few shard partitions.
import {
  moveRetentionEntry,
  type RetentionEntry,
  type RetentionIndex,
  type RetentionPage,
  type RetentionPart,
  retentionEntryOf,
  retentionShardOf,
} from '../../ports/retention-index';
import { deleteItem, keys, putItem, queryPage, type TableHandle } from './table';

/**
 * Shards of the index. The sweep reads them side by side, so this is also how many meetings it looks at at once; and
 * no partition takes every end's write and every expiry's delete. Changing it strands the entries of the shards
 * that go: add shards only together with a sweep that reads the old ones until they are empty (as `legacy`).
 */
export const retentionShardCount = 8;

export class DynamoRetentionIndex implements RetentionIndex {
  readonly shards = retentionShardCount;

  constructor(private readonly table: TableHandle) {}

  async add(botId: string, due: string): Promise<void> {
    await putItem(this.table, {
      Item: { ...keyOf({ botId, due, part: retentionShardOf(botId, this.shards) }), type: 'retention_due' },
    });
  }

  async listDue(
    part: RetentionPart,
    upTo: string,
    limit: number,
    after?: RetentionEntry,
  ): Promise<RetentionPage> {
    const { pk } = keyOf({ botId: '', due: '', part });
    const page = await queryPage(
      this.table,
      {
        KeyConditionExpression: 'pk = :pk AND sk <= :upTo',
        // `~` sorts after every bot id character: every entry due at `upTo` itself is in.
        ExpressionAttributeValues: { ':pk': pk, ':upTo': `${upTo}#~` },
        ProjectionExpression: 'sk',
        Limit: limit,
      },
      after && keyOf(after),
    );
    const entries = page.items.map((i) => retentionEntryOf(String(i.sk), part));
    return { entries, ...(page.next && entries.length > 0 && { next: entries[entries.length - 1] }) };
  }

  move(entry: RetentionEntry, due: string): Promise<void> {
    return moveRetentionEntry(this, entry, due);
  }

  async clear(entry: RetentionEntry): Promise<void> {
    await deleteItem(this.table, { Key: keyOf(entry) });
  }
}

function keyOf(entry: RetentionEntry): { pk: string; sk: string } {
  return entry.part === 'legacy'
    ? keys.legacyRetentionEntry(entry.due, entry.botId)
    : keys.retentionEntry(entry.part, entry.due, entry.botId);
}
