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

/** Per input parameter: marshalled (true) or left out (false, the legacy ones: we write expressions only). */
const wireConversion: Record<string, boolean> = {
  Key: true,
  Item: true,
  ExclusiveStartKey: true,
  ExpressionAttributeValues: true,
  Expected: false,
  AttributeUpdates: false,
  KeyConditions: false,
  QueryFilter: false,
};

/**
 * One operation's input on the wire: its key, item, start key and expression values marshalled. Copied property by
 * property, not by rest and spread: that cost about 4 µs a call in V8, as much as the marshalling itself.
 */
function toWire(input: Doc): Doc {
  const wire: Doc = {};
  for (const name in input) {
    const convert = wireConversion[name];
    const value = input[name];
    if (convert === undefined) wire[name] = value;
    else if (convert && value !== undefined) wire[name] = toItem(value as Doc);
  }
  return wire;
}

/** A single-item operation's or Query's output: marshalled as received, then converted in place to plain values. */
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
      // The output is ours alone: converted in place rather than copied (a copy cost about 4 µs a call).
      const out: WireOutput = await this.client.send(new Wire(toWire(command.input) as never));
      if (out.Item) out.Item = unmarshall(out.Item);
      if (out.Attributes) out.Attributes = unmarshall(out.Attributes);
      if (out.Items) out.Items = out.Items.map((item) => unmarshall(item));
      if (out.LastEvaluatedKey) out.LastEvaluatedKey = unmarshall(out.LastEvaluatedKey);
      return out;
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
