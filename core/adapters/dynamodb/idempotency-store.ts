// Idempotency records for POST /api/bot/join (ARCHITECTURE.md): one per account and key, kept 24 h.

import { createHash } from 'node:crypto';
import type { ClaimResult, IdempotencyStore, StoredResponse } from '../../ports/idempotency-store';
import {
  deleteItem,
  getItem,
  keys,
  putItem,
  type TableHandle,
  ttlAttribute,
  updateItem,
  written,
} from './table';

export class DynamoIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly table: TableHandle,
    private readonly ttlSeconds: number,
  ) {}

  private key(accountId: string, idempotencyKey: string) {
    // The caller's key is hashed so arbitrary header bytes never become part of a DynamoDB key.
    return keys.idempotency(accountId, createHash('sha256').update(idempotencyKey).digest('hex'));
  }

  /** Claims the key for this request, or returns the record a previous request left (expired ones are reclaimed). */
  async claim(
    accountId: string,
    idempotencyKey: string,
    fingerprint: string,
    /** The response this request will give when it succeeds: a duplicate arriving after the in-flight limit gets it. */
    pending: StoredResponse,
    now = new Date(),
  ): Promise<ClaimResult> {
    const epoch = Math.floor(now.getTime() / 1000);
    const claimed = await written(
      putItem(this.table, {
        Item: {
          ...this.key(accountId, idempotencyKey),
          type: 'idempotency',
          fingerprint,
          state: 'in_flight',
          response: pending,
          created_at: now.toISOString(),
          [ttlAttribute]: epoch + this.ttlSeconds,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
        ExpressionAttributeNames: { '#ttl': ttlAttribute },
        ExpressionAttributeValues: { ':now': epoch },
      }),
    );
    if (claimed) return { claimed: true };
    const Item = await getItem(this.table, this.key(accountId, idempotencyKey));
    if (!Item) return this.claim(accountId, idempotencyKey, fingerprint, pending, now); // released meanwhile
    return {
      claimed: false,
      existing: {
        fingerprint: Item.fingerprint,
        state: Item.state,
        createdAt: Item.created_at,
        response: Item.response,
      },
    };
  }

  /** Stores the response of a request that succeeded, for replay. */
  async complete(accountId: string, idempotencyKey: string, response: StoredResponse): Promise<void> {
    await updateItem(this.table, {
      Key: this.key(accountId, idempotencyKey),
      UpdateExpression: 'SET #state = :done, #response = :r',
      ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
      ExpressionAttributeValues: { ':done': 'done', ':r': response },
    });
  }

  /** Forgets the key after a request that failed, so the client may retry with it. */
  async release(accountId: string, idempotencyKey: string): Promise<void> {
    await deleteItem(this.table, { Key: this.key(accountId, idempotencyKey) });
  }
}
