// DynamoDB with plain JavaScript values: the request shapes of @aws-sdk/lib-dynamodb's commands, marshalled with
// @aws-sdk/util-dynamodb and sent through one DynamoDBClient whose handler chain is built once per operation
// (`cacheMiddleware`). DynamoDBDocumentClient cannot cache it (it adds middleware to every command), and
// rebuilding the chain on each call measured at about twice the client CPU per call (bench/api-latency).
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
    if (command instanceof GetCommand) {
      const { Key, ...rest } = command.input;
      const out = await this.client.send(new GetItemCommand({ ...rest, Key: toItem(Key) }));
      return { ...out, Item: fromItem(out.Item) };
    }
    if (command instanceof PutCommand) {
      const { Item, ExpressionAttributeValues, Expected: _, ...rest } = command.input;
      const out = await this.client.send(
        new PutItemCommand({
          ...rest,
          Item: toItem(Item)!,
          ExpressionAttributeValues: toItem(ExpressionAttributeValues),
        }),
      );
      return { ...out, Attributes: fromItem(out.Attributes) };
    }
    if (command instanceof UpdateCommand) {
      const { Key, ExpressionAttributeValues, Expected: _, AttributeUpdates: __, ...rest } = command.input;
      const out = await this.client.send(
        new UpdateItemCommand({
          ...rest,
          Key: toItem(Key)!,
          ExpressionAttributeValues: toItem(ExpressionAttributeValues),
        }),
      );
      return { ...out, Attributes: fromItem(out.Attributes) };
    }
    if (command instanceof DeleteCommand) {
      const { Key, ExpressionAttributeValues, Expected: _, ...rest } = command.input;
      const out = await this.client.send(
        new DeleteItemCommand({
          ...rest,
          Key: toItem(Key)!,
          ExpressionAttributeValues: toItem(ExpressionAttributeValues),
        }),
      );
      return { ...out, Attributes: fromItem(out.Attributes) };
    }
    if (command instanceof QueryCommand) {
      const {
        ExclusiveStartKey,
        ExpressionAttributeValues,
        KeyConditions: _,
        QueryFilter: __,
        ...rest
      } = command.input;
      const out = await this.client.send(
        new QueryItemsCommand({
          ...rest,
          ExclusiveStartKey: toItem(ExclusiveStartKey),
          ExpressionAttributeValues: toItem(ExpressionAttributeValues),
        }),
      );
      return {
        ...out,
        Items: out.Items?.map((item) => fromItem(item)!),
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
      const items = (command.input.TransactItems ?? []).map((t) => {
        const [kind, op] = Object.entries(t)[0] as [string, Doc];
        const { Key, Item, ExpressionAttributeValues, ...rest } = op;
        return {
          [kind]: {
            ...rest,
            ...(Key !== undefined && { Key: toItem(Key as Doc) }),
            ...(Item !== undefined && { Item: toItem(Item as Doc) }),
            ExpressionAttributeValues: toItem(ExpressionAttributeValues as Doc | undefined),
          },
        } as TransactWriteItem;
      });
      return this.client.send(new TransactWriteItemsCommand({ ...command.input, TransactItems: items }));
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
