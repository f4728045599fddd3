// Errors of the credit ledger and the accounts, as the domain names them: the stores throw them, the join turns
// them into its 402 and 429 answers and the admin CLI into its "not found".

/** The balance does not cover the hold a join takes (the join answers 402 insufficient_credits with it). */
export class InsufficientCreditsError extends Error {
  constructor(readonly balance: number) {
    super(`balance ${balance} is below the hold`);
    this.name = 'InsufficientCreditsError';
  }
}

/** The account already runs as many bots as it may at once (the join answers 429 rate_limited). */
export class TooManyRunningBotsError extends Error {
  constructor(readonly limit: number) {
    super(`the account already runs ${limit} bots`);
    this.name = 'TooManyRunningBotsError';
  }
}

export class AccountNotFoundError extends Error {
  constructor(accountId: string) {
    super(`account ${accountId} not found`);
    this.name = 'AccountNotFoundError';
  }
}
