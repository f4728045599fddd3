// What an admin command is, the flags it may take, its errors, and the helpers the commands share (admin/cli.ts runs them).
import type { Adapters } from '../../core/adapters/wiring';
import type { Stores } from '../../core/deps';

export const options = {
  name: { type: 'string' },
  credits: { type: 'string' },
  account: { type: 'string' },
  key: { type: 'string' },
  amount: { type: 'string' },
  note: { type: 'string' },
  'request-id': { type: 'string' },
  bot: { type: 'string' },
  days: { type: 'string' },
  stage: { type: 'string' },
  json: { type: 'boolean' },
  aws: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type Flags = {
  [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'string' ? string : boolean;
};

export interface Result {
  json: Record<string, unknown>;
  text: string;
}

/** Work on the database the CLI opened; its adapters are built on first use. */
type Work = (adapters: Adapters) => Promise<Result>;
/** Work on AWS itself rather than on the table; its exit code is its own (1 when it found a problem). */
type Check = () => Promise<Result & { exitCode: number }>;

export interface Command {
  /** Flags as shown in the usage text; the command accepts exactly the flags named here. */
  args: string;
  about: string;
  /** Validates the flags before any database is touched, and returns the work to do. */
  prepare(flags: Flags): Work | { check: Check };
  /** Creates what it works on (an account), so it may start a database in an empty DATA_DIR; the others find nothing. */
  createsData?: true;
}

export class UsageError extends Error {}
export class NotFoundError extends Error {}

export function required(
  flags: Flags,
  name: 'account' | 'amount' | 'credits' | 'key' | 'name' | 'days' | 'bot',
): string {
  const value = flags[name];
  if (value === undefined || value === '') throw new UsageError(`missing --${name}`);
  return value;
}

export function integer(flags: Flags, name: 'amount' | 'credits'): number {
  const raw = required(flags, name);
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new UsageError(`--${name} must be a whole number, got '${raw}'`);
  }
  return value;
}

type Account = NonNullable<Awaited<ReturnType<Stores['accounts']['get']>>>;

/** The work of a command on one account (--account), which must exist: it is read first (NotFoundError). */
export function onAccount(
  flags: Flags,
  work: (account: Account, adapters: Adapters) => Promise<Result>,
): (adapters: Adapters) => Promise<Result> {
  const accountId = required(flags, 'account');
  return async (adapters) => {
    const account = await adapters.stores.accounts.get(accountId);
    if (!account) throw new NotFoundError(`account ${accountId} not found`);
    return work(account, adapters);
  };
}

export const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
export const lines = (...ls: string[]) => `${ls.join('\n')}\n`;
