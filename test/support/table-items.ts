// Test helper: the raw items of a stack's table, for tests that check what is stored, or is no longer.
import { keys, queryAll, type TableHandle } from '../../core/adapters/dynamodb/table';

/** Every item under a bot's partition (its session, segments, deliveries, events…), raw, read consistently. */
export const botItems = (table: TableHandle, botId: string) =>
  queryAll(table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.session(botId).pk },
    ConsistentRead: true,
  });
