// DynamoDB with plain JavaScript values: the request shapes of @aws-sdk/lib-dynamodb's commands, marshalled with
// @aws-sdk/util-dynamodb and sent through one DynamoDBClient whose handler chain is built once per operation
// (`cacheMiddleware`). lib-dynamodb's DynamoDBDocumentClient refuses that option (it adds its marshalling middleware
// to every command), so it builds the chain again on every call. Measured on our process's CPU per request of the
// whole route handler, Lambda-shaped, dynalite in another process (`npx tsx bench/document-client-cpu.ts 16 60`,
// 2026-11-28, SDK 3.1162, on the loaded 2-core VM): a status read (rate window, session, transcript catch-up) 0.81x
// of DynamoDBDocumentClient's (medians 5.2 against 6.0 ms; middle half of 16 paired rounds 0.72-0.99x), a join
// (rate window, hold, batched session write) 0.80x (6.8 against 8.0 ms; 0.71-0.90x). Measure again after an SDK
// upgrade: at under 5 % of a request, DynamoDBDocumentClient.from(client) should replace this file.
import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  type KeysAndAttributes,
  PutItemCommand,
  QueryCommand as QueryItemsCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  DeleteCommand,
  type DeleteCommandOutput,
  GetCommand,
  type GetCommandOutput,
  PutCommand,
  type PutCommandOutput,
  QueryCommand,
  type QueryCommandOutput,
  TransactWriteCommand,
  type TransactWriteCommandOutput,
  UpdateCommand,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

type Doc = Record<string, unknown>;
type Marshalled = Record<string, AttributeValue>;

/** Undefined attributes are left out; class instances are an error rather than silently stored as maps. */
const marshallOptions = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

const toItem = (doc: Doc | undefined): Marshalled | undefined =>
  doc === undefined ? undefined : marshall(doc, marshallOptions);
const fromItem = (item: Marshalled | undefined): Doc | undefined =>
  item === undefined ? undefined : unmarshall(item);

/**
 * One operation's input on the wire: its key, item, start key and expression values marshalled. The legacy
 * parameters (Expected, AttributeUpdates, KeyConditions, QueryFilter) are left out: we write expressions only.
 */
function toWire(input: Doc): Doc {
  const { Key, Item, ExclusiveStartKey, ExpressionAttributeValues, ...rest } = input;
  const { Expected, AttributeUpdates, KeyConditions, QueryFilter, ...kept } = rest;
  return {
    ...kept,
    ...(Key !== undefined && { Key: toItem(Key as Doc) }),
    ...(Item !== undefined && { Item: toItem(Item as Doc) }),
    ...(ExclusiveStartKey !== undefined && { ExclusiveStartKey: toItem(ExclusiveStartKey as Doc) }),
    ...(ExpressionAttributeValues !== undefined && {
      ExpressionAttributeValues: toItem(ExpressionAttributeValues as Doc),
    }),
  };
}

interface WireOutput {
  Item?: Marshalled;
  Attributes?: Marshalled;
  Items?: Marshalled[];
  LastEvaluatedKey?: Marshalled;
}

/** The wire command of each single-item operation and Query: their inputs and outputs convert alike. */
const singleOperations = new Map<unknown, new (input: never) => GetItemCommand>([
  [GetCommand, GetItemCommand],
  [PutCommand, PutItemCommand as never],
  [UpdateCommand, UpdateItemCommand as never],
  [DeleteCommand, DeleteItemCommand as never],
  [QueryCommand, QueryItemsCommand as never],
]);

export class DocumentClient {
  /** `client` must be built with `cacheMiddleware: true` and no per-command middleware. */
  constructor(readonly client: DynamoDBClient) {}

  send(command: GetCommand): Promise<GetCommandOutput>;
  send(command: PutCommand): Promise<PutCommandOutput>;
  send(command: UpdateCommand): Promise<UpdateCommandOutput>;
  send(command: DeleteCommand): Promise<DeleteCommandOutput>;
  send(command: QueryCommand): Promise<QueryCommandOutput>;
  send(command: BatchWriteCommand): Promise<BatchWriteCommandOutput>;
  send(command: BatchGetCommand): Promise<BatchGetCommandOutput>;
  send(command: TransactWriteCommand): Promise<TransactWriteCommandOutput>;
  async send(
    command:
      | GetCommand
      | PutCommand
      | UpdateCommand
      | DeleteCommand
      | QueryCommand
      | BatchWriteCommand
      | BatchGetCommand
      | TransactWriteCommand,
  ): Promise<unknown> {
    const Wire = singleOperations.get(command.constructor);
    if (Wire) {
      const out: WireOutput = await this.client.send(new Wire(toWire(command.input) as never));
      return {
        ...out,
        Item: fromItem(out.Item),
        Attributes: fromItem(out.Attributes),
        Items: out.Items?.map((item) => unmarshall(item)),
        LastEvaluatedKey: fromItem(out.LastEvaluatedKey),
      };
    }
    if (command instanceof BatchWriteCommand) {
      const requests = mapRequests(command.input.RequestItems ?? {}, toItem) as Record<
        string,
        WriteRequest[]
      >;
      const out = await this.client.send(
        new BatchWriteItemCommand({ ...command.input, RequestItems: requests }),
      );
      return {
        ...out,
        UnprocessedItems: out.UnprocessedItems && mapRequests(out.UnprocessedItems, fromItem),
      };
    }
    if (command instanceof BatchGetCommand) {
      const mapKeys = <F, T>(byTable: Record<string, { Keys?: F[] }>, convert: (v: F) => T) =>
        Object.fromEntries(
          Object.entries(byTable).map(([table, k]) => [table, { ...k, Keys: k.Keys?.map(convert) }]),
        );
      const out = await this.client.send(
        new BatchGetItemCommand({
          ...command.input,
          RequestItems: mapKeys(command.input.RequestItems ?? {}, (k) => toItem(k)!) as Record<
            string,
            KeysAndAttributes
          >,
        }),
      );
      return {
        ...out,
        Responses:
          out.Responses &&
          Object.fromEntries(
            Object.entries(out.Responses).map(([table, items]) => [table, items.map((i) => fromItem(i)!)]),
          ),
        UnprocessedKeys: out.UnprocessedKeys && mapKeys(out.UnprocessedKeys, (k) => fromItem(k)!),
      };
    }
    if (command instanceof TransactWriteCommand) {
      const TransactItems = (command.input.TransactItems ?? []).map(
        (t) =>
          Object.fromEntries(
            Object.entries(t).map(([kind, op]) => [kind, toWire(op as Doc)]),
          ) as TransactWriteItem,
      );
      return this.client.send(new TransactWriteItemsCommand({ ...command.input, TransactItems }));
    }
    throw new TypeError(`DocumentClient: unsupported command ${(command as object).constructor.name}`);
  }

  destroy(): void {
    this.client.destroy();
  }
}

/** Converts the items and keys of BatchWriteItem's per-table put and delete requests. */
type Requests<V> = Record<string, { PutRequest?: { Item?: V }; DeleteRequest?: { Key?: V } }[]>;

function mapRequests<From, To>(
  byTable: Requests<From>,
  convert: (value: From | undefined) => To | undefined,
): Requests<To> {
  return Object.fromEntries(
    Object.entries(byTable).map(([table, requests]) => [
      table,
      requests.map((r) =>
        r.PutRequest
          ? { PutRequest: { Item: convert(r.PutRequest.Item) } }
          : { DeleteRequest: { Key: convert(r.DeleteRequest?.Key) } },
      ),
    ]),
  );
}
