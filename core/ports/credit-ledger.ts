// Port: the credit ledger — holds, settles and grants on an account's balance, each with its ledger entry.

/**
 * A start hold `reserve` took off the balance, whose ledger entry is not written yet. The join only passes it on:
 * to `SessionsStore.create`, which writes the entry with the session in one request, or, when that write failed,
 * to `writeEntry`.
 */
export interface CreditHold {
  readonly accountId: string;
  readonly botId: string;
  /** Credits held (positive; the entry records it as a negative change of the balance). */
  readonly amount: number;
  /** When the hold was placed (ISO 8601). */
  readonly heldAt: string;
}

/** A hold on an account, with when it was placed (absent for holds placed before this was recorded). */
export interface OpenHold {
  botId: string;
  amount: number;
  heldAt?: string;
}

export type LedgerKind = 'grant' | 'hold' | 'release' | 'usage';

export interface LedgerEntry {
  entryId: string;
  kind: LedgerKind;
  /** Signed change of the balance. */
  amount: number;
  botId?: string;
  note?: string;
  createdAt: string;
}

/**
 * Balance and holds change together, so concurrent joins never spend more than the balance; every change has its
 * ledger entry, and retries (of a settle, a release, a grant with a request id) change the balance once.
 * Operations on a missing account throw AccountNotFoundError (core/accounts/errors.ts).
 */
export interface CreditLedger {
  /**
   * Adds (or, negative, removes) credits; returns the new balance. With a `requestId` (an idempotency key) a
   * retried grant with the same id grants once.
   */
  grant(accountId: string, amount: number, note?: string, now?: Date, requestId?: string): Promise<number>;
  /** Places the start hold for a bot and records it in the ledger; see `reserve`. */
  placeHold(accountId: string, botId: string, amount: number, maxRunning: number, now?: Date): Promise<void>;
  /**
   * Takes the start hold for a bot off the balance. Throws InsufficientCreditsError (with the balance) when it does
   * not fit, TooManyRunningBotsError when the account already runs `maxRunning` bots. A retry for a bot already
   * holding returns its hold again. The hold's ledger entry is NOT yet written: the caller passes the hold to
   * `SessionsStore.create` (or `writeEntry`) so the hold costs no extra request.
   */
  reserve(
    accountId: string,
    botId: string,
    amount: number,
    maxRunning: number,
    now?: Date,
  ): Promise<CreditHold>;
  /** Writes the ledger entry of a hold that `reserve` returned. Idempotent. */
  writeEntry(hold: CreditHold): Promise<void>;
  /** Returns a bot's hold to the balance uncharged (the bot never ran). Idempotent. */
  releaseHold(accountId: string, botId: string, now?: Date): Promise<void>;
  /**
   * Ends a bot's hold: the hold goes back and `charge` is taken, once however often it is retried or raced (the
   * first settle's charge wins). The balance may go below zero when usage exceeded it (post-paid). True when this
   * call moved the balance.
   */
  settle(accountId: string, botId: string, charge: number, now?: Date): Promise<boolean>;
  /** Ids of the accounts listed as holding credits (eventually consistent: may list some that hold nothing now). */
  accountsWithHolds(): Promise<string[]>;
  /** The account's holds with their times (a consistent read); empty when the account is gone. */
  openHolds(accountId: string): Promise<OpenHold[]>;
  /** Records `now` as the time of a hold that has none (placed before times were recorded); keeps any earlier. */
  stampHold(accountId: string, botId: string, now?: Date): Promise<void>;
  /**
   * Releases a hold whose session was never written: writes the hold's own entry if it is missing, then releases
   * it like `releaseHold`. Idempotent; true when this call moved the balance.
   */
  releaseOrphanedHold(accountId: string, hold: OpenHold, now?: Date): Promise<boolean>;
  /** Takes the account out of the accounts listed as holding credits if it holds nothing (a new hold lists it). */
  unlistIfNoHolds(accountId: string): Promise<void>;
  /** The account's ledger, oldest first. */
  entries(accountId: string): Promise<LedgerEntry[]>;
}
