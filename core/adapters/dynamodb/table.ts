// The single-table key schema (docs/data-model.md): every item's pk/sk is built here and nowhere else.
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DeleteCommand,
  type DeleteCommandInput,
  GetCommand,
  type GetCommandInput,
  type GetCommandOutput,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { retry } from '../../retry';
import { UnprocessedItemsError } from '../sdk-error';
import type { DocumentClient } from './document-client';

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
  /**
   * The leave endpoint's stop request, apart from the session: the running bot polls this small item (0.5 read unit
   * a poll) instead of its whole session item.
   */
  stopRequest: (botId: string) => ({ pk: `BOT#${botId}`, sk: 'STOP' }),
  /** The account's list of its bots, newest last in key order: `BOT#<created_at>#<bot_id>`. */
  accountBot: (accountId: string, createdAt: string, botId: string) => ({
    pk: `ACCOUNT#${accountId}`,
    sk: `${accountBotPrefix}${createdAt}#${botId}`,
  }),
  idempotency: (accountId: string, keyHash: string) => ({
    pk: `IDEMPOTENCY#${accountId}#${keyHash}`,
    sk: 'IDEMPOTENCY',
  }),
  rateWindow: (subject: string, window: number) => ({ pk: `RATE#${subject}#${window}`, sk: 'RATE' }),
  /**
   * A scheduled session not yet handed to the scheduler's queue, by the minute of its join_at (UTC): the scheduler
   * reads the minutes of its window, one Query each, and deletes the entry once the session's start is queued.
   */
  scheduledJoin: (joinAt: string, botId: string) => ({
    pk: `SCHEDULE#${joinAt.slice(0, 16)}`,
    sk: `${joinAt}#${botId}`,
  }),
  /** The session a pooled bot won, by its claimant id (on ECS its task ARN): a stopped pooled task's session. */
  poolClaim: (claimant: string) => ({ pk: `CLAIM#${claimant}`, sk: 'CLAIM' }),
  /**
   * When the retention sweep looks at a bot's content, in time order within its shard: `<due>#<bot_id>`, due at the
   * meeting's end plus its account's retention (docs/data-retention.md). Written by the session's end; the sweep
   * queries each shard's due entries and deletes an entry with the content.
   */
  retentionEntry: (shard: number, due: string, botId: string) => ({
    pk: `RETENTION#${shard}`,
    sk: `${due}#${botId}`,
  }),
  /**
   * The same entry as written by earlier versions, in one partition (due at the session's creation, or a later look):
   * read by the sweep until it is empty, each entry moved into the shards or deleted.
   */
  legacyRetentionEntry: (due: string, botId: string) => ({ pk: 'RETENTION#DUE', sk: `${due}#${botId}` }),
  /**
   * A deletion of a bot's content not yet finished, by when it began: `<at>#<bot_id>`. Written just before the
   * tombstone and deleted after the last purge, so the sweeper finds a deletion cut off half-way (a timeout, a crash,
   * its deadline) and finishes it. One partition: an entry lives for the seconds a deletion takes, so it stays small.
   */
  pendingDeletion: (at: string, botId: string) => ({ pk: pendingDeletionsPk, sk: `${at}#${botId}` }),
} as const;

export const pendingDeletionsPk = 'DELETION#PENDING';

/** Sparse index of running sessions (only they carry `running_pk`): the heartbeat sweeper reads it. */
export const runningIndex = {
  name: 'running',
  pk: 'running_pk',
  sk: 'running_sk',
  value: 'RUNNING',
} as const;

export const ledgerPrefix = 'LEDGER#';
export const accountBotPrefix = 'BOT#';
export const accountKeyPrefix = 'KEY#';

export interface TableHandle {
  doc: DocumentClient;
  tableName: string;
}

/** An item as read, its attributes as plain values. */
export type StoredItem = NonNullable<GetCommandOutput['Item']>;

/** One item by key, strongly consistent unless `options` say otherwise; undefined when there is none. */
export async function getItem(
  { doc, tableName }: TableHandle,
  Key: Record<string, unknown>,
  options: Omit<GetCommandInput, 'TableName' | 'Key'> = {},
): Promise<StoredItem | undefined> {
  return (await doc.send(new GetCommand({ ConsistentRead: true, ...options, TableName: tableName, Key })))
    .Item;
}

export const putItem = ({ doc, tableName }: TableHandle, input: Omit<PutCommandInput, 'TableName'>) =>
  doc.send(new PutCommand({ ...input, TableName: tableName }));

export const updateItem = ({ doc, tableName }: TableHandle, input: Omit<UpdateCommandInput, 'TableName'>) =>
  doc.send(new UpdateCommand({ ...input, TableName: tableName }));

export const deleteItem = ({ doc, tableName }: TableHandle, input: Omit<DeleteCommandInput, 'TableName'>) =>
  doc.send(new DeleteCommand({ ...input, TableName: tableName }));

/** A conditional write's output, or undefined when its condition failed; any other error is thrown. */
export async function conditional<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

/** Whether a conditional write went through (false when its condition failed). */
export const written = async (write: Promise<object>): Promise<boolean> =>
  (await conditional(write)) !== undefined;

/** Where a query's next page starts (its LastEvaluatedKey); absent after the last page. */
type PageKey = Record<string, unknown>;

/**
 * One page of a query from `start`: at most `Limit` items and at most 1 MB read (DynamoDB's page), and the key the
 * next page starts at, absent after the last. For work that must stop between pages (a deadline).
 */
export async function queryPage(
  { doc, tableName }: TableHandle,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  start?: PageKey,
): Promise<{ items: Record<string, unknown>[]; next?: PageKey }> {
  const page = await doc.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: start }));
  return { items: page.Items ?? [], ...(page.LastEvaluatedKey && { next: page.LastEvaluatedKey }) };
}

/** Every item a query matches, following the pages. */
export async function queryAll(
  table: TableHandle,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: PageKey | undefined;
  do {
    const page = await queryPage(table, input, start);
    items.push(...page.items);
    start = page.next;
  } while (start);
  return items;
}

/** An item as written: its key and its attributes. */
export type TableItem = Record<string, unknown> & { pk: string; sk: string };

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];
type Sleep = (ms: number) => Promise<void>;

/**
 * Sends write requests in BatchWriteItem requests of 25 (its limit), resending whatever DynamoDB leaves unprocessed
 * (untilProcessed); `what` names them in the error.
 */
async function writeInBatches(
  { doc, tableName }: TableHandle,
  requests: WriteRequest[],
  what: string,
  attempts?: number,
  sleep?: Sleep,
): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    await untilProcessed(
      requests.slice(i, i + 25),
      async (pending) =>
        (await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } })))
          .UnprocessedItems?.[tableName] ?? [],
      (left) => `BatchWriteItem left ${left} ${what} unprocessed`,
      attempts,
      sleep,
    );
  }
}

/** Puts items (unconditionally) in batches (writeInBatches). */
export const putItems = (table: TableHandle, items: TableItem[], attempts?: number, sleep?: Sleep) =>
  writeInBatches(
    table,
    items.map((Item) => ({ PutRequest: { Item } })),
    'item(s)',
    attempts,
    sleep,
  );

/** Deletes items by key in batches (writeInBatches). */
export const deleteItems = (table: TableHandle, itemKeys: { pk: string; sk: string }[]) =>
  writeInBatches(
    table,
    itemKeys.map((Key) => ({ DeleteRequest: { Key } })),
    'deletion(s)',
  );

/**
 * Sends `first`, then whatever each request leaves unprocessed (DynamoDB's batch calls under throttling), with a
 * short exponential backoff; throws `failure(count)` when some are still left after `attempts` requests.
 */
export async function untilProcessed<T>(
  first: T[],
  request: (pending: T[]) => Promise<T[]>,
  failure: (left: number) => string,
  attempts = 6,
  sleep?: Sleep,
): Promise<void> {
  let pending = first;
  if (pending.length === 0) return;
  await retry(
    async () => {
      pending = await request(pending);
      if (pending.length > 0) throw new UnprocessedItemsError(failure(pending.length));
    },
    { attempts, baseMs: 25, clock: sleep && { sleep }, retryable: (e) => e instanceof UnprocessedItemsError },
  );
}

export function isConditionFailure(err: unknown): boolean {
  return (
    err instanceof ConditionalCheckFailedException ||
    (err instanceof Error && err.name === 'ConditionalCheckFailedException')
  );
}

/**
 * The per-item reason codes of a cancelled TransactWriteItems (`ConditionalCheckFailed`, `None`, …), in the order of
 * its items; undefined for any other error.
 */
export function cancellationReasons(err: unknown): string[] | undefined {
  if (!(err instanceof Error) || err.name !== 'TransactionCanceledException') return undefined;
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((r) => r.Code ?? 'None');
}

const attributeDefinitions = ['pk', 'sk', runningIndex.pk, runningIndex.sk].map((AttributeName) => ({
  AttributeName,
  AttributeType: 'S' as const,
}));

const keySchema = (hash: string, range: string) => [
  { AttributeName: hash, KeyType: 'HASH' as const },
  { AttributeName: range, KeyType: 'RANGE' as const },
];

const runningIndexDefinition = {
  IndexName: runningIndex.name,
  KeySchema: keySchema(runningIndex.pk, runningIndex.sk),
  Projection: { ProjectionType: 'KEYS_ONLY' as const },
};

/** Lets an error named `name` by (the answer a table action gives when there is nothing to do); throws others. */
const unless = (name: string) => (err: unknown) => {
  if (!(err instanceof Error) || err.name !== name) throw err;
  return undefined;
};

/** Creates the table (or its index) when missing (local stack, tests); in AWS the CDK stack owns it. */
export async function ensureTable({ doc, tableName }: TableHandle): Promise<void> {
  const existing = await describe(doc, tableName).catch(unless('ResourceNotFoundException'));
  if (!existing) {
    await doc.client
      .send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions,
          KeySchema: keySchema('pk', 'sk'),
          GlobalSecondaryIndexes: [runningIndexDefinition],
        }),
      )
      .catch(unless('ResourceInUseException'));
  } else if (!existing.GlobalSecondaryIndexes?.some((i) => i.IndexName === runningIndex.name)) {
    // A data directory made before the index existed.
    await doc.client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: attributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: runningIndexDefinition }],
      }),
    );
  }
  for (let i = 0; i < 200; i++) {
    const table = await describe(doc, tableName);
    if (
      table?.TableStatus === 'ACTIVE' &&
      (table.GlobalSecondaryIndexes ?? []).every((g) => g.IndexStatus === 'ACTIVE')
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    await doc.client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // dynalite does not implement TTL; expiry is also checked on read, so nothing depends on it.
  }
}

async function describe(doc: DocumentClient, tableName: string) {
  return (await doc.client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
}
