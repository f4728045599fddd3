// Port: accounts and their API keys; keys are kept only as hashes and can be revoked.

export interface Account {
  accountId: string;
  name: string;
  balance: number;
  /** Credits on hold per running bot id. */
  holds: Record<string, number>;
  webhookSecret: string;
  /** The previous secret during a rotation overlap: both signatures are sent until it expires. */
  previousWebhookSecret?: string;
  /** When `webhookSecret` replaced `previousWebhookSecret`: the overlap runs from here. */
  webhookSecretRotatedAt?: string;
  createdAt: string;
  /** Days the meeting content of this account's bots is kept; unset: the deployment's RETENTION_DAYS. */
  retentionDays?: number;
}

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  hash: string;
  createdAt: string;
  revokedAt?: string;
}

export interface AccountsStore {
  /** Creates the account (zero balance) and its first key; credits are granted through the ledger. */
  create(name: string, now?: Date): Promise<{ account: Account; apiKey: string; keyId: string }>;
  get(accountId: string): Promise<Account | null>;
  /** Issues a new key for an existing account. The plain key is returned once and never stored. */
  createKey(accountId: string, now?: Date): Promise<{ apiKey: string; keyId: string }>;
  findKeyByHash(hash: string): Promise<ApiKeyRecord | null>;
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Revokes a key of this account; false when the account has no such key. */
  revokeKey(accountId: string, keyId: string, now?: Date): Promise<boolean>;
  /**
   * Replaces the webhook secret; the old one keeps signing alongside until the overlap
   * (WEBHOOK_SECRET_OVERLAP_SECONDS) from now ends. Throws AccountNotFoundError for a missing account.
   */
  rotateWebhookSecret(accountId: string, now?: Date): Promise<string>;
  /** Sets the account's retention (days), or back to the deployment's default (null). False: no such account. */
  setRetentionDays(accountId: string, days: number | null): Promise<boolean>;
}
