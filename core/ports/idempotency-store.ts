// Port: idempotency records for POST /api/bot/join (ARCHITECTURE.md), one per account and key.

/** A response as the join gave it, kept for replay. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface IdempotencyRecord {
  fingerprint: string;
  state: 'in_flight' | 'done';
  createdAt: string;
  response?: StoredResponse;
}

export type ClaimResult = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

export interface IdempotencyStore {
  /**
   * Claims the key for this request, or returns the record a previous request left (expired ones are reclaimed).
   * `pending` is the response this request will give when it succeeds: a duplicate arriving after the in-flight
   * limit gets it.
   */
  claim(
    accountId: string,
    idempotencyKey: string,
    fingerprint: string,
    pending: StoredResponse,
    now?: Date,
  ): Promise<ClaimResult>;
  /** Stores the response of a request that succeeded, for replay. */
  complete(accountId: string, idempotencyKey: string, response: StoredResponse): Promise<void>;
  /** Forgets the key after a request that failed, so the client may retry with it. */
  release(accountId: string, idempotencyKey: string): Promise<void>;
}
