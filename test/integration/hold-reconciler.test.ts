// The hold reconciler: a join that died between the hold and the session write, its undo failing
// too, leaves a hold no session will ever settle; the reconciler run by the heartbeat sweep releases it once the
// grace period has passed, exactly once, and never touches a hold whose session exists.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileHolds, reconcileSettings } from '../../core/bots/reconcile-holds';
import { startBot } from '../../core/bots/start-bot';
import type { ServiceDeps } from '../../core/deps';
import type { CreditLedger } from '../../core/ports/credit-ledger';
import type { SessionsStore } from '../../core/ports/sessions-store';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.close());

const t0 = new Date('2026-11-22T12:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const minutes = (n: number) => n * 60_000;

const settings = () => reconcileSettings(stack.config);
const reconcile = (now: Date) => reconcileHolds({ stores: stack.deps, log: stack.deps.log }, settings(), now);

/** The service's deps with the join's clock at t0 and no bot process (the task "starts" and stays running). */
function joinDeps(overrides: Partial<ServiceDeps> = {}): ServiceDeps {
  return {
    ...stack.deps,
    now: () => t0,
    runner: { ...stack.deps.runner, start: async (botId: string) => ({ taskRef: `test-${botId}` }) },
    ...overrides,
  };
}

/**
 * A join that dies half-way: the batch write of the session (with the hold's entry) fails, and so does its undo
 * (the hold entry's write and the release), as when the process or the database went away between the two.
 */
function brokenJoinDeps(): ServiceDeps {
  const sessions = Object.create(stack.deps.sessions) as SessionsStore;
  sessions.create = async () => {
    throw new Error('injected: BatchWriteItem of the session failed');
  };
  const ledger = Object.create(stack.deps.ledger) as CreditLedger;
  ledger.writeEntry = async () => {
    throw new Error('injected: the undo could not write the hold entry');
  };
  ledger.releaseHold = async () => {
    throw new Error('injected: the undo could not release the hold');
  };
  return joinDeps({ sessions, ledger });
}

const body = () => ({ provider: 'local', room_url: `${stack.baseUrl}/rooms/demo` });
const caller = (accountId: string) => ({ accountId, keyId: 'test-key' });
const balance = async (accountId: string) => (await stack.deps.accounts.get(accountId))?.balance;
const holds = async (accountId: string) => (await stack.deps.accounts.get(accountId))?.holds ?? {};
const entries = (accountId: string) => stack.deps.ledger.entries(accountId);
const sum = async (accountId: string) => (await entries(accountId)).reduce((s, e) => s + e.amount, 0);

/** Creates an account with 10 credits and one stuck hold; returns the account and the stuck bot's id. */
async function stuckHold() {
  const { accountId } = await stack.account(10);
  await expect(startBot(brokenJoinDeps(), caller(accountId), body(), undefined)).rejects.toThrow(/injected/);
  const held = Object.keys(await holds(accountId));
  expect(held).toHaveLength(1);
  const botId = held[0]!;
  // Stuck: the credit is held, no session exists, and the ledger does not show the hold.
  expect(await stack.deps.sessions.get(botId)).toBeNull();
  expect(await balance(accountId)).toBe(10 - stack.config.JOIN_HOLD_CREDITS);
  expect(await sum(accountId)).toBe(10);
  // The hold's time is the join's, carried by its bot id (a UUIDv7): no attribute on the account item records it.
  expect(await stack.deps.ledger.openHolds(accountId)).toEqual([
    { botId, amount: 1, heldAt: t0.toISOString() },
  ]);
  expect(Object.keys((await rawAccount(accountId)) ?? {}).filter((a) => a.startsWith('hold_at#'))).toEqual(
    [],
  );
  return { accountId, botId };
}

/** The account item as stored. */
async function rawAccount(accountId: string) {
  const { Item } = await stack.table.doc.send(
    new GetCommand({ TableName: stack.table.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' } }),
  );
  return Item;
}

describe('hold reconciler', () => {
  it('releases a hold whose session was never written once it is older than the grace, exactly once', async () => {
    expect(settings().graceMs).toBe(minutes(5));
    const { accountId, botId } = await stuckHold();

    // Younger than the grace (a join may still be writing its session): left alone.
    expect(await reconcile(at(minutes(4)))).toEqual([]);
    expect(Object.keys(await holds(accountId))).toEqual([botId]);
    expect(await balance(accountId)).toBe(9);

    // Past the grace: released, with the hold's entry and one release entry; balance and ledger agree.
    const released = await reconcile(at(minutes(5) + 1000));
    expect(released).toContainEqual({ accountId, botId, amount: 1 });
    expect(await holds(accountId)).toEqual({});
    expect(await balance(accountId)).toBe(10);
    const mine = (await entries(accountId)).filter((e) => e.botId === botId);
    expect(mine.map((e) => [e.kind, e.amount])).toEqual([
      ['hold', -1],
      ['release', 1],
    ]);
    expect(await sum(accountId)).toBe(10);

    // A second run changes nothing, and the account, holding nothing now, leaves the index.
    expect(await reconcile(at(minutes(6)))).toEqual([]);
    expect(await balance(accountId)).toBe(10);
    expect(await entries(accountId)).toHaveLength(3); // grant, hold, release
    expect(await stack.deps.ledger.accountsWithHolds()).not.toContain(accountId);
  });

  it('a hold whose bot id carries no time (a version 4 id) records it in an attribute, which the reconciler reads', async () => {
    const { accountId } = await stack.account(10);
    const botId = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const hold = await stack.deps.ledger.reserve(accountId, botId, 1, 100, t0);
    await stack.deps.ledger.writeEntry(hold);
    expect((await rawAccount(accountId))?.[`hold_at#${botId}`]).toBe(t0.toISOString());
    expect(await stack.deps.ledger.openHolds(accountId)).toEqual([
      { botId, amount: 1, heldAt: t0.toISOString() },
    ]);
    expect(await reconcile(at(minutes(4)))).toEqual([]);
    expect(await reconcile(at(minutes(6)))).toContainEqual({ accountId, botId, amount: 1 });
    expect(await balance(accountId)).toBe(10);
    expect((await rawAccount(accountId))?.[`hold_at#${botId}`]).toBeUndefined();
  });

  it('two reconcilers at once release the hold once', async () => {
    const { accountId, botId } = await stuckHold();
    const runs = await Promise.all(Array.from({ length: 4 }, () => reconcile(at(minutes(7)))));
    expect(runs.flat().filter((r) => r.botId === botId)).toHaveLength(1);
    expect(await balance(accountId)).toBe(10);
    const mine = (await entries(accountId)).filter((e) => e.botId === botId);
    expect(mine.filter((e) => e.kind === 'release')).toHaveLength(1);
    expect(mine.filter((e) => e.kind === 'hold')).toHaveLength(1);
    expect(await sum(accountId)).toBe(10);
  });

  it('never touches the hold of a bot whose session exists, however old', async () => {
    const { accountId } = await stack.account(10);
    const started = await startBot(joinDeps(), caller(accountId), body(), undefined);
    const botId = (started.body as { bot_id: string }).bot_id;
    expect((await stack.deps.sessions.get(botId))?.status).toBe('running');
    // Next to it, a stuck hold on the same account: released, the running bot's is not.
    await expect(startBot(brokenJoinDeps(), caller(accountId), body(), undefined)).rejects.toThrow(
      /injected/,
    );
    const stuck = Object.keys(await holds(accountId)).find((b) => b !== botId)!;

    const released = await reconcile(at(minutes(60)));
    expect(released.filter((r) => r.accountId === accountId)).toEqual([
      { accountId, botId: stuck, amount: 1 },
    ]);
    expect(await holds(accountId)).toEqual({ [botId]: 1 });
    expect(await balance(accountId)).toBe(9);
    expect(await sum(accountId)).toBe(9);
    expect((await entries(accountId)).filter((e) => e.botId === botId).map((e) => e.kind)).toEqual(['hold']);
    // The account still holds credits, so it stays listed; a later run still leaves the running bot alone.
    expect(await stack.deps.ledger.accountsWithHolds()).toContain(accountId);
    await reconcile(at(minutes(120)));
    expect(await holds(accountId)).toEqual({ [botId]: 1 });
  });
});
