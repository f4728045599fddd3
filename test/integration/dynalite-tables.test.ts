// The local DynamoDB keeps table descriptions in memory (local/dynalite-tables.mjs) instead of reading them from
// LevelDB on every request. A table's whole life must still read as DynamoDB's would: created, its throughput
// changed, deleted, created again under the same name with another key, each change seen by the next request.
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamoClient, localDynamoClient } from '../support/local-dynamo';
import { until } from '../support/until';

let local: LocalDynamoClient;
let client: DynamoDBClient;
beforeAll(async () => {
  local = await localDynamoClient();
  client = local.client;
});
afterAll(async () => {
  await local?.close();
});

const TableName = 'tables-life';
const S = (s: string) => ({ S: s });
/** The table once it is ACTIVE (dynalite applies a table change after it answers). */
const active = () =>
  until(async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    return Table?.TableStatus === 'ACTIVE' && Table;
  });

describe('a table’s life through the local DynamoDB', () => {
  it('sees every change to a table in the next request', async () => {
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    expect((await active()).KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    await client.send(new PutItemCommand({ TableName, Item: { pk: S('a'), g: S('x') } }));

    // Its throughput changed (dynalite applies it after answering): described as changed.
    await client.send(
      new UpdateTableCommand({
        TableName,
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 3 },
      }),
    );
    await until(async () => (await active()).ProvisionedThroughput?.ReadCapacityUnits === 7);
    expect((await client.send(new GetItemCommand({ TableName, Key: { pk: S('a') } }))).Item).toEqual({
      pk: S('a'),
      g: S('x'),
    });

    // Deleted: gone for the next request. Created again with another key: the new key is the one checked.
    await client.send(new DeleteTableCommand({ TableName }));
    const gone = await until(() =>
      client.send(new DescribeTableCommand({ TableName })).then(
        () => undefined,
        (err: Error) => err,
      ),
    );
    expect(gone.name).toBe('ResourceNotFoundException');
    await expect(client.send(new GetItemCommand({ TableName, Key: { pk: S('a') } }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    expect((await active()).KeySchema).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
    await expect(client.send(new PutItemCommand({ TableName, Item: { pk: S('a') } }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await client.send(new PutItemCommand({ TableName, Item: { id: S('a') } }));
    expect((await client.send(new GetItemCommand({ TableName, Key: { id: S('a') } }))).Item).toEqual({
      id: S('a'),
    });
  });
});
