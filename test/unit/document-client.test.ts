// DocumentClient: lib-dynamodb request shapes in plain values, marshalled onto the DynamoDB wire format and back,
// through the real DynamoDBClient (its transport mocked with aws-sdk-client-mock); and putItems' resending of
// unprocessed items. The stores run against dynalite through the same class in the integration tests.
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand as QueryItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../core/adapters/aws-clients';
import { putItems } from '../../core/adapters/dynamodb/table';

const ddb = mockClient(DynamoDBClient);
afterAll(() => ddb.restore());
beforeEach(() => ddb.reset());

const doc = dynamoDocumentClient({ AWS_REGION: 'eu-west-1', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' });
const TableName = 'tbl';

describe('DocumentClient', () => {
  it('GetItem: plain key out, plain item back (numbers as numbers, nested maps and lists)', async () => {
    ddb.on(GetItemCommand).resolves({
      Item: { pk: { S: 'A' }, n: { N: '3' }, m: { M: { l: { L: [{ S: 'x' }, { BOOL: true }] } } } },
    });
    const out = await doc.send(
      new GetCommand({ TableName, Key: { pk: 'A', sk: 'B' }, ConsistentRead: true }),
    );
    expect(out.Item).toEqual({ pk: 'A', n: 3, m: { l: ['x', true] } });
    expect(ddb.commandCalls(GetItemCommand)[0]!.args[0].input).toEqual({
      TableName,
      Key: { pk: { S: 'A' }, sk: { S: 'B' } },
      ConsistentRead: true,
    });
  });

  it('GetItem of a missing item: Item stays undefined', async () => {
    ddb.on(GetItemCommand).resolves({});
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'A', sk: 'B' } }))).Item).toBeUndefined();
  });

  it('PutItem: undefined attributes are left out; condition values are marshalled', async () => {
    ddb.on(PutItemCommand).resolves({});
    await doc.send(
      new PutCommand({
        TableName,
        Item: { pk: 'A', sk: 'B', gone: undefined, n: 1, nested: { keep: 'y', drop: undefined } },
        ConditionExpression: 'attribute_not_exists(pk) OR v < :v',
        ExpressionAttributeValues: { ':v': 2 },
      }),
    );
    expect(ddb.commandCalls(PutItemCommand)[0]!.args[0].input).toEqual({
      TableName,
      Item: { pk: { S: 'A' }, sk: { S: 'B' }, n: { N: '1' }, nested: { M: { keep: { S: 'y' } } } },
      ConditionExpression: 'attribute_not_exists(pk) OR v < :v',
      ExpressionAttributeValues: { ':v': { N: '2' } },
    });
  });

  it('PutItem refuses a class instance instead of storing it as a map', async () => {
    ddb.on(PutItemCommand).resolves({});
    await expect(
      doc.send(new PutCommand({ TableName, Item: { pk: 'A', sk: 'B', when: new Date() } })),
    ).rejects.toThrow();
    expect(ddb.commandCalls(PutItemCommand)).toHaveLength(0);
  });

  it('UpdateItem: key and values marshalled; returned attributes unmarshalled; names untouched', async () => {
    ddb.on(UpdateItemCommand).resolves({ Attributes: { balance: { N: '7' } } });
    const out = await doc.send(
      new UpdateCommand({
        TableName,
        Key: { pk: 'A', sk: 'B' },
        UpdateExpression: 'SET #b = #b + :a',
        ExpressionAttributeNames: { '#b': 'balance' },
        ExpressionAttributeValues: { ':a': 2 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    expect(out.Attributes).toEqual({ balance: 7 });
    expect(ddb.commandCalls(UpdateItemCommand)[0]!.args[0].input).toEqual({
      TableName,
      Key: { pk: { S: 'A' }, sk: { S: 'B' } },
      UpdateExpression: 'SET #b = #b + :a',
      ExpressionAttributeNames: { '#b': 'balance' },
      ExpressionAttributeValues: { ':a': { N: '2' } },
      ReturnValues: 'UPDATED_NEW',
    });
  });

  it('DeleteItem: key marshalled, condition values too', async () => {
    ddb.on(DeleteItemCommand).resolves({});
    await doc.send(
      new DeleteCommand({
        TableName,
        Key: { pk: 'A', sk: 'B' },
        ConditionExpression: '#s = :s',
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: { ':s': 'pending' },
      }),
    );
    expect(ddb.commandCalls(DeleteItemCommand)[0]!.args[0].input).toMatchObject({
      Key: { pk: { S: 'A' }, sk: { S: 'B' } },
      ExpressionAttributeValues: { ':s': { S: 'pending' } },
    });
  });

  it('Query: start key and values marshalled; items and the next start key unmarshalled', async () => {
    ddb.on(QueryItemsCommand).resolves({
      Items: [{ pk: { S: 'A' }, sk: { S: 'LEDGER#1' }, amount: { N: '-1' } }],
      LastEvaluatedKey: { pk: { S: 'A' }, sk: { S: 'LEDGER#1' } },
    });
    const out = await doc.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'A' },
        ExclusiveStartKey: { pk: 'A', sk: 'LEDGER#0' },
      }),
    );
    expect(out.Items).toEqual([{ pk: 'A', sk: 'LEDGER#1', amount: -1 }]);
    expect(out.LastEvaluatedKey).toEqual({ pk: 'A', sk: 'LEDGER#1' });
    expect(ddb.commandCalls(QueryItemsCommand)[0]!.args[0].input).toMatchObject({
      ExpressionAttributeValues: { ':pk': { S: 'A' } },
      ExclusiveStartKey: { pk: { S: 'A' }, sk: { S: 'LEDGER#0' } },
    });
  });

  it('BatchGetItem: keys marshalled, projection passed on; items and unprocessed keys come back plain', async () => {
    ddb.on(BatchGetItemCommand).resolves({
      Responses: { [TableName]: [{ pk: { S: 'A' }, n: { N: '2' } }] },
      UnprocessedKeys: { [TableName]: { Keys: [{ pk: { S: 'B' } }], ProjectionExpression: '#a' } },
    });
    const out = await doc.send(
      new BatchGetCommand({
        RequestItems: {
          [TableName]: {
            Keys: [{ pk: 'A' }, { pk: 'B' }],
            ProjectionExpression: '#a',
            ExpressionAttributeNames: { '#a': 'n' },
          },
        },
      }),
    );
    expect(ddb.commandCalls(BatchGetItemCommand)[0]!.args[0].input.RequestItems).toEqual({
      [TableName]: {
        Keys: [{ pk: { S: 'A' } }, { pk: { S: 'B' } }],
        ProjectionExpression: '#a',
        ExpressionAttributeNames: { '#a': 'n' },
      },
    });
    expect(out.Responses).toEqual({ [TableName]: [{ pk: 'A', n: 2 }] });
    expect(out.UnprocessedKeys?.[TableName]?.Keys).toEqual([{ pk: 'B' }]);
  });

  it('BatchWriteItem: puts and deletes marshalled; unprocessed requests come back as plain values', async () => {
    ddb.on(BatchWriteItemCommand).resolves({
      UnprocessedItems: { [TableName]: [{ PutRequest: { Item: { pk: { S: 'A' }, n: { N: '1' } } } }] },
    });
    const out = await doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [TableName]: [{ PutRequest: { Item: { pk: 'A', n: 1 } } }, { DeleteRequest: { Key: { pk: 'B' } } }],
        },
      }),
    );
    expect(ddb.commandCalls(BatchWriteItemCommand)[0]!.args[0].input.RequestItems).toEqual({
      [TableName]: [
        { PutRequest: { Item: { pk: { S: 'A' }, n: { N: '1' } } } },
        { DeleteRequest: { Key: { pk: { S: 'B' } } } },
      ],
    });
    expect(out.UnprocessedItems).toEqual({ [TableName]: [{ PutRequest: { Item: { pk: 'A', n: 1 } } }] });
  });

  it('TransactWriteItems: each item’s key, item and values marshalled, its kind and expressions kept', async () => {
    ddb.on(TransactWriteItemsCommand).resolves({});
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName, Key: { pk: 'S' }, ConditionExpression: 'attribute_not_exists(d)' } },
          {
            Put: {
              TableName,
              Item: { pk: 'A', n: 1 },
              ConditionExpression: 'attribute_not_exists(pk) OR n < :n',
              ExpressionAttributeValues: { ':n': 2 },
            },
          },
        ],
      }),
    );
    expect(ddb.commandCalls(TransactWriteItemsCommand)[0]!.args[0].input.TransactItems).toEqual([
      {
        ConditionCheck: {
          TableName,
          Key: { pk: { S: 'S' } },
          ConditionExpression: 'attribute_not_exists(d)',
        },
      },
      {
        Put: {
          TableName,
          Item: { pk: { S: 'A' }, n: { N: '1' } },
          ConditionExpression: 'attribute_not_exists(pk) OR n < :n',
          ExpressionAttributeValues: { ':n': { N: '2' } },
        },
      },
    ]);
  });

  it('refuses a command it does not translate, sending nothing', async () => {
    await expect(doc.send(new ScanCommand({ TableName }) as never)).rejects.toThrow(
      /unsupported command ScanCommand/,
    );
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('putItems', () => {
  const items = Array.from({ length: 30 }, (_, i) => ({ pk: `P${i}`, sk: 'S', i }));
  const noSleep = async () => {};

  it('writes 25 items per request and resends what DynamoDB left unprocessed', async () => {
    let first = true;
    ddb.on(BatchWriteItemCommand).callsFake((input) => {
      const requests = input.RequestItems[TableName];
      if (first) {
        first = false;
        return { UnprocessedItems: { [TableName]: requests.slice(20) } }; // 5 left over
      }
      return { UnprocessedItems: {} };
    });
    await putItems({ doc, tableName: TableName }, items, 6, noSleep);
    const sizes = ddb
      .commandCalls(BatchWriteItemCommand)
      .map((c) => c.args[0].input.RequestItems![TableName]!.length);
    expect(sizes).toEqual([25, 5, 5]);
  });

  it('gives up, with an error, when items stay unprocessed', async () => {
    ddb.on(BatchWriteItemCommand).callsFake((input) => ({ UnprocessedItems: input.RequestItems }));
    await expect(putItems({ doc, tableName: TableName }, items.slice(0, 2), 3, noSleep)).rejects.toThrow(
      /left 2 item\(s\) unprocessed/,
    );
    expect(ddb.commandCalls(BatchWriteItemCommand)).toHaveLength(3);
  });
});
