// The local stack with its real task runner: each join spawns a bot-task process that heartbeats, honours the
// stop request, completes through the exit pipeline and settles credits; a killed process fails its session.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';
import { startLocalStack } from '../../local/stack';

async function until<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('bot-task process lifecycle', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ CREDITS_PER_MINUTE: '2', JOIN_HOLD_CREDITS: '3' });
  });
  afterAll(() => stack?.close());

  it('join starts a process; leave ends it with exit_reason force_leave and settles credits per started minute', async () => {
    const acct = await stack.account(10);
    const join = await stack.request('POST', '/api/bot/join', {
      key: acct.apiKey,
      body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/life` },
    });
    expect(join.status).toBe(201);
    const botId = join.body.bot_id;
    await until(async () => (await stack.deps.sessions.get(botId))?.heartbeatAt);
    expect((await stack.deps.accounts.get(acct.accountId))?.balance).toBe(7);

    const leave = await stack.request('POST', `/v1/bots/leave/${botId}`, { key: acct.apiKey });
    expect(leave.status).toBe(202);
    const done = await until(async () => {
      const s = await stack.request('GET', `/api/bot/${botId}/status`, { key: acct.apiKey });
      return s.body.status === 'completed' && s.body;
    });
    expect(done).toMatchObject({ status: 'completed', exit_reason: 'force_leave', completed_at: expect.any(String) });
    await until(async () => stack.runner.running === 0);
    // hold 3 returned, one started minute at 2 credits charged
    const account = await stack.deps.accounts.get(acct.accountId);
    expect(account?.balance).toBe(8);
    expect(account?.holds).toEqual({});
    const entries = await stack.deps.ledger.entries(acct.accountId);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual(expect.arrayContaining([['grant', 10], ['hold', -3], ['release', 3], ['usage', -2]]));
    expect(entries.reduce((s, e) => s + e.amount, 0)).toBe(8);
    expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key: acct.apiKey })).status).toBe(409);
  });

  it('a bot process that dies mid-session leaves the session failed with a readable error', async () => {
    const acct = await stack.account(10);
    const join = await stack.request('POST', '/api/bot/join', {
      key: acct.apiKey,
      body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/crash` },
    });
    const botId = join.body.bot_id;
    await until(async () => (await stack.deps.sessions.get(botId))?.heartbeatAt);
    expect(stack.runner.signal(botId, 'SIGKILL')).toBe(true);
    const failed = await until(async () => {
      const s = await stack.request('GET', `/api/bot/${botId}/status`, { key: acct.apiKey });
      return s.body.status === 'failed' && s.body;
    });
    expect(failed.error).toMatch(/stopped unexpectedly.*SIGKILL/);
    expect((await stack.deps.accounts.get(acct.accountId))?.holds).toEqual({});
  });
});

describe('persistence', () => {
  it('a restart keeps accounts, keys and sessions', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mbs-restart-'));
    try {
      const env = { LOG_LEVEL: 'silent' };
      const first = await startLocalStack({ port: 0, dataDir, env, devAccount: true });
      const dev = first.devAccount!;
      first.deps.runner = { start: async (id) => ({ taskRef: `t:${id}` }), stop: async () => {} };
      const res = await fetch(`${first.baseUrl}/api/bot/join`, {
        method: 'POST',
        headers: { authorization: `Bearer ${dev.api_key}` },
        body: JSON.stringify({ room_url: 'https://a.daily.co/persist' }),
      });
      const { bot_id } = (await res.json()) as { bot_id: string };
      await first.close();

      const second = await startLocalStack({ port: 0, dataDir, env, devAccount: true });
      try {
        expect(second.devAccount).toEqual(dev); // same dev account, not a new one
        const status = await fetch(`${second.baseUrl}/api/bot/${bot_id}/status`, {
          headers: { authorization: `Bearer ${dev.api_key}` },
        });
        expect(status.status).toBe(200);
        expect(await status.json()).toMatchObject({ bot_id, status: 'running', room_url: 'https://a.daily.co/persist' });
        expect((await second.deps.accounts.get(dev.account_id))?.balance).toBe(999);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm start', () => {
  it('prints the base URL and dev key, serves the API, and shuts down cleanly on Ctrl-C (SIGINT)', async () => {
    const { spawn } = await import('node:child_process');
    const { existsSync } = await import('node:fs');
    const dataDir = mkdtempSync(join(tmpdir(), 'mbs-start-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      const baseUrl = await until(async () => /Base URL:\s+(\S+)/.exec(out)?.[1]);
      const key = /API key:\s+(\S+)/.exec(out)?.[1];
      const res = await fetch(`${baseUrl}/api/bot/00000000-0000-4000-8000-000000000000/status`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(404);
      expect(existsSync(join(dataDir, 'stack.json'))).toBe(true);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
