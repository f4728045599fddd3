// The local DynamoDB skips index writes that change nothing (local/dynalite-indexes.mjs), as DynamoDB does. The
// decision is unit-tested below; through the worker, every index must still read as DynamoDB's would after each kind
// of write: an entry kept by a write that leaves it alone, moved by a key change, refreshed by a projected attribute,
// dropped by REMOVE and by a delete.
import {
  CreateTableCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the local stack, without types
import { indexEntriesUnchanged } from '../../local/dynalite-indexes.mjs';
import { type LocalDynamoClient, localDynamoClient } from '../support/local-dynamo';

const S = (s: string) => ({ S: s });
const keysOnly = {
  IndexName: 'keys',
  KeySchema: [
    { AttributeName: 'ip', KeyType: 'HASH' as const },
    { AttributeName: 'is', KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'KEYS_ONLY' as const },
};
const include = {
  IndexName: 'include',
  KeySchema: [{ AttributeName: 'cp', KeyType: 'HASH' as const }],
  Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: ['note'] },
};
const table = {
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  GlobalSecondaryIndexes: [keysOnly, include],
};

describe('which writes leave every index entry as it was', () => {
  const base = {
    pk: S('A'),
    sk: S('ACCOUNT'),
    ip: S('HOLDS'),
    is: S('A'),
    cp: S('c'),
    note: S('n'),
    n: { N: '1' },
  };
  it('an attribute no index projects: unchanged (the join’s balance and holds)', () => {
    expect(indexEntriesUnchanged(table, base, { ...base, n: { N: '2' }, holds: { M: {} } })).toBe(true);
  });
  it('an index key, a projected attribute, or leaving an index: changed', () => {
    expect(indexEntriesUnchanged(table, base, { ...base, is: S('B') })).toBe(false);
    expect(indexEntriesUnchanged(table, base, { ...base, note: S('other') })).toBe(false);
    const { ip: _ip, ...unlisted } = base;
    expect(indexEntriesUnchanged(table, base, unlisted)).toBe(false);
    expect(indexEntriesUnchanged(table, unlisted, base)).toBe(false);
  });
  it('a new item, a deleted one, or an index projecting ALL: left to dynalite', () => {
    expect(indexEntriesUnchanged(table, undefined, base)).toBe(false);
    expect(indexEntriesUnchanged(table, base, undefined)).toBe(false);
    const all = {
      ...table,
      GlobalSecondaryIndexes: [{ ...keysOnly, Projection: { ProjectionType: 'ALL' } }],
    };
    expect(indexEntriesUnchanged(all, base, { ...base, n: { N: '2' } })).toBe(false);
  });
});

describe('indexes through the local DynamoDB after each kind of write', () => {
  let local: LocalDynamoClient;
  let client: DynamoDBClient;
  const TableName = 'indexes';
  beforeAll(async () => {
    local = await localDynamoClient();
    client = local.client;
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ['pk', 'sk', 'ip', 'is', 'cp'].map((AttributeName) => ({
          AttributeName,
          AttributeType: 'S' as const,
        })),
        KeySchema: table.KeySchema as { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[],
        GlobalSecondaryIndexes: [keysOnly, include],
      }),
    );
  });
  afterAll(async () => {
    await local?.close();
  });

  const listed = async () => {
    const res = await client.send(
      new QueryCommand({
        TableName,
        IndexName: 'keys',
        KeyConditionExpression: 'ip = :p',
        ExpressionAttributeValues: { ':p': S('HOLDS') },
      }),
    );
    return (res.Items ?? []).map((i) => `${i.pk?.S}:${i.is?.S}`);
  };
  const notes = async () => {
    const res = await client.send(
      new QueryCommand({
        TableName,
        IndexName: 'include',
        KeyConditionExpression: 'cp = :c',
        ExpressionAttributeValues: { ':c': S('c') },
      }),
    );
    return (res.Items ?? []).map((i) => `${i.pk?.S}:${i.note?.S}`);
  };
  const update = (pk: string, expression: string, values?: Record<string, { S: string } | { N: string }>) =>
    client.send(
      new UpdateItemCommand({
        TableName,
        Key: { pk: S(pk), sk: S('ACCOUNT') },
        UpdateExpression: expression,
        // `is` is one of DynamoDB's reserved words.
        ...(expression.includes('#is') && { ExpressionAttributeNames: { '#is': 'is' } }),
        ...(values && { ExpressionAttributeValues: values }),
      }),
    );

  it('keeps, moves, refreshes and drops entries as DynamoDB would', async () => {
    await client.send(
      new PutItemCommand({
        TableName,
        Item: {
          pk: S('A'),
          sk: S('ACCOUNT'),
          ip: S('HOLDS'),
          is: S('A1'),
          cp: S('c'),
          note: S('first'),
          n: { N: '0' },
        },
      }),
    );
    await client.send(
      new PutItemCommand({ TableName, Item: { pk: S('B'), sk: S('ACCOUNT'), n: { N: '0' } } }),
    );
    expect(await listed()).toEqual(['A:A1']);

    // Writes that leave both entries alone (the skipped ones), twice, and a put of the same item.
    await update('A', 'SET n = n + :one', { ':one': { N: '1' } });
    await update('A', 'SET n = n + :one, ip = :p, #is = :s', {
      ':one': { N: '1' },
      ':p': S('HOLDS'),
      ':s': S('A1'),
    });
    expect(await listed()).toEqual(['A:A1']);
    expect(await notes()).toEqual(['A:first']);

    // A key change moves the entry; a projected attribute refreshes the other index's.
    await update('A', 'SET #is = :s', { ':s': S('A2') });
    await update('A', 'SET note = :n', { ':n': S('second') });
    expect(await listed()).toEqual(['A:A2']);
    expect(await notes()).toEqual(['A:second']);

    // An item joins the index, then one leaves it by REMOVE and the other by a delete.
    await update('B', 'SET ip = :p, #is = :s', { ':p': S('HOLDS'), ':s': S('B1') });
    expect(await listed()).toEqual(['A:A2', 'B:B1']);
    await update('A', 'REMOVE ip, #is');
    expect(await listed()).toEqual(['B:B1']);
    await client.send(new DeleteItemCommand({ TableName, Key: { pk: S('B'), sk: S('ACCOUNT') } }));
    expect(await listed()).toEqual([]);
    expect(await notes()).toEqual(['A:second']);
  });
});
