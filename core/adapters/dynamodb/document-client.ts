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
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand as QueryItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
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

/** Undefined attributes are left out; class instances are an error rather than silently stored as maps. */
const marshallOptions = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;
const marshalled = (map: Doc) => marshall(map, marshallOptions);

/**
 * The parameters of a request or response that hold attribute maps (true: marshalled going out, unmarshalled coming
 * back; each one of a list alike), and the legacy ones we never send (false: dropped; we write expressions only).
 */
const attributeMaps: Record<string, boolean> = {
  Key: true,
  Keys: true,
  Item: true,
  Items: true,
  Attributes: true,
  ExclusiveStartKey: true,
  LastEvaluatedKey: true,
  ExpressionAttributeValues: true,
  Expected: false,
  AttributeUpdates: false,
  KeyConditions: false,
  QueryFilter: false,
};

/**
 * `part` with its attribute maps converted, the rest as it is. Copied key by key: a rest-and-spread copy cost V8 about
 * 4 µs a call, as much as the marshalling itself.
 */
function converted(part: object, convert: (map: never) => Doc): never {
  const out: Doc = {};
  for (const name in part) {
    const value = (part as Doc)[name];
    const maps = attributeMaps[name];
    if (maps === undefined) out[name] = value;
    else if (maps && value !== undefined)
      out[name] = Array.isArray(value) ? value.map((v) => convert(v as never)) : convert(value as never);
  }
  return out as never;
}

/** Each value of `byKey` (per table, or per kind of a transaction's item) through `convert`. */
const eachValue = (byKey: object, convert: (value: never) => unknown): never =>
  Object.fromEntries(Object.entries(byKey).map(([key, value]) => [key, convert(value as never)])) as never;

/** BatchWriteItem's put and delete requests per table, their items and keys converted. */
const writeRequests = (byTable: object, convert: (map: never) => Doc): never =>
  eachValue(byTable, (requests: object[]) =>
    requests.map((r) => eachValue(r, (op: object) => converted(op, convert))),
  );

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
    if (Wire)
      return converted(await this.client.send(new Wire(converted(command.input, marshalled))), unmarshall);
    if (command instanceof BatchWriteCommand) {
      const { RequestItems = {} } = command.input;
      const out = await this.client.send(
        new BatchWriteItemCommand({
          ...command.input,
          RequestItems: writeRequests(RequestItems, marshalled),
        }),
      );
      return {
        ...out,
        UnprocessedItems: out.UnprocessedItems && writeRequests(out.UnprocessedItems, unmarshall),
      };
    }
    if (command instanceof BatchGetCommand) {
      const { RequestItems = {} } = command.input;
      const keys = (byTable: object, convert: (map: never) => Doc) =>
        eachValue(byTable, (k: object) => converted(k, convert));
      const out = await this.client.send(
        new BatchGetItemCommand({ ...command.input, RequestItems: keys(RequestItems, marshalled) }),
      );
      return {
        ...out,
        Responses:
          out.Responses && eachValue(out.Responses, (items: never[]) => items.map((i) => unmarshall(i))),
        UnprocessedKeys: out.UnprocessedKeys && keys(out.UnprocessedKeys, unmarshall),
      };
    }
    if (command instanceof TransactWriteCommand) {
      const TransactItems = (command.input.TransactItems ?? []).map((t) =>
        eachValue(t, (op: object) => converted(op, marshalled)),
      );
      return this.client.send(new TransactWriteItemsCommand({ ...command.input, TransactItems }));
    }
    throw new TypeError(`DocumentClient: unsupported command ${(command as object).constructor.name}`);
  }

  destroy(): void {
    this.client.destroy();
  }
}
