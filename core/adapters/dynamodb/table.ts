// The single-table key schema (README "Data model"): every item's pk/sk is built here and nowhere else.
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Attribute holding an item's expiry in epoch seconds (DynamoDB TTL). */
export const ttlAttribute = 'expires_at';

export const keys = {
  account: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' }),
  accountKey: (accountId: string, keyId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `KEY#${keyId}` }),
  apiKeyHash: (hash: string) => ({ pk: `APIKEY#${hash}`, sk: 'APIKEY' }),
  ledgerEntry: (accountId: string, entryId: string) => ({
    pk: `ACCOUNT#${accountId}`,
    sk: `LEDGER#${entryId}`,
  }),
  session: (botId: string) => ({ pk: `BOT#${botId}`, sk: 'SESSION' }),
  idempotency: (accountId: string, keyHash: string) => ({
    pk: `IDEMPOTENCY#${accountId}#${keyHash}`,
    sk: 'IDEMPOTENCY',
  }),
  rateWindow: (subject: string, window: number) => ({ pk: `RATE#${subject}#${window}`, sk: 'RATE' }),
} as const;

export const ledgerPrefix = 'LEDGER#';
export const accountKeyPrefix = 'KEY#';

export interface TableHandle {
  doc: DynamoDBDocumentClient;
  tableName: string;
}

export function isConditionFailure(err: unknown): boolean {
  return (
    err instanceof ConditionalCheckFailedException ||
    (err instanceof Error && err.name === 'ConditionalCheckFailedException')
  );
}

/** Creates the table when missing (local stack, tests); in AWS the CDK stack owns it with the same key schema. */
export async function ensureTable({ doc, tableName }: TableHandle): Promise<void> {
  try {
    await doc.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (err) {
    if (!(err instanceof Error) || err.name !== 'ResourceNotFoundException') throw err;
  }
  try {
    await doc.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof Error) || err.name !== 'ResourceInUseException') throw err;
  }
  for (let i = 0; i < 100; i++) {
    const { Table } = await doc.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    await doc.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // dynalite does not implement TTL; expiry is also checked on read, so nothing depends on it.
  }
}
