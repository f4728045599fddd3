// Delivery records: one per bot, channel and event, with every attempt (time, status, latency, error).
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PurgeCursor } from '../../ports/data-deletions';
import type {
  Attempt,
  Channel,
  ClaimResult,
  DeliveriesStore,
  Delivery,
  DeliveryStatus,
  NewDeliveryRecord,
} from '../../ports/deliveries-store';
import { packText, unpackText } from './packed-text';
import {
  cancellationReasons,
  conditional,
  getItem,
  keys,
  putItem,
  queryAll,
  queryPage,
  type TableHandle,
  updateItem,
  written,
} from './table';

const prefix = 'DELIVERY#';
/** An e-mail delivery's target once its meeting's data is deleted: the address was the person's. */
export const deletedTarget = '(deleted)';
const sortKey = (channel: Channel, event: string) => `${prefix}${channel}#${event}`;
/** Deliveries a purge reads per call (a page also stops at 1 MB read): their updates go out together. */
const purgePageItems = 25;

function fromItem(i: Record<string, unknown>): Delivery {
  return {
    botId: i.bot_id as string,
    accountId: i.account_id as string,
    channel: i.channel as Channel,
    event: i.event as string,
    target: i.target as string,
    payload: unpackText(i.payload) ?? '',
    messageId: i.message_id as string,
    status: i.status as DeliveryStatus,
    attempts: (i.attempts as Attempt[]) ?? [],
    createdAt: i.created_at as string,
    deliveredAt: i.delivered_at as string | undefined,
    nextAttemptAt: i.next_attempt_at as string | undefined,
    claimUntil: i.claim_until as number | undefined,
    ...(i.seq !== undefined && { seq: Number(i.seq) }),
    ...(i.content_deleted_at !== undefined && { contentDeletedAt: i.content_deleted_at as string }),
  };
}

/** A new record's attributes, pending with no attempt: the one shape a put, a claim's create and a content claim write. */
function newRecordAttributes(
  d: Pick<
    Delivery,
    'botId' | 'accountId' | 'channel' | 'event' | 'target' | 'payload' | 'messageId' | 'createdAt' | 'seq'
  >,
): Record<string, unknown> {
  return {
    type: 'delivery',
    bot_id: d.botId,
    account_id: d.accountId,
    channel: d.channel,
    event: d.event,
    target: d.target,
    // A results e-mail carries the whole transcript twice (HTML and text): packed when large.
    payload: packText(d.payload),
    message_id: d.messageId,
    status: 'pending',
    attempts: [],
    created_at: d.createdAt,
    ...(d.seq !== undefined && { seq: d.seq }),
  };
}

export class DynamoDeliveriesStore implements DeliveriesStore {
  constructor(private readonly table: TableHandle) {}

  private key(botId: string, channel: Channel, event: string) {
    return { pk: keys.session(botId).pk, sk: sortKey(channel, event) };
  }

  /** Creates the record once; a duplicate results message finds it and changes nothing. Returns false then. */
  async create(d: Omit<Delivery, 'status' | 'attempts'>): Promise<boolean> {
    return written(
      putItem(this.table, {
        Item: { ...this.key(d.botId, d.channel, d.event), ...newRecordAttributes(d) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(botId: string, channel: Channel, event: string): Promise<Delivery | null> {
    const Item = await getItem(this.table, this.key(botId, channel, event));
    return Item ? fromItem(Item) : null;
  }

  /** Every page: a results e-mail's record alone can hold hundreds of kilobytes, so one page of 1 MB is not all. */
  async list(botId: string): Promise<Delivery[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': keys.session(botId).pk, ':p': prefix },
      ConsistentRead: true,
    });
    return items.map(fromItem);
  }

  /** See DeliveriesStore.claim: a job sent twice for one event finds the record its first created, so sends once. */
  async claim(
    botId: string,
    channel: Channel,
    event: string,
    untilMs: number,
    nowMs: number,
    create?: NewDeliveryRecord,
  ): Promise<ClaimResult> {
    if (create?.meetingContent) {
      const created = await this.createClaimedContent(create, untilMs);
      // Exists already (a duplicate job, a retry): claimed as a stored record, which keeps what it has.
      if (created !== 'exists') return created;
      return this.claim(botId, channel, event, untilMs, nowMs);
    }
    const sets = ['claim_until = :until'];
    const values: Record<string, unknown> = {
      ':until': untilMs,
      ':now': nowMs,
      ':nowIso': new Date(nowMs).toISOString(),
      ':pending': 'pending',
    };
    const names: Record<string, string> = { '#s': 'status' };
    if (create) {
      const fields: Record<string, unknown> = newRecordAttributes(create);
      for (const [i, [name, value]] of Object.entries(fields).entries()) {
        names[`#c${i}`] = name;
        values[`:c${i}`] = value;
        sets.push(`#c${i} = if_not_exists(#c${i}, :c${i})`);
      }
    }
    // Not before its next attempt is due: a duplicate or early job must not skip the backoff.
    const claimable =
      '#s = :pending AND (attribute_not_exists(claim_until) OR claim_until < :now) AND (attribute_not_exists(next_attempt_at) OR next_attempt_at <= :nowIso)';
    const claimed = await conditional(
      updateItem(this.table, {
        Key: this.key(botId, channel, event),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: create ? `attribute_not_exists(pk) OR (${claimable})` : claimable,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return claimed?.Attributes ? fromItem(claimed.Attributes) : null;
  }

  /**
   * Creates a content delivery claimed, in one TransactWriteItems with a check that the session's data is not deleted:
   * a job queued before the deletion can never store the content again after the purge (an UpdateItem can only test
   * its own item). A transaction returns no attributes, so it only creates; a record that exists is claimed by the
   * caller's UpdateItem (a second call, only for duplicates and retries).
   */
  private async createClaimedContent(
    create: NewDeliveryRecord,
    untilMs: number,
  ): Promise<Delivery | 'data_deleted' | 'exists'> {
    const item = {
      ...this.key(create.botId, create.channel, create.event),
      ...newRecordAttributes(create),
      claim_until: untilMs,
    };
    try {
      await this.table.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.table.tableName,
                Key: keys.session(create.botId),
                ConditionExpression: 'attribute_not_exists(data_deleted_at)',
              },
            },
            {
              Put: {
                TableName: this.table.tableName,
                Item: item,
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return fromItem(item);
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (!reasons) throw err;
      // A record that exists was stored before the deletion (its purge removes the payload): the claim decides.
      if (reasons[1] === 'ConditionalCheckFailed') return 'exists';
      if (reasons[0] === 'ConditionalCheckFailed') return 'data_deleted';
      throw err;
    }
  }

  async recordAttempt(
    d: Delivery,
    attempt: Attempt,
    outcome: { status: DeliveryStatus; nextAttemptAt?: string },
  ): Promise<boolean> {
    const sets = ['attempts = list_append(attempts, :a)', '#s = :status', 'claim_until = :zero'];
    const values: Record<string, unknown> = {
      ':a': [attempt],
      ':status': outcome.status,
      ':pending': 'pending',
      ':zero': 0,
    };
    if (outcome.status === 'delivered') {
      sets.push('delivered_at = :at');
      values[':at'] = attempt.at;
    }
    if (outcome.nextAttemptAt) {
      sets.push('next_attempt_at = :next');
      values[':next'] = outcome.nextAttemptAt;
    }
    return written(
      updateItem(this.table, {
        Key: this.key(d.botId, d.channel, d.event),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: '#s = :pending',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: values,
      }),
    );
  }

  /** A failed (dead-lettered) delivery goes back to pending for a redrive; its attempts are kept. */
  async reopen(botId: string, channel: Channel, event: string): Promise<boolean> {
    return written(
      updateItem(this.table, {
        Key: this.key(botId, channel, event),
        UpdateExpression: 'SET #s = :pending, claim_until = :zero',
        ConditionExpression: '#s = :failed',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':failed': 'failed', ':zero': 0 },
      }),
    );
  }

  /**
   * One page of the bot's deliveries that still hold a payload (a resumed purge skips those done), each updated: the
   * payload goes, the record (status, attempts, webhook-id) stays. UpdateItem, not a BatchWriteItem put of the record
   * read: a put would overwrite an attempt the delivery stage records meanwhile. A page's updates go side by side.
   */
  async purgeContent(botId: string, at: Date, from?: PurgeCursor): Promise<PurgeCursor | undefined> {
    const { items, next } = await queryPage(
      this.table,
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        FilterExpression: 'attribute_exists(payload)',
        ExpressionAttributeValues: { ':pk': keys.session(botId).pk, ':p': prefix },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        Limit: purgePageItems,
      },
      from,
    );
    await Promise.all(
      items.map((item) => {
        // An e-mail's target is the person's address: it goes with the payload (a webhook's is the customer's own
        // endpoint, not meeting content).
        const email = String(item.sk).startsWith(`${prefix}email#`);
        return updateItem(this.table, {
          Key: { pk: item.pk, sk: item.sk },
          // The first deletion's time stays; a repeat only makes sure the payload is gone.
          UpdateExpression: `SET content_deleted_at = if_not_exists(content_deleted_at, :at)${email ? ', target = :gone' : ''} REMOVE payload`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at.toISOString(), ...(email && { ':gone': deletedTarget }) },
        });
      }),
    );
    return next;
  }
}
