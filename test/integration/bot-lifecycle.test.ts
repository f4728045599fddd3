// The local stack with its real task runner: each join spawns a bot-task process that heartbeats, honours the
// stop request, completes through the exit pipeline and settles credits; a killed process is replaced.
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack } from '../../local/stack';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

/** The participants' lines of a transcript; the bot's own (its greeting) are checked separately. */
const othersOnly = (transcript: string, bot: string) =>
  transcript
    .split('\n')
    .filter((l) => !l.startsWith(`${bot}: `))
    .join('\n');

describe('bot in a local room, through npm start’s stack and real HTTP', () => {
  let stack: TestStack;
  let key: string;
  beforeAll(async () => {
    stack = await startTestStack({
      CREDITS_PER_MINUTE: '2',
      JOIN_HOLD_CREDITS: '3',
      IDLE_TIMEOUT_MS: '2500',
      // Well inside the idle timeout, so the last departure ends a session before the silence does.
      EVERYONE_LEFT_TIMEOUT_MS: '500',
      TRANSCRIPT_FLUSH_MS: '200',
    });
    ({ apiKey: key } = await stack.account(100));
  });
  afterAll(() => stack?.close());

  async function room(name: string, isPrivate = false) {
    const res = await fetch(`${stack.baseUrl}/rooms`, {
      method: 'POST',
      body: JSON.stringify({ name, private: isPrivate }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { room_url: string; token?: string };
  }
  async function scripted(name: string, body: object) {
    const res = await fetch(`${stack.baseUrl}/rooms/${name}/participants`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
  }
  async function startBot(body: object, apiKey = key) {
    const res = await stack.request('POST', '/api/bot/join', {
      key: apiKey,
      body: { provider: 'local', ...body },
    });
    expect(res.status).toBe(201);
    return res.body.bot_id as string;
  }
  const status = async (botId: string, apiKey = key) =>
    (await stack.request('GET', `/api/bot/${botId}/status`, { key: apiKey })).body;
  const ended = (botId: string, apiKey = key) =>
    until(async () => {
      const s = await status(botId, apiKey);
      return s.status !== 'running' && s;
    });
  const botInRoom = (name: string) =>
    until(async () => stack.rooms.rooms.get(name)?.participants.find((p) => p.kind === 'bot'));

  it('transcribes a scripted participant in order with speakers; the last one leaving ends it (participant_left)', async () => {
    const { room_url } = await room('life');
    const botId = await startBot({ room_url, bot_config: { name: 'Scribe' } });
    await botInRoom('life');
    await scripted('life', {
      name: 'Ada',
      lines: [
        { say: 'Hello, is the recorder on?', at_ms: 100 },
        { say: 'Great. First point: ship on Friday.', at_ms: 400 },
      ],
      leave_at_ms: 1500,
    });
    await scripted('life', {
      name: 'Bob',
      lines: [{ say: 'Agreed, Friday works.', at_ms: 700 }],
      leave_at_ms: 1200,
    });
    const live = await until(async () => {
      const s = await status(botId);
      return s.status === 'running' && s.transcript?.includes('Friday works') && s;
    });
    // The bot greets first, Ada by name (it may be cut short: Ada talks over it), then the participants in order.
    expect(live.transcript).toMatch(/^Scribe: Hello Ada, I'm Scribe\./);
    expect(othersOnly(live.transcript, 'Scribe')).toBe(
      'Ada: Hello, is the recorder on?\nAda: Great. First point: ship on Friday.\nBob: Agreed, Friday works.',
    );
    const done = await ended(botId);
    expect(done).toMatchObject({
      status: 'completed',
      exit_reason: 'participant_left',
      completed_at: expect.any(String),
    });
    expect(done.transcript).toBe(live.transcript);
    expect(stack.rooms.rooms.get('life')?.participants).toEqual([]);
  });

  it('leaves when a participant says the stop phrase (stop_phrase)', async () => {
    const { room_url } = await room('phrase');
    const botId = await startBot({ room_url, bot_config: { stop_phrase: 'Thanks, bot — we are done' } });
    await botInRoom('phrase');
    await scripted('phrase', {
      name: 'Cy',
      lines: [
        { say: 'ok thanks bot we are', at_ms: 50 },
        { say: 'done here', at_ms: 150 },
      ],
    });
    expect(await ended(botId)).toMatchObject({ status: 'completed', exit_reason: 'stop_phrase' });
  });

  it('leaves on the leave endpoint (force_leave), fast, and settles credits per started minute', async () => {
    const acct = await stack.account(10);
    const { room_url } = await room('force');
    await scripted('force', { name: 'Dee', lines: [] });
    const botId = await startBot({ room_url }, acct.apiKey);
    await botInRoom('force');
    expect((await stack.deps.accounts.get(acct.accountId))?.balance).toBe(7);
    const asked = Date.now();
    expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key: acct.apiKey })).status).toBe(202);
    await until(async () => !stack.rooms.rooms.get('force')?.participants.some((p) => p.kind === 'bot'));
    expect(Date.now() - asked).toBeLessThan(5000); // spec §8
    expect(await ended(botId, acct.apiKey)).toMatchObject({
      status: 'completed',
      exit_reason: 'force_leave',
    });
    // The session turns completed, then its credits settle.
    const account = await until(async () => {
      const a = await stack.deps.accounts.get(acct.accountId);
      return Object.keys(a?.holds ?? {}).length === 0 && a;
    });
    expect(account?.balance).toBe(8); // hold 3 returned, one started minute at 2
    expect(account?.holds).toEqual({});
    // Ledger entries are written right after the balance changes.
    const entries = await until(async () => {
      const list = await stack.deps.ledger.entries(acct.accountId);
      return list.some((e) => e.kind === 'usage') && list;
    });
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['grant', 10],
      ['hold', -3],
      ['release', 3],
      ['usage', -2],
    ]);
    expect(entries.reduce((s, e) => s + e.amount, 0)).toBe(8);
    expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key: acct.apiKey })).status).toBe(409);
  });

  it('a leave while the bot is still joining gives up the join: force_leave within 5 s, nothing charged', async () => {
    // A room host that accepts the connection and never answers: the bot waits in its join (like a lobby).
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const acct = await stack.account(10);
      const port = (silent.address() as AddressInfo).port;
      const botId = await startBot({ room_url: `http://127.0.0.1:${port}/rooms/lobby` }, acct.apiKey);
      await until(async () => sockets.length > 0); // the bot is joining
      const asked = Date.now();
      expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key: acct.apiKey })).status).toBe(202);
      const done = await ended(botId, acct.apiKey);
      expect(Date.now() - asked).toBeLessThan(5000); // spec §8
      expect(done).toMatchObject({ status: 'completed', exit_reason: 'force_leave', transcript: '' });
      // Never in the room: the hold comes back whole.
      const account = await until(async () => {
        const a = await stack.deps.accounts.get(acct.accountId);
        return Object.keys(a?.holds ?? {}).length === 0 && a;
      });
      expect(account?.balance).toBe(10);
      expect(stack.messagesSeen.find((m) => m.bot_id === botId && m.kind !== 'bot_event')).toMatchObject({
        kind: 'session_ended',
        exit_reason: 'force_leave',
      });
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('a repeated SIGTERM (StopTask after the leave request) does not interrupt the exit pipeline', async () => {
    const { room_url } = await room('sigterm');
    await scripted('sigterm', { name: 'Gus', lines: [] });
    const botId = await startBot({ room_url });
    await botInRoom('sigterm');
    // The leave request sends the first SIGTERM (the runner's backstop); two more arrive while the bot is leaving.
    await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
    expect(stack.runner.signal(botId, 'SIGTERM')).toBe(true);
    stack.runner.signal(botId, 'SIGTERM');
    expect(await ended(botId)).toMatchObject({ status: 'completed', exit_reason: 'force_leave' });
  });

  it('leaves after IDLE_TIMEOUT_MS without audio from others (idle_timeout)', async () => {
    const { room_url } = await room('quiet');
    const botId = await startBot({ room_url });
    // Eve comes once the bot is in (its start-up time varies with the machine's load), so it hears her line.
    await botInRoom('quiet');
    await scripted('quiet', { name: 'Eve', lines: [{ say: 'I will be quiet now.', at_ms: 1500 }] });
    const done = await ended(botId);
    expect(done).toMatchObject({ status: 'completed', exit_reason: 'idle_timeout' });
    // The bot's own greeting does not count as activity for the idle timer.
    expect(done.transcript).toMatch(/^Meeting Bot: Hello Eve, I'm Meeting Bot\./);
    expect(othersOnly(done.transcript, 'Meeting Bot')).toBe('Eve: I will be quiet now.');
  });

  it('an unknown room fails the session and queues bot_join_failed with room_not_found', async () => {
    const acct = await stack.account(5);
    const room_url = `${stack.baseUrl}/rooms/nowhere`;
    const botId = await startBot({ room_url }, acct.apiKey);
    const done = await ended(botId, acct.apiKey);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/room_not_found/);
    const event = await until(async () =>
      stack.messagesSeen.find((m) => m.bot_id === botId && m.kind !== 'bot_event'),
    );
    expect(event).toMatchObject({
      kind: 'bot_join_failed',
      event: {
        event_type: 'bot_join_failed',
        workflow_thread_id: botId,
        room_url,
        error_type: 'room_not_found',
        error_message: expect.stringContaining('nowhere'),
        timestamp: expect.stringMatching(/T.*(Z|[+-]\d\d:\d\d)$/),
        duration_seconds: expect.any(Number),
      },
    });
    expect((await stack.deps.accounts.get(acct.accountId))?.balance).toBe(5); // hold released, nothing charged
  });

  it('a private room with a wrong token gives auth_error; with its token the bot gets in', async () => {
    const { room_url, token } = await room('private', true);
    const bad = await startBot({ room_url, meeting_token: 'wrong' });
    expect((await ended(bad)).status).toBe('failed');
    expect(
      await until(async () => stack.messagesSeen.find((m) => m.bot_id === bad && m.kind !== 'bot_event')),
    ).toMatchObject({
      event: { error_type: 'auth_error' },
    });
    const good = await startBot({ room_url, meeting_token: token });
    await botInRoom('private');
    await stack.request('POST', `/v1/bots/leave/${good}`, { key });
    expect(await ended(good)).toMatchObject({ status: 'completed', exit_reason: 'force_leave' });
  });

  it('a bot process killed mid-session is replaced: same bot_id, the transcript goes on (replacement.test.ts has the rest)', async () => {
    const { room_url } = await room('crash');
    const botId = await startBot({ room_url });
    await botInRoom('crash');
    await scripted('crash', { name: 'Fay', lines: [{ say: 'Something worth keeping.', at_ms: 10 }] });
    await until(async () => (await status(botId)).transcript?.includes('worth keeping'));
    expect(stack.runner.signal(botId, 'SIGKILL')).toBe(true);
    await until(async () => (await stack.deps.sessions.get(botId))?.replacements?.[0]?.joinedAt);
    await scripted('crash', { name: 'Gil', lines: [{ say: 'And this after the crash.', at_ms: 10 }] });
    await until(async () => (await status(botId)).transcript?.includes('after the crash'));
    await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
    const done = await ended(botId);
    expect(done).toMatchObject({ status: 'completed', exit_reason: 'force_leave' });
    expect(othersOnly(done.transcript, 'Meeting Bot')).toBe(
      'Fay: Something worth keeping.\nGil: And this after the crash.',
    );
    expect(done.replacements).toEqual([{ at: expect.any(String), reason: 'killed by SIGKILL' }]);
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
        headers: { authorization: `Bearer ${dev.api_key}`, 'content-type': 'application/json' },
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
        expect(await status.json()).toMatchObject({
          bot_id,
          status: 'running',
          room_url: 'https://a.daily.co/persist',
        });
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
    const { existsSync, readFileSync } = await import('node:fs');
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
      // The dev account's webhook secret, which verifies its signed webhooks, is the one kept in DATA_DIR.
      const secret = /Webhook secret:\s+(\S+)/.exec(out)?.[1];
      const saved = JSON.parse(readFileSync(join(dataDir, 'dev-account.json'), 'utf8'));
      expect(secret).toBe(saved.webhook_secret);
      expect(secret).toMatch(/^whsec_/);
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
