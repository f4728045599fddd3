// The tombstone of a deleted meeting and its pending-deletion entries (docs/data-model.md).
import type { DataDeletionMark, DataDeletionsStore, PendingDeletion } from '../../ports/data-deletions';
import {
  deleteItems,
  getItem,
  keys,
  pendingDeletionsPk,
  queryPage,
  type TableHandle,
  updateItem,
  written,
} from './table';

export class DynamoDataDeletions implements DataDeletionsStore {
  constructor(private readonly table: TableHandle) {}

  /**
   * Two writes, the entry first: a crash between them leaves an entry without a tombstone, which the sweeper drops
   * (core/data/delete-meeting-data.ts), never a tombstone without an entry. Both are UpdateItems (the entry created by
   * its update), so the data function needs no PutItem.
   */
  async mark(botId: string, at: Date): Promise<DataDeletionMark> {
    const startedAt = at.toISOString();
    const entry = { botId, startedAt };
    await updateItem(this.table, {
      Key: keys.pendingDeletion(startedAt, botId),
      UpdateExpression: 'SET #type = :type, bot_id = :bot',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': 'pending_deletion', ':bot': botId },
    });
    const marked = await written(
      updateItem(this.table, {
        Key: keys.session(botId),
        UpdateExpression: 'SET data_deleted_at = :at',
        ConditionExpression:
          'attribute_exists(pk) AND #status <> :running AND attribute_not_exists(data_deleted_at)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':at': startedAt, ':running': 'running' },
      }),
    );
    if (marked) return { outcome: 'marked', dataDeletedAt: startedAt };
    const Item = await getItem(this.table, keys.session(botId), { ProjectionExpression: 'data_deleted_at' });
    // Deleted before: this repeat's purges go on under its own entry.
    if (typeof Item?.data_deleted_at === 'string')
      return { outcome: 'already', dataDeletedAt: Item.data_deleted_at };
    await this.finished(entry);
    return { outcome: Item ? 'running' : 'not_found' };
  }

  async listPending(upTo: string, limit: number): Promise<PendingDeletion[]> {
    const { items } = await queryPage(this.table, {
      KeyConditionExpression: 'pk = :pk AND sk <= :upTo',
      // `~` sorts after every bot id character: every entry begun at `upTo` itself is in.
      ExpressionAttributeValues: { ':pk': pendingDeletionsPk, ':upTo': `${upTo}#~` },
      ConsistentRead: true,
      Limit: limit,
    });
    return items.map((i) => {
      const sk = String(i.sk);
      const at = sk.lastIndexOf('#');
      return { startedAt: sk.slice(0, at), botId: sk.slice(at + 1) };
    });
  }

  /** A BatchWriteItem delete: the data function and the sweeper batch-write already, so no new permission. */
  async finished(...entries: PendingDeletion[]): Promise<void> {
    await deleteItems(
      this.table,
      entries.map((e) => keys.pendingDeletion(e.startedAt, e.botId)),
    );
  }
}
