// Test helper: the raw items of a stack's table, for tests that check what is stored, or is no longer.
import { brotliDecompressSync } from 'node:zlib';
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { keys, queryAll, type TableHandle } from '../../core/adapters/dynamodb/table';

/** Every item under a bot's partition (its session, segments, deliveries, events…), raw, read consistently. */
export const botItems = (table: TableHandle, botId: string) =>
  queryAll(table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.session(botId).pk },
    ConsistentRead: true,
  });

/**
 * Every item of the whole table, raw, through DynamoDB's own Scan (every page), each as the text it holds: strings as
 * they are, binary attributes Brotli-decompressed where they are packed text (packed-text.ts), so a test that looks
 * for a phrase finds it in a compressed payload too.
 */
export async function scanTableText(table: TableHandle): Promise<string[]> {
  const texts: string[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await table.doc.client.send(
      new ScanCommand({ TableName: table.tableName, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    for (const item of page.Items ?? []) texts.push(JSON.stringify(item, readable));
    start = page.LastEvaluatedKey;
  } while (start);
  return texts;
}

/** JSON.stringify's replacer: binary values as their decompressed text (or their bytes as latin1 when not packed). */
function readable(_key: string, value: unknown): unknown {
  if (!(value instanceof Uint8Array)) return value;
  try {
    return brotliDecompressSync(value).toString('utf8');
  } catch {
    return Buffer.from(value).toString('latin1');
  }
}
