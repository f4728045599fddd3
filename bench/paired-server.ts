// One side of a paired comparison (bench/paired.ts): the local stack of the tree given as argument, with a no-op task
// runner, funded accounts for joins and seeded bots for status reads. It prints one JSON line (where it listens, its
// process id, the keys and bot ids) and serves until it is sent SIGTERM. Only Node built-ins here: the stack is
// imported from the tree under test, whatever its age.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Stack {
  baseUrl: string;
  deps: {
    runner: unknown;
    accounts: { create(name: string): Promise<{ account: { accountId: string }; apiKey: string }> };
    ledger: { grant(accountId: string, amount: number, note: string): Promise<unknown> };
  };
  /** The local DynamoDB's worker thread (its OS id), billed apart: our code's CPU is the rest of the process. */
  dynamoThreadId?: number;
  close(): Promise<void>;
}

/** Hours: the background timers (heartbeat sweep, hold reconciler, scheduler) stay out of the measured windows. */
const farMs = String(3_600_000);

async function main() {
  const [tree, accountsArg = '600', botsArg = '100'] = process.argv.slice(2);
  if (!tree) throw new Error('usage: paired-server.ts <tree> [accounts] [status bots]');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-paired-'));
  const { startLocalStack } = (await import(pathToFileURL(join(tree, 'local/stack.ts')).href)) as {
    startLocalStack(o: { port: number; dataDir: string; env: Record<string, string> }): Promise<Stack>;
  };
  const stack = await startLocalStack({
    port: 0,
    dataDir,
    env: {
      BOT_POOL_SIZE: '0',
      LOG_LEVEL: 'silent',
      // One key reads status at thousands of requests/s; the limiter still runs on every request.
      RATE_LIMIT_PER_MINUTE: '100000000',
      HEARTBEAT_MS: farMs,
      SCHEDULE_TICK_MS: farMs,
    },
  });
  stack.deps.runner = {
    start: async (botId: string) => ({ taskRef: `bench:${botId}` }),
    stop: async () => {},
  };
  const funded = async (name: string) => {
    const { account, apiKey } = await stack.deps.accounts.create(name);
    await stack.deps.ledger.grant(account.accountId, 1_000_000, 'bench');
    return apiKey;
  };
  const joinKeys: string[] = [];
  const accounts = Number(accountsArg);
  for (let i = 0; i < accounts; i += 8) {
    const batch = Array.from({ length: Math.min(8, accounts - i) }, (_, k) =>
      funded(`paired joiner ${i + k}`),
    );
    joinKeys.push(...(await Promise.all(batch)));
  }
  const statusKey = await funded('paired status reader');
  const body = JSON.stringify({ provider: 'local', room_url: `${stack.baseUrl}/rooms/bench` });
  const botIds: string[] = [];
  for (let i = 0; i < Number(botsArg); i++) {
    const res = await fetch(`${stack.baseUrl}/api/bot/join`, {
      method: 'POST',
      headers: { authorization: `Bearer ${statusKey}`, 'content-type': 'application/json' },
      body,
    });
    const json = (await res.json()) as { bot_id?: string };
    if (res.status !== 201 || !json.bot_id)
      throw new Error(`seeding failed: ${res.status} ${JSON.stringify(json)}`);
    botIds.push(json.bot_id);
  }
  process.stdout.write(
    `${JSON.stringify({ baseUrl: stack.baseUrl, pid: process.pid, dynamoThreadId: stack.dynamoThreadId, joinKeys, statusKey, botIds })}\n`,
  );
  process.once('SIGTERM', () => {
    void stack.close().finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
