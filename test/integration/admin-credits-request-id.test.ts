// `credits add --request-id`: an operator's retried grant (a timeout, a re-run script) adds the credits once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { runAdminCliOn } from '../support/admin-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'admin-request-id-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const cli = (...args: string[]) => runAdminCliOn(dataDir, args);

test('a retried credits add with the same --request-id grants once; another id grants again', async () => {
  const created = await cli('accounts', 'create', '--name', 'Retry Ltd', '--credits', '10', '--json');
  expect(created.code, created.stderr).toBe(0);
  const accountId = JSON.parse(created.stdout).account_id as string;
  const add = (id: string) =>
    cli('credits', 'add', '--account', accountId, '--amount', '100', '--request-id', id, '--json');

  const first = await add('invoice-42');
  expect(first.code, first.stderr).toBe(0);
  expect(JSON.parse(first.stdout)).toMatchObject({ balance: 110, request_id: 'invoice-42' });
  const retry = await add('invoice-42');
  expect(retry.code, retry.stderr).toBe(0);
  expect(JSON.parse(retry.stdout)).toMatchObject({ balance: 110 });
  const other = await add('invoice-43');
  expect(JSON.parse(other.stdout)).toMatchObject({ balance: 210 });

  const show = await cli('accounts', 'show', '--account', accountId, '--json');
  const ledger = JSON.parse(show.stdout).ledger as { amount: number }[];
  expect(ledger.map((e) => e.amount)).toEqual([10, 100, 100]);
}, 60_000);
