// The admin CLI as an operator runs it: a child process on its own DATA_DIR database, or beside a running local stack.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { otherDatabases } from '../../admin/target';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { type CliRun, runAdminCliOn, runNpmAdmin } from '../support/admin-cli';

function cli(dataDir: string, ...args: string[]): Promise<CliRun> {
  return runAdminCliOn(dataDir, args);
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
async function cliJson(dataDir: string, ...args: string[]): Promise<any> {
  const run = await cli(dataDir, ...args, '--json');
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('admin CLI on its own database', () => {
  let dataDir: string;
  let created: {
    account_id: string;
    api_key: string;
    key_id: string;
    webhook_secret: string;
    balance: number;
  };
  beforeAll(() => {
    dataDir = tempDir();
  });

  test('accounts create prints the account, a key shown once, the webhook secret and the balance', async () => {
    created = await cliJson(dataDir, 'accounts', 'create', '--name', 'Acme Ltd', '--credits', '25');
    expect(created).toEqual({
      account_id: expect.stringMatching(/^acct_/),
      api_key: expect.stringMatching(/^mbk_/),
      key_id: expect.stringMatching(/^key_/),
      webhook_secret: expect.stringMatching(/^whsec_/),
      balance: 25,
    });
  });

  test('credits add changes the balance, and accounts show reports it without key hashes', async () => {
    const added = await cliJson(
      dataDir,
      'credits',
      'add',
      '--account',
      created.account_id,
      '--amount',
      '-5',
      '--note',
      'refund',
    );
    expect(added).toMatchObject({ amount: -5, balance: 20 });

    const show = await cli(dataDir, 'accounts', 'show', '--account', created.account_id, '--json');
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({
      name: 'Acme Ltd',
      balance: 20,
      holds: { count: 0, total: 0 },
      keys: [{ key_id: created.key_id, revoked_at: null }],
      ledger: [
        { kind: 'grant', amount: 25 },
        { kind: 'grant', amount: -5, note: 'refund' },
      ],
    });
    const hash = createHash('sha256').update(created.api_key).digest('hex');
    expect(show.stdout).not.toContain(hash);
    expect(show.stdout).not.toContain(created.api_key);
  });

  test('keys revoke marks the key revoked', async () => {
    const revoked = await cliJson(
      dataDir,
      'keys',
      'revoke',
      '--account',
      created.account_id,
      '--key',
      created.key_id,
    );
    expect(revoked).toMatchObject({ key_id: created.key_id, revoked_at: expect.any(String) });
    const listed = await cliJson(dataDir, 'keys', 'list', '--account', created.account_id);
    expect(listed.keys).toEqual([
      { key_id: created.key_id, created_at: expect.any(String), revoked_at: revoked.revoked_at },
    ]);
  });

  test('an unknown account exits 1 with a message that says which database it looked in, and no stack trace', async () => {
    const run = await cli(dataDir, 'accounts', 'show', '--account', 'acct_missing');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: account acct_missing not found\n' +
        `  Looked in the database of DATA_DIR ${dataDir} (no local stack runs on it).\n` +
        `  ${otherDatabases}\n`,
    );
    expect(run.stdout).toBe('');
  });

  test('a DATA_DIR with no database is named, with how to point elsewhere, and is left as it was', async () => {
    const wrong = join(dataDir, 'not-the-stack');
    const [show, credits] = await Promise.all([
      cli(wrong, 'accounts', 'show', '--account', created.account_id),
      cli(wrong, 'credits', 'add', '--account', created.account_id, '--amount', '5'),
    ]);
    for (const run of [show, credits]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `error: DATA_DIR ${wrong} has no database (no ${join(wrong, 'dynamodb')}) and no local stack runs on it. ` +
          `${otherDatabases}\n`,
      );
    }
    expect(existsSync(wrong)).toBe(false);
  });
});

test('usage errors exit 2 before any database is opened; help exits 0', async () => {
  const dataDir = tempDir();
  const [unknown, notNumber, negative, help] = await Promise.all([
    cli(dataDir, 'accounts', 'frobnicate'),
    cli(dataDir, 'accounts', 'create', '--name', 'X', '--credits', 'abc'),
    cli(dataDir, 'accounts', 'create', '--name', 'X', '--credits', '-5'),
    cli(dataDir, 'help'),
  ]);
  expect(unknown).toMatchObject({ code: 2, stdout: '' });
  expect(unknown.stderr).toMatch(/^error: unknown command 'accounts frobnicate'\n.*help.*\n$/);
  expect(notNumber).toMatchObject({ code: 2, stdout: '' });
  expect(notNumber.stderr).toMatch(/^error: --credits must be a whole number/);
  expect(negative).toMatchObject({ code: 2, stdout: '' });
  expect(negative.stderr).toMatch(/^error: --credits must be zero or more/);
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^Usage:/);
  // Nothing was created: the database directory does not even exist.
  expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
});

describe('admin CLI beside a running local stack', () => {
  let dataDir: string;
  let stack: LocalStack;
  beforeAll(async () => {
    dataDir = tempDir();
    stack = await startLocalStack({ port: 0, dataDir, env: { LOG_LEVEL: 'silent', KEY_CACHE_TTL_MS: '0' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const status = (key: string) =>
    fetch(`${stack.baseUrl}/api/bot/${randomUUID()}/status`, { headers: { authorization: `Bearer ${key}` } });

  test("works on the stack's database (found through stack.json): its keys authenticate until revoked", async () => {
    const created = await cliJson(dataDir, 'accounts', 'create', '--name', 'Stack user', '--credits', '3');

    const found = await status(created.api_key);
    expect(found.status).toBe(404);
    expect((await found.json()).error).toBe('not_found');

    await cliJson(dataDir, 'keys', 'revoke', '--account', created.account_id, '--key', created.key_id);
    const refused = await status(created.api_key);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toBe('authentication_error');
  });

  test('a not-found beside the stack names the stack it asked', async () => {
    const run = await cli(dataDir, 'keys', 'list', '--account', 'acct_elsewhere');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `  Looked in the local stack running on DATA_DIR ${dataDir} (pid ${process.pid}, ${stack.baseUrl}).\n`,
    );
  });
});

// npm, then tsx, then the CLI: several seconds each on a busy machine.
describe('npm run admin -- … --json, as a user types it', { timeout: 120_000 }, () => {
  const create = (name: string, credits: number) => [
    'accounts',
    'create',
    '--name',
    name,
    '--credits',
    String(credits),
    '--json',
  ];

  test('npm run -s admin -- … --json | jq: stdout is the JSON alone', async () => {
    const dataDir = tempDir();
    const run = await runNpmAdmin(dataDir, create('Piped', 4), { npmArgs: ['-s'] });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ account_id: expect.stringMatching(/^acct_/), balance: 4 });
    expect(run.stderr).toBe('');
  });

  test('without -s npm prints its banner on stdout, and the CLI says how to get JSON alone', async () => {
    const dataDir = tempDir();
    const run = await runNpmAdmin(dataDir, create('Banner', 1));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('> meeting-bot-service@0.1.0 admin');
    expect(run.stderr).toContain("run 'npm run -s admin -- … --json' for JSON alone");
    // npm's own --json mode sends the banner to stderr instead: stdout parses, and the CLI does not warn.
    const npmJson = await runNpmAdmin(dataDir, create('NpmJson', 2), { npmArgs: ['--json'] });
    expect(JSON.parse(npmJson.stdout)).toMatchObject({ balance: 2 });
    expect(npmJson.stderr).not.toContain('warning');
  });
});
