// The credit ledger: holds, releases, usage charges and grants, each one conditional write on the account item.
//
// The account item is the source of truth: `balance` and the `holds` map change together in one conditional
// UpdateItem, so concurrent joins can never spend more than the balance (dynalite has no transactions, and one
// conditional write is also cheaper than one). Ledger entries use deterministic ids per bot, so a retried
// settle or release writes the same entry again instead of a second one; a settle writes its entries before it
// moves the balance (see `settle`), so a failure between the two is repaired by the retry, never lost.

import { randomBytes } from 'node:crypto';
import {
  AccountNotFoundError,
  InsufficientCreditsError,
  TooManyRunningBotsError,
} from '../../accounts/errors';
import { botIdTime } from '../../bots/bot-id';
import type { CreditHold, CreditLedger, LedgerEntry, LedgerKind, OpenHold } from '../../ports/credit-ledger';
import {
  conditional,
  getItem,
  keys,
  ledgerPrefix,
  putItem,
  queryAll,
  runningIndex,
  type TableHandle,
  type TableItem,
  updateItem,
  written,
} from './table';

/**
 * Accounts holding credits are also listed in the sparse `running` index under their own partition (its sort key
 * the account's pk), so the hold reconciler finds them with one Query instead of a Scan. `reserve` adds the
 * account; the reconciler takes it out once its holds map is empty.
 */
const heldAccountsPartition = 'HOLDS';

/**
 * Top-level attribute on the account item recording when a bot's hold was placed (removed with the hold), for the
 * holds whose bot id does not carry that time (`botIdTime`).
 */
const holdAtAttribute = (botId: string) => `hold_at#${botId}`;

export class DynamoCreditLedger implements CreditLedger {
  constructor(private readonly table: TableHandle) {}

  /**
   * Adds (or, negative, removes) credits; returns the new balance. With a `requestId` (an idempotency key) a
   * retried grant with the same id grants once (see `grantOnce`).
   */
  async grant(
    accountId: string,
    amount: number,
    note = 'grant',
    now = new Date(),
    requestId?: string,
  ): Promise<number> {
    if (!Number.isInteger(amount) || amount === 0) throw new Error('amount must be a non-zero integer');
    if (requestId !== undefined) return this.grantOnce(accountId, amount, note, now, requestId);
    const granted = await conditional(
      updateItem(this.table, {
        Key: keys.account(accountId),
        UpdateExpression: 'SET balance = balance + :a',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':a': amount },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    if (!granted) throw new AccountNotFoundError(accountId);
    const stamp = now.toISOString();
    const entry = { kind: 'grant', amount, note, createdAt: stamp } as const;
    await this.put(entryItem(accountId, `grant#${stamp}#${randomBytes(4).toString('hex')}`, entry));
    return granted.Attributes?.balance;
  }

  /**
   * A grant keyed by `requestId`, applied once however often it is retried, and whichever write of it failed:
   * 1. its ledger entry (id from the request id) is written only if absent, `applied: false`; a retry finds it
   *    (and refuses another amount under the same id);
   * 2. the balance moves together with a marker attribute on the account item, conditional on the marker being
   *    absent, so a retry after this step cannot add again;
   * 3. the entry is marked applied, then the marker removed (it only lives while a grant is in flight).
   */
  private async grantOnce(
    accountId: string,
    amount: number,
    note: string,
    now: Date,
    requestId: string,
  ): Promise<number> {
    if (!requestId.trim() || requestId.length > 200) throw new Error('request id must be 1–200 characters');
    if (!(await this.readAccount(accountId))) throw new AccountNotFoundError(accountId);
    const stamp = now.toISOString();
    const entry = entryItem(accountId, `grant#request#${requestId}`, {
      kind: 'grant',
      amount,
      note,
      createdAt: stamp,
    });
    const entryKey = { pk: entry.pk, sk: entry.sk };
    const recorded = await written(
      putItem(this.table, {
        Item: { ...entry, request_id: requestId, applied: false },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    if (!recorded) {
      const Item = await getItem(this.table, entryKey);
      if (Item?.amount !== amount) {
        throw new Error(`request id ${requestId} was already used for a grant of ${Item?.amount}`);
      }
      if (Item.applied === true) return (await this.readAccount(accountId))?.balance ?? 0;
    }
    const marker = { '#g': `grant_request#${requestId}` };
    const applied = await conditional(
      updateItem(this.table, {
        Key: keys.account(accountId),
        UpdateExpression: 'SET balance = balance + :a, #g = :t',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#g)',
        ExpressionAttributeNames: marker,
        ExpressionAttributeValues: { ':a': amount, ':t': stamp },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    let balance: number = applied?.Attributes?.balance;
    if (!applied) {
      const account = await this.readAccount(accountId);
      if (!account) throw new AccountNotFoundError(accountId);
      balance = account.balance; // applied by an earlier attempt that failed before marking the entry
    }
    await updateItem(this.table, {
      Key: entryKey,
      UpdateExpression: 'SET applied = :t',
      ExpressionAttributeValues: { ':t': true },
    });
    await updateItem(this.table, {
      Key: keys.account(accountId),
      UpdateExpression: 'REMOVE #g',
      ExpressionAttributeNames: marker,
    });
    return balance;
  }

  /** Places the start hold for a bot and records it in the ledger; see `reserve`. */
  async placeHold(
    accountId: string,
    botId: string,
    amount: number,
    maxRunning: number,
    now = new Date(),
  ): Promise<void> {
    await this.writeEntry(await this.reserve(accountId, botId, amount, maxRunning, now));
  }

  /**
   * Takes the start hold for a bot off the balance: one conditional write on the account item. Throws
   * InsufficientCreditsError (with the balance) when it does not fit, TooManyRunningBotsError when the account
   * already runs `maxRunning` bots (a product limit that also keeps the account item, one hold per running bot,
   * small). Returns the hold, its ledger entry NOT yet written: the caller writes it (`writeEntry`, or with the
   * session in one batch, as join does through `SessionsStore.create`) so the hold costs no extra request.
   */
  async reserve(
    accountId: string,
    botId: string,
    amount: number,
    maxRunning: number,
    now = new Date(),
  ): Promise<CreditHold> {
    const hold: CreditHold = { accountId, botId, amount, heldAt: now.toISOString() };
    // The hold's time and the account's entry in the held-accounts index go with it (the reconciler's view). A bot id
    // that carries the hold's time (bot-id.ts: every join's) needs no attribute to record it.
    const timed = botIdTime(botId) !== hold.heldAt;
    const held = await written(
      updateItem(this.table, {
        Key: keys.account(accountId),
        UpdateExpression: `SET balance = balance - :a, holds.#bot = :a, #ip = :ip, #is = :is${timed ? ', #at = :now' : ''}`,
        ConditionExpression:
          'attribute_exists(pk) AND balance >= :a AND attribute_not_exists(holds.#bot) AND size(holds) < :max',
        ExpressionAttributeNames: {
          '#bot': botId,
          '#ip': runningIndex.pk,
          '#is': runningIndex.sk,
          ...(timed && { '#at': holdAtAttribute(botId) }),
        },
        ExpressionAttributeValues: {
          ':a': amount,
          ':max': maxRunning,
          ':ip': heldAccountsPartition,
          ':is': keys.account(accountId).pk,
          ...(timed && { ':now': hold.heldAt }),
        },
      }),
    );
    if (!held) {
      const account = await this.readAccount(accountId);
      if (!account) throw new AccountNotFoundError(accountId);
      // Already held: a retry of the same join; its entry (same id) is written again, harmlessly.
      if (account.holds?.[botId] !== undefined) return hold;
      if (account.balance < amount) throw new InsufficientCreditsError(account.balance);
      if (Object.keys(account.holds ?? {}).length >= maxRunning)
        throw new TooManyRunningBotsError(maxRunning);
      throw new InsufficientCreditsError(account.balance);
    }
    return hold;
  }

  /** Writes the ledger entry of a hold that `reserve` returned. Idempotent (deterministic id). */
  async writeEntry(hold: CreditHold): Promise<void> {
    await this.put(holdEntryItem(hold));
  }

  /** Returns a bot's hold to the balance uncharged (the bot never ran). Idempotent. */
  async releaseHold(accountId: string, botId: string, now = new Date()): Promise<void> {
    await this.settle(accountId, botId, 0, now);
  }

  /**
   * Ends a bot's hold: the hold goes back and `charge` is taken. Idempotent down to the ledger: the entries come
   * first and the balance second, so no retry can leave a balance change without its entries.
   *
   * 1. The `release` entry is the settle's decision: written only if absent (a condition), it records the hold and
   *    the charge. A concurrent or retried settle that finds it takes its charge, so all agree on one.
   * 2. The `usage` entry (deterministic id, the decided charge) is written, again harmlessly on a retry.
   * 3. The balance takes `hold - charge` and the hold goes, in one write conditional on the hold still being there.
   *
   * A retry after any failed step redoes the missing steps and writes no second entry; once the hold is gone a
   * repeat changes nothing. (DynamoDB transactions would do 1–3 at once, but dynalite, the local store, has none.)
   * The balance may go below zero when usage exceeded it (post-paid). True when this call moved the balance.
   */
  async settle(accountId: string, botId: string, charge: number, now = new Date()): Promise<boolean> {
    const account = await this.readAccount(accountId);
    const hold = account?.holds?.[botId];
    const decided = await this.settleDecision(accountId, botId, hold, charge, now);
    if (!decided) return false;
    if (decided.charge > 0) {
      const usage = { kind: 'usage', amount: -decided.charge, botId, createdAt: decided.createdAt } as const;
      await this.put(entryItem(accountId, `${botId}#usage`, usage));
    }
    if (hold === undefined) return false; // already applied: only the entries were (re)written
    // False when settled concurrently.
    return written(
      updateItem(this.table, {
        Key: keys.account(accountId),
        UpdateExpression: 'SET balance = balance + :net REMOVE holds.#bot, #at',
        ConditionExpression: 'holds.#bot = :hold',
        ExpressionAttributeNames: { '#bot': botId, '#at': holdAtAttribute(botId) },
        ExpressionAttributeValues: { ':net': decided.hold - decided.charge, ':hold': decided.hold },
      }),
    );
  }

  /**
   * The settle's decision (the `release` entry): written now when the hold is still there and no settle decided
   * yet, else the one already written; null when there is neither a hold nor a decision (nothing to settle).
   */
  private async settleDecision(
    accountId: string,
    botId: string,
    hold: number | undefined,
    charge: number,
    now: Date,
  ): Promise<{ hold: number; charge: number; createdAt: string } | null> {
    if (hold !== undefined) {
      const createdAt = now.toISOString();
      const entry = entryItem(accountId, `${botId}#release`, {
        kind: 'release',
        amount: hold,
        botId,
        createdAt,
      });
      if (
        await written(
          putItem(this.table, {
            Item: { ...entry, charge },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        )
      )
        return { hold, charge, createdAt };
    }
    const Item = await getItem(this.table, keys.ledgerEntry(accountId, `${botId}#release`));
    if (!Item) return null;
    // An entry from before decisions carried the charge: its usage entry was written with it.
    return {
      hold: Item.amount as number,
      charge: (Item.charge as number | undefined) ?? 0,
      createdAt: Item.created_at as string,
    };
  }

  /** Ids of the accounts listed as holding credits (sparse index; eventually consistent, may list stale ones). */
  async accountsWithHolds(): Promise<string[]> {
    const items = await queryAll(this.table, {
      IndexName: runningIndex.name,
      KeyConditionExpression: '#p = :held',
      ExpressionAttributeNames: { '#p': runningIndex.pk },
      ExpressionAttributeValues: { ':held': heldAccountsPartition },
    });
    return items.map((item) => String(item.pk).slice('ACCOUNT#'.length));
  }

  /** The account's holds with their times (a consistent read); empty when the account is gone. */
  async openHolds(accountId: string): Promise<OpenHold[]> {
    const account = await this.readAccount(accountId);
    return Object.entries(account?.holds ?? {}).map(([botId, amount]) => ({
      botId,
      amount,
      heldAt: (account?.[holdAtAttribute(botId)] as string | undefined) ?? botIdTime(botId),
    }));
  }

  /** Records `now` as the time of a hold that has none (placed before times were recorded); keeps any earlier. */
  async stampHold(accountId: string, botId: string, now = new Date()): Promise<void> {
    // Not written when released meanwhile.
    await written(
      updateItem(this.table, {
        Key: keys.account(accountId),
        UpdateExpression: 'SET #at = if_not_exists(#at, :now)',
        ConditionExpression: 'attribute_exists(holds.#bot)',
        ExpressionAttributeNames: { '#bot': botId, '#at': holdAtAttribute(botId) },
        ExpressionAttributeValues: { ':now': now.toISOString() },
      }),
    );
  }

  /**
   * Releases a hold whose session was never written (its join died after the hold, and its undo too): the hold's
   * own entry is written if it is missing (it travels with the session), then the hold is released like any other
   * (`releaseHold`: one `release` entry, the balance once), so ledger and balance agree. Idempotent; true when
   * this call moved the balance.
   */
  async releaseOrphanedHold(accountId: string, hold: OpenHold, now = new Date()): Promise<boolean> {
    // Not written when the hold's entry is there already.
    await written(
      putItem(this.table, {
        Item: holdEntryItem({
          accountId,
          botId: hold.botId,
          amount: hold.amount,
          heldAt: hold.heldAt ?? now.toISOString(),
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return this.settle(accountId, hold.botId, 0, now);
  }

  /** Takes the account out of the held-accounts index if it holds nothing (a new hold puts it back). */
  async unlistIfNoHolds(accountId: string): Promise<void> {
    // Not written while still holding (or when a new hold arrived).
    await written(
      updateItem(this.table, {
        Key: keys.account(accountId),
        UpdateExpression: 'REMOVE #ip, #is',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(holds) OR size(holds) = :zero)',
        ExpressionAttributeNames: { '#ip': runningIndex.pk, '#is': runningIndex.sk },
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
  }

  async entries(accountId: string): Promise<LedgerEntry[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.account(accountId).pk, ':prefix': ledgerPrefix },
      ConsistentRead: true,
    });
    const out: LedgerEntry[] = items.map((i) => ({
      entryId: String(i.sk).slice(ledgerPrefix.length),
      kind: i.kind as LedgerKind,
      amount: i.amount as number,
      botId: i.bot_id as string | undefined,
      note: i.note as string | undefined,
      createdAt: i.created_at as string,
    }));
    return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  /** The account item; its other attributes are the holds' times (`holdAtAttribute`). */
  private async readAccount(accountId: string) {
    return (await getItem(this.table, keys.account(accountId))) as
      | { balance: number; holds?: Record<string, number>; [holdAt: string]: unknown }
      | undefined;
  }

  private async put(Item: TableItem): Promise<void> {
    await putItem(this.table, { Item });
  }
}

function entryItem(accountId: string, entryId: string, entry: Omit<LedgerEntry, 'entryId'>): TableItem {
  // A literal, not a spread of the keys: written on every join, and a spread then added to costs V8 ~20x (toItem).
  const { pk, sk } = keys.ledgerEntry(accountId, entryId);
  return {
    pk,
    sk,
    type: 'ledger',
    kind: entry.kind,
    amount: entry.amount,
    bot_id: entry.botId,
    note: entry.note,
    created_at: entry.createdAt,
  };
}

/** The ledger entry of a hold (id `<bot>#hold`): written with the session on join, or by `writeEntry`. */
export function holdEntryItem(hold: CreditHold): TableItem {
  return entryItem(hold.accountId, `${hold.botId}#hold`, {
    kind: 'hold',
    amount: -hold.amount,
    botId: hold.botId,
    createdAt: hold.heldAt,
  });
}
