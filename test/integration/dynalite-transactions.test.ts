// The local DynamoDB's TransactWriteItems (local/dynalite-transactions.mjs; dynalite has none): condition checks plus
// one write, all or nothing, a cancellation reporting each item's reason in order as DynamoDB's does.
import {
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancellationReasons } from '../../core/adapters/dynamodb/table';
import { type LocalDynamoClient, localDynamoClient } from '../support/local-dynamo';

const TableName = 'transactions';
const S = (s: string) => ({ S: s });
const key = (pk: string) => ({ pk: S(pk) });
let local: LocalDynamoClient;

beforeAll(async () => {
  local = await localDynamoClient();
  await local.client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
  await local.client.send(new PutItemCommand({ TableName, Item: { ...key('guard'), deleted: S('no') } }));
});

afterAll(() => local?.close());

const read = async (pk: string) =>
  (await local.client.send(new GetItemCommand({ TableName, Key: key(pk) }))).Item;
const transact = (...TransactItems: TransactWriteItem[]) =>
  local.client.send(new TransactWriteItemsCommand({ TransactItems })).then(
    () => 'done',
    (err: unknown) => cancellationReasons(err) ?? Promise.reject(err),
  );
const guardIs = (value: string): TransactWriteItem => ({
  ConditionCheck: {
    TableName,
    Key: key('guard'),
    ConditionExpression: 'deleted = :v',
    ExpressionAttributeValues: { ':v': S(value) },
  },
});
const putNew = (pk: string, note: string): TransactWriteItem => ({
  Put: { TableName, Item: { ...key(pk), note: S(note) }, ConditionExpression: 'attribute_not_exists(pk)' },
});

describe('TransactWriteItems on the local DynamoDB', () => {
  it('applies the write when every check passes, with Put, Update and Delete', async () => {
    expect(await transact(guardIs('no'), putNew('a', 'first'))).toBe('done');
    expect(await read('a')).toEqual({ ...key('a'), note: S('first') });
    const update: TransactWriteItem = {
      Update: {
        TableName,
        Key: key('a'),
        UpdateExpression: 'SET note = :n',
        ExpressionAttributeValues: { ':n': S('second') },
      },
    };
    expect(await transact(guardIs('no'), update)).toBe('done');
    expect((await read('a'))?.note).toEqual(S('second'));
    expect(await transact(guardIs('no'), { Delete: { TableName, Key: key('a') } })).toBe('done');
    expect(await read('a')).toBeUndefined();
  });

  it('cancels the whole transaction on a failed check, reporting each item in order', async () => {
    expect(await transact(guardIs('yes'), putNew('b', 'never'))).toEqual(['ConditionalCheckFailed', 'None']);
    expect(await read('b')).toBeUndefined();
  });

  it("reports the write's own failed condition, alone or beside a failed check", async () => {
    expect(await transact(guardIs('no'), putNew('c', 'first'))).toBe('done');
    expect(await transact(guardIs('no'), putNew('c', 'again'))).toEqual(['None', 'ConditionalCheckFailed']);
    expect(await transact(guardIs('yes'), putNew('c', 'again'))).toEqual([
      'ConditionalCheckFailed',
      'ConditionalCheckFailed',
    ]);
    expect((await read('c'))?.note).toEqual(S('first'));
  });

  it('refuses what it does not play: a second write', async () => {
    await expect(transact(putNew('d', '1'), putNew('e', '2'))).rejects.toThrow(/unsupported item Put/);
    expect(await read('d')).toBeUndefined();
  });
});
