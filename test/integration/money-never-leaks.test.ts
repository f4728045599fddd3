// Money never leaks: whichever single DynamoDB write of a settle fails, the retry leaves the
// balance and the ledger agreeing, with exactly one usage entry.

import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditLedger } from '../../core/adapters/dynamodb/credit-ledger';
import type { TableHandle } from '../../core/adapters/dynamodb/table';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.close());

const table = (): TableHandle => (stack.deps.ledger as unknown as { table: TableHandle }).table;

/** A ledger whose `failAt`-th write (PutItem or UpdateItem, counted from 1) fails once, as a lost request would. */
function ledgerFailingWrite(failAt: number): { ledger: DynamoCreditLedger; writes: () => number } {
  const { doc, tableName } = table();
  let writes = 0;
  const failing = {
    send(command: unknown) {
      if (command instanceof PutCommand || command instanceof UpdateCommand) {
        writes += 1;
        if (writes === failAt) return Promise.reject(new Error(`injected failure of write ${failAt}`));
      }
      return (doc.send as (c: unknown) => Promise<unknown>)(command);
    },
  } as unknown as TableHandle['doc'];
  return { ledger: new DynamoCreditLedger({ doc: failing, tableName }), writes: () => writes };
}

const sum = async (accountId: string) =>
  (await stack.deps.ledger.entries(accountId)).reduce((s, e) => s + e.amount, 0);

describe('settle is idempotent down to the ledger', () => {
  // A settle makes three writes; fail each in turn, then retry.
  for (const failAt of [1, 2, 3]) {
    it(`a retry after write ${failAt} of the settle failed charges once and writes one usage entry`, async () => {
      const { accountId } = await stack.account(10);
      const botId = `leak-${failAt}`;
      await stack.deps.ledger.placeHold(accountId, botId, 2, 100);
      const { ledger } = ledgerFailingWrite(failAt);
      await expect(ledger.settle(accountId, botId, 3)).rejects.toThrow('injected failure');
      await stack.deps.ledger.settle(accountId, botId, 3);
      await stack.deps.ledger.settle(accountId, botId, 3); // and a late duplicate changes nothing

      const account = await stack.deps.accounts.get(accountId);
      expect(account?.holds[botId]).toBeUndefined();
      expect(account?.balance).toBe(7);
      expect(await sum(accountId)).toBe(7);
      const entries = await stack.deps.ledger.entries(accountId);
      expect(entries.filter((e) => e.kind === 'usage').map((e) => e.amount)).toEqual([-3]);
      expect(entries.filter((e) => e.kind === 'release').map((e) => e.amount)).toEqual([2]);
    });
  }

  it('a retry with another charge keeps the first decision (one charge, ledger and balance agree)', async () => {
    const { accountId } = await stack.account(10);
    await stack.deps.ledger.placeHold(accountId, 'leak-x', 1, 100);
    const { ledger } = ledgerFailingWrite(3); // everything but the balance written
    await expect(ledger.settle(accountId, 'leak-x', 4)).rejects.toThrow('injected failure');
    await stack.deps.ledger.releaseHold(accountId, 'leak-x'); // e.g. a late failure path settling with 0
    expect((await stack.deps.accounts.get(accountId))?.balance).toBe(6);
    expect(await sum(accountId)).toBe(6);
  });
});

describe('a grant with a request id is applied once', () => {
  // A keyed grant makes four writes (entry, balance, entry applied, marker removed); fail each in turn, then retry.
  for (const failAt of [0, 1, 2, 3, 4]) {
    it(`a retry ${failAt ? `after write ${failAt} failed` : 'of a grant that succeeded'} grants once`, async () => {
      const { accountId } = await stack.account(10);
      if (failAt) {
        const { ledger } = ledgerFailingWrite(failAt);
        await expect(ledger.grant(accountId, 5, 'invoice', new Date(), 'req-1')).rejects.toThrow(
          'injected failure',
        );
      } else {
        expect(await stack.deps.ledger.grant(accountId, 5, 'invoice', new Date(), 'req-1')).toBe(15);
      }
      expect(await stack.deps.ledger.grant(accountId, 5, 'invoice', new Date(), 'req-1')).toBe(15);
      expect(await stack.deps.ledger.grant(accountId, 5, 'invoice', new Date(), 'req-1')).toBe(15);
      expect((await stack.deps.accounts.get(accountId))?.balance).toBe(15);
      expect(await sum(accountId)).toBe(15);
    });
  }

  it('refuses the same request id for another amount', async () => {
    const { accountId } = await stack.account(0);
    await stack.deps.ledger.grant(accountId, 5, 'invoice', new Date(), 'req-2');
    await expect(stack.deps.ledger.grant(accountId, 7, 'invoice', new Date(), 'req-2')).rejects.toThrow(
      'already used',
    );
    expect((await stack.deps.accounts.get(accountId))?.balance).toBe(5);
  });
});
