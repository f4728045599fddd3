// The typed client (client/) against `npm start` as a user runs it (its own process, the warm pool on, the key and
// webhook secret read from its banner): start a bot in the local room, read its status, leave, and verify the
// session_complete webhook with the client's helper; error answers arrive as MeetingBotApiError.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMeetingBotClient,
  MeetingBotApiError,
  type MeetingBotClient,
  verifyWebhook,
  type WebhookEventOf,
  WebhookVerificationError,
  webhookEventName,
} from '../../client';
import { until } from '../support/until';

let child: ChildProcess;
let dataDir: string;
let baseUrl: string;
let apiKey: string;
let webhookSecret: string;
let client: MeetingBotClient;
const hook = { server: undefined as Server | undefined, url: '', received: [] as Received[] };

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mbs-client-'));
  child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let banner = '';
  child.stdout!.on('data', (d) => {
    banner += d;
  });
  baseUrl = await until(() => /Base URL:\s+(\S+)/.exec(banner)?.[1], 60_000);
  apiKey = /API key:\s+(\S+)/.exec(banner)![1]!;
  webhookSecret = /Webhook secret:\s+(\S+)/.exec(banner)![1]!;
  client = createMeetingBotClient({ baseUrl, apiKey });

  // The user's webhook receiver: it keeps the raw body, which is what the signature covers.
  hook.server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      hook.received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hook.server!.listen(0, '127.0.0.1', r));
  hook.url = `http://127.0.0.1:${(hook.server.address() as AddressInfo).port}/hook`;
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    child.kill('SIGKILL');
  }
  await new Promise((r) => (hook.server ? hook.server.close(r) : r(undefined)));
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

describe('the typed client against npm start', () => {
  it('starts a bot in the local room, reads its status, leaves, and verifies the signed session_complete', async () => {
    const room = `${baseUrl}/rooms/demo`;
    const body = {
      provider: 'local' as const,
      room_url: room,
      bot_config: { name: 'Scribe' },
      webhook_callback_url: hook.url,
      webhook_events: ['bot.in_call' as const],
    };
    const started = await client.start(body, { idempotencyKey: 'client-test-1' });
    expect(started).toMatchObject({ status: 'started', room_url: room });
    const botId = started.bot_id;

    const running = await client.status(botId);
    expect(running).toMatchObject({ bot_id: botId, status: 'running', room_url: room });

    // Someone in the room says a line once the bot is in the call, so the transcript has it.
    await until(
      async () => (await client.status(botId)).status_changes?.some((c) => c.code === 'in_call'),
      30_000,
    );
    const said = await fetch(`${room}/participants`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Ada', lines: [{ say: 'We ship the client on Friday.', at_ms: 50 }] }),
    });
    expect(said.status).toBe(201);
    await until(async () => (await client.transcript(botId)).utterances.length > 0, 20_000);

    const leaving = await client.leave(botId);
    expect(leaving).toMatchObject({ status: 'leave_requested', bot_id: botId });

    const completed = await until(async () => {
      const s = await client.status(botId);
      return s.status === 'completed' && s;
    }, 30_000);
    expect(completed.transcript).toContain('We ship the client on Friday.');

    const events = await until(() => {
      const verified = hook.received.map((r) => verifyWebhook(webhookSecret, r.body, r.headers));
      return verified.some((e) => webhookEventName(e) === 'session_complete') && verified;
    }, 30_000);
    expect(events.map(webhookEventName)).toEqual(['bot.in_call', 'session_complete']);
    const complete = events.at(-1) as WebhookEventOf<'session_complete'>;
    expect(complete.exit_reason).toBe('force_leave');
    expect(complete.transcript_text).toContain('We ship the client on Friday.');

    // The same body under another secret, or altered, is refused.
    const last = hook.received.at(-1)!;
    expect(() =>
      verifyWebhook(`whsec_${Buffer.from('x'.repeat(24)).toString('base64')}`, last.body, last.headers),
    ).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(webhookSecret, `${last.body} `, last.headers)).toThrow(
      WebhookVerificationError,
    );

    // The same Idempotency-Key and body give the first answer back: no second bot.
    const again = await client.start(body, { idempotencyKey: 'client-test-1' });
    expect(again.bot_id).toBe(botId);

    // It was not recorded; its content, once deleted, leaves the tombstone the status shows.
    await expect(client.recording(botId)).rejects.toMatchObject({ status: 404, error: 'not_found' });
    expect(await client.deleteData(botId)).toMatchObject({ bot_id: botId, status: 'data_deleted' });
    const tombstone = await client.status(botId);
    expect(tombstone).toMatchObject({ transcript: null, data_deleted_at: expect.any(String) });
    expect((await client.openapi()).openapi).toBe('3.1.0');
  }, 120_000);

  it('error answers are MeetingBotApiError with the error body: not_found, bot_not_running, authentication_error', async () => {
    const missing = await client.status('00000000-0000-4000-8000-000000000000').catch((e) => e);
    expect(missing).toBeInstanceOf(MeetingBotApiError);
    expect(missing).toMatchObject({ status: 404, error: 'not_found' });
    expect(missing.requestId).toBeTruthy();

    const { bots } = await client.list({ limit: 1 });
    const done = bots[0]!;
    expect(done.status).toBe('completed');
    await expect(client.leave(done.bot_id)).rejects.toMatchObject({ status: 409, error: 'bot_not_running' });

    const stranger = createMeetingBotClient({ baseUrl, apiKey: 'mb_not_a_key' });
    await expect(stranger.list()).rejects.toMatchObject({ status: 401, error: 'authentication_error' });
  });
});
