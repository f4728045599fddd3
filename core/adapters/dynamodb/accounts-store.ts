// Accounts and their API keys in DynamoDB: keys are stored only as SHA-256 hashes and can be revoked.
import { AccountNotFoundError } from '../../accounts/errors';
import { newAccountId, newApiKey, newWebhookSecret } from '../../accounts/secrets';
import type { Account, AccountsStore, ApiKeyRecord } from '../../ports/accounts-store';
import {
  accountKeyPrefix,
  getItem,
  keys,
  putItem,
  queryAll,
  type StoredItem,
  type TableHandle,
  updateItem,
  written,
} from './table';

export class DynamoAccountsStore implements AccountsStore {
  constructor(private readonly table: TableHandle) {}

  /** Creates the account (zero balance) and its first key; credits are granted through the ledger. */
  async create(name: string, now = new Date()): Promise<{ account: Account; apiKey: string; keyId: string }> {
    const account: Account = {
      accountId: newAccountId(),
      name,
      balance: 0,
      holds: {},
      webhookSecret: newWebhookSecret(),
      createdAt: now.toISOString(),
    };
    await putItem(this.table, {
      Item: {
        ...keys.account(account.accountId),
        type: 'account',
        account_id: account.accountId,
        name: account.name,
        balance: 0,
        holds: {},
        webhook_secret: account.webhookSecret,
        created_at: account.createdAt,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    const { apiKey, keyId } = await this.createKey(account.accountId, now);
    return { account, apiKey, keyId };
  }

  async get(accountId: string): Promise<Account | null> {
    const Item = await getItem(this.table, keys.account(accountId));
    if (!Item) return null;
    return {
      accountId: Item.account_id,
      name: Item.name,
      balance: Item.balance,
      holds: Item.holds ?? {},
      webhookSecret: Item.webhook_secret,
      previousWebhookSecret: Item.previous_webhook_secret,
      webhookSecretRotatedAt: Item.webhook_secret_rotated_at,
      createdAt: Item.created_at,
      ...(Item.retention_days !== undefined && { retentionDays: Number(Item.retention_days) }),
    };
  }

  async setRetentionDays(accountId: string, days: number | null): Promise<boolean> {
    return written(
      updateItem(this.table, {
        Key: keys.account(accountId),
        UpdateExpression: days === null ? 'REMOVE retention_days' : 'SET retention_days = :d',
        ConditionExpression: 'attribute_exists(pk)',
        ...(days !== null && { ExpressionAttributeValues: { ':d': days } }),
      }),
    );
  }

  /** Issues a new key for an existing account. The plain key is returned once and never stored. */
  async createKey(accountId: string, now = new Date()): Promise<{ apiKey: string; keyId: string }> {
    const { apiKey, keyId, hash } = newApiKey();
    const createdAt = now.toISOString();
    // The account-side record first: a key is usable only once its hash record exists.
    const record = { key_id: keyId, hash, created_at: createdAt };
    for (const Item of [
      { ...keys.accountKey(accountId, keyId), type: 'account_key', ...record },
      { ...keys.apiKeyHash(hash), type: 'api_key', ...record, account_id: accountId },
    ])
      await putItem(this.table, { Item, ConditionExpression: 'attribute_not_exists(pk)' });
    return { apiKey, keyId };
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    const Item = await getItem(this.table, keys.apiKeyHash(hash));
    return Item ? keyRecord(Item, Item.account_id) : null;
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.account(accountId).pk, ':prefix': accountKeyPrefix },
      ConsistentRead: true,
    });
    return items.map((i) => keyRecord(i, accountId));
  }

  /** Revokes a key of this account; false when the account has no such key. */
  async revokeKey(accountId: string, keyId: string, now = new Date()): Promise<boolean> {
    const Item = await getItem(this.table, keys.accountKey(accountId, keyId));
    if (!Item) return false;
    const revokedAt = now.toISOString();
    // The hash record is what authentication reads, so it is revoked first.
    for (const key of [keys.apiKeyHash(Item.hash), keys.accountKey(accountId, keyId)]) {
      await updateItem(this.table, {
        Key: key,
        UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': revokedAt },
      });
    }
    return true;
  }

  /**
   * Replaces the webhook secret; the old one keeps signing alongside until the overlap
   * (WEBHOOK_SECRET_OVERLAP_SECONDS) from now ends, see `signingSecrets`.
   */
  async rotateWebhookSecret(accountId: string, now = new Date()): Promise<string> {
    const secret = newWebhookSecret();
    const rotated = await written(
      updateItem(this.table, {
        Key: keys.account(accountId),
        UpdateExpression:
          'SET previous_webhook_secret = webhook_secret, webhook_secret = :s, webhook_secret_rotated_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':s': secret, ':now': now.toISOString() },
      }),
    );
    if (!rotated) throw new AccountNotFoundError(accountId);
    return secret;
  }
}

/** A key's record, from either of its items (the account's or the hash's). */
const keyRecord = (i: StoredItem, accountId: string): ApiKeyRecord => ({
  keyId: i.key_id,
  accountId,
  hash: i.hash,
  createdAt: i.created_at,
  revokedAt: i.revoked_at,
});
