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
