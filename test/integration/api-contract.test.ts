// Contract tests over real HTTP against the local stack: every endpoint's success body and every error row of
// spec §7 and ARCHITECTURE.md §4, with the rule that a refused request changes nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRunner } from '../../core/ports/task-runner';
import { startTestStack, type TestStack } from '../support/local-stack';
import { elapse, until } from '../support/until';

let stack: TestStack;
let key: string;
let accountId: string;
let roomUrl: string;

/** A runner that records starts instead of spawning bot processes (the bot-task has its own tests). */
function recordingRunner(): TaskRunner & { started: string[]; stopped: string[] } {
  const started: string[] = [];
  const stopped: string[] = [];
  return {
    started,
    stopped,
    start: async (botId) => {
      started.push(botId);
      return { taskRef: `test:${botId}` };
    },
    stop: async (botId) => {
      stopped.push(botId);
    },
  };
}

beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = recordingRunner();
  ({ apiKey: key, accountId } = await stack.account(100));
  roomUrl = `${stack.baseUrl}/rooms/contract`;
});
afterAll(() => stack?.close());

async function snapshot(id = accountId) {
  const account = await stack.deps.accounts.get(id);
  const entries = await stack.deps.ledger.entries(id);
  return {
    balance: account?.balance,
    holds: Object.keys(account?.holds ?? {}).length,
    entries: entries.length,
  };
}

const join = (body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
  stack.request('POST', '/api/bot/join', { key: opts.key ?? key, body, headers: opts.headers });

function expectError(res: { status: number; body: Record<string, unknown> }, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error });
  expect(typeof res.body.detail).toBe('string');
  expect(typeof res.body.message).toBe('string');
  expect(String(res.body.detail)).not.toMatch(/at .*\.ts:\d+/); // no stack traces
}

describe('POST /api/bot/join', () => {
  it('starts a bot: 201 with status, bot_id and room_url; one hold placed', async () => {
    const before = await snapshot();
    const sentAt = Date.now();
    const res = await join({
      provider: 'local',
      room_url: roomUrl,
      bot_config: { name: 'Interviewer', voice: 'Matthew', stop_phrase: 'goodbye bot', language: 'de' },
      email: 'someone@example.com',
      webhook_callback_url: 'http://127.0.0.1:9/hook',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'started', bot_id: expect.any(String), room_url: roomUrl });
    // A UUID of version 7: the join's time in its first 48 bits (core/bots/bot-id.ts).
    expect(res.body.bot_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const idTime = Number.parseInt(res.body.bot_id.replace('-', '').slice(0, 12), 16);
    expect(idTime).toBeGreaterThanOrEqual(sentAt);
    expect(idTime).toBeLessThanOrEqual(Date.now());
    const after = await snapshot();
    expect(after.balance).toBe((before.balance ?? 0) - 1);
    expect(after.holds).toBe(before.holds + 1);
    const session = await stack.deps.sessions.get(res.body.bot_id);
    expect(session).toMatchObject({
      status: 'running',
      accountId,
      roomName: 'contract',
    });
    // The hold's ledger entry was written with the session.
    expect(await stack.deps.ledger.entries(accountId)).toContainEqual(
      expect.objectContaining({ kind: 'hold', amount: -1, botId: res.body.bot_id }),
    );
    expect(session?.botConfig).toMatchObject({
      name: 'Interviewer',
      voice: 'Matthew',
      video_mode: 'static',
      language: 'de',
    });
  });

  it('stores bot_config.automatic_leave resolved: given values, the older max_duration_seconds folded in', async () => {
    const res = await join({
      room_url: 'https://acme.daily.co/leave-settings',
      bot_config: { max_duration_seconds: 1800, automatic_leave: { everyone_left_timeout_seconds: 30 } },
    });
    expect(res.status).toBe(201);
    const session = await stack.deps.sessions.get(res.body.bot_id);
    expect(session?.botConfig.automatic_leave).toEqual({
      everyone_left_timeout_seconds: 30,
      silence_timeout_seconds: 300,
      waiting_room_timeout_seconds: 600,
      max_duration_seconds: 1800,
    });
    expect(session?.botConfig).not.toHaveProperty('max_duration_seconds');
  });

  it('defaults provider to daily and accepts a Daily room URL with only room_url given', async () => {
    const res = await join({ room_url: 'https://acme.daily.co/weekly-sync' });
    expect(res.status).toBe(201);
    const session = await stack.deps.sessions.get(res.body.bot_id);
    expect(session).toMatchObject({ provider: 'daily', roomName: 'weekly-sync', processInsights: true });
    expect(session?.botConfig).toMatchObject({
      name: 'Meeting Bot',
      voice: 'Joanna',
      automatic_leave: {
        everyone_left_timeout_seconds: 2,
        silence_timeout_seconds: 300,
        waiting_room_timeout_seconds: 600,
        max_duration_seconds: 14400,
      },
    });
  });

  const invalid: [string, unknown, RegExp][] = [
    [
      'an unknown top-level field',
      { room_url: 'https://a.daily.co/r', colour: 'red' },
      /colour: unknown field/,
    ],
    [
      'an unknown bot_config field',
      { room_url: 'https://a.daily.co/r', bot_config: { nam: 'x' } },
      /bot_config\.nam: unknown field/,
    ],
    ['a wrong type', { room_url: 'https://a.daily.co/r', process_insights: 'yes' }, /process_insights/],
    ['a missing room_url', { provider: 'daily' }, /room_url/],
    ['a room_url that is not a URL', { room_url: 'not a url' }, /room_url/],
    ['a non-https Daily room', { room_url: 'http://a.daily.co/r' }, /room_url/],
    [
      'a Daily room on a host outside DAILY_ROOM_DOMAINS',
      { room_url: 'https://meet.evil.example/r' },
      /room_url: must be a room on a Daily domain.*\*\.daily\.co/,
    ],
    ['a host that only ends like daily.co', { room_url: 'https://notdaily.co/r' }, /room_url/],
    [
      'a local room URL without /rooms/',
      { provider: 'local', room_url: 'http://localhost:3000/x' },
      /room_url/,
    ],
    [
      'an unknown provider',
      { provider: 'zoom', room_url: 'https://a.daily.co/r' },
      /provider.*daily.*local|provider/,
    ],
    ['a bad e-mail', { room_url: 'https://a.daily.co/r', email: 'not-an-email' }, /email/],
    [
      'a webhook URL that is not a URL',
      { room_url: 'https://a.daily.co/r', webhook_callback_url: 'nope' },
      /webhook_callback_url/,
    ],
    [
      'a webhook URL with another scheme',
      { room_url: 'https://a.daily.co/r', webhook_callback_url: 'ftp://x.example/h' },
      /webhook_callback_url/,
    ],
    [
      'an unknown voice',
      { room_url: 'https://a.daily.co/r', bot_config: { voice: 'Robot' } },
      /bot_config\.voice/,
    ],
    [
      'an unknown transcription language',
      { room_url: 'https://a.daily.co/r', bot_config: { language: 'klingon' } },
      /^bot_config\.language: must be one of the supported transcription languages: bg, ca, .*, en-US, .*, zh-TW$/,
    ],
    [
      'an unknown video_mode',
      { room_url: 'https://a.daily.co/r', bot_config: { video_mode: 'live' } },
      /bot_config\.video_mode/,
    ],
    [
      'an over-long name',
      { room_url: 'https://a.daily.co/r', bot_config: { name: 'x'.repeat(101) } },
      /bot_config\.name/,
    ],
    [
      'an over-long prompt',
      { room_url: 'https://a.daily.co/r', bot_config: { bot_prompt: 'x'.repeat(8001) } },
      /bot_prompt/,
    ],
    [
      'an over-long stop phrase',
      { room_url: 'https://a.daily.co/r', bot_config: { stop_phrase: 'x'.repeat(201) } },
      /stop_phrase/,
    ],
    [
      'an everyone-left timeout out of bounds',
      {
        room_url: 'https://a.daily.co/r',
        bot_config: { automatic_leave: { everyone_left_timeout_seconds: -1 } },
      },
      /^bot_config\.automatic_leave\.everyone_left_timeout_seconds: must be a whole number of seconds from 0 to 3600$/,
    ],
    [
      'a silence timeout under 10 s',
      { room_url: 'https://a.daily.co/r', bot_config: { automatic_leave: { silence_timeout_seconds: 5 } } },
      /^bot_config\.automatic_leave\.silence_timeout_seconds: must be a whole number of seconds from 10 to 86400$/,
    ],
    [
      'max_duration_seconds and automatic_leave.max_duration_seconds that differ',
      {
        room_url: 'https://a.daily.co/r',
        bot_config: { max_duration_seconds: 600, automatic_leave: { max_duration_seconds: 900 } },
      },
      /bot_config\.max_duration_seconds: is 600 but bot_config\.automatic_leave\.max_duration_seconds is 900/,
    ],
    ['a JSON array', [1, 2], /body/],
    ['JSON null', null, /body/],
  ];
  it.each(invalid)(
    'refuses %s with 400 validation_error naming the field, creating nothing',
    async (_n, body, detail) => {
      const before = await snapshot();
      const res = await join(body);
      expectError(res, 400, 'validation_error');
      expect(res.body.detail).toMatch(detail);
      expect(await snapshot()).toEqual(before);
    },
  );

  it('refuses a body that is not JSON, and an empty body, with 400', async () => {
    const before = await snapshot();
    for (const rawBody of ['{"room_url": ', 'room_url=https://a.daily.co/r', '']) {
      const res = await stack.request('POST', '/api/bot/join', {
        key,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 400, 'validation_error');
    }
    expect(await snapshot()).toEqual(before);
  });

  const otherMediaTypes: [string, string | undefined][] = [
    ['text/plain (fetch’s own for a string body)', undefined],
    ['no Content-Type at all', ''],
    ['application/merge-patch+json', 'application/merge-patch+json'],
    ['application/json in another charset', 'application/json; charset=iso-8859-1'],
  ];
  it.each(otherMediaTypes)(
    'refuses a valid JSON body sent as %s with 415 unsupported_media_type, creating nothing',
    async (_name, contentType) => {
      const before = await snapshot();
      const text = JSON.stringify({ room_url: 'https://a.daily.co/r' });
      const res = await fetch(`${stack.baseUrl}/api/bot/join`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        // Bytes, unlike a string, get no Content-Type from fetch.
        body: contentType === '' ? new TextEncoder().encode(text) : text,
      });
      const body = await res.json();
      expectError({ status: res.status, body }, 415, 'unsupported_media_type');
      expect(body.detail).toMatch(/application\/json/);
      expect(await snapshot()).toEqual(before);
    },
  );

  it('takes application/json in any letter case, with or without charset=utf-8', async () => {
    for (const contentType of [
      'Application/JSON',
      'application/json; charset=UTF-8',
      'application/json;charset="utf-8"',
    ]) {
      const res = await join(
        { room_url: 'https://a.daily.co/r' },
        { headers: { 'content-type': contentType } },
      );
      expect(res.status, contentType).toBe(201);
    }
  });

  it('refuses a body over 64 KiB with 413 payload_too_large', async () => {
    const before = await snapshot();
    const res = await join({ room_url: 'https://a.daily.co/r', analysis_prompt: 'x'.repeat(70 * 1024) });
    expectError(res, 413, 'payload_too_large');
    const huge = await stack.request('POST', '/api/bot/join', { key, rawBody: 'x'.repeat(2 * 1024 * 1024) });
    expectError(huge, 413, 'payload_too_large');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses with 402 insufficient_credits and the balance when credits are below the hold', async () => {
    const poor = await stack.account(0, 'Poor');
    const res = await join({ room_url: 'https://a.daily.co/r' }, { key: poor.apiKey });
    expectError(res, 402, 'insufficient_credits');
    expect(res.body.balance).toBe(0);
    expect(await snapshot(poor.accountId)).toEqual({ balance: 0, holds: 0, entries: 0 });
  });

  it('answers 500 server_error, fails the session and returns the hold when the bot cannot be started', async () => {
    const acct = await stack.account(3, 'Unlucky');
    const runner = stack.deps.runner;
    stack.deps.runner = { start: async () => Promise.reject(new Error('no capacity')), stop: async () => {} };
    try {
      const res = await join({ room_url: 'https://a.daily.co/r' }, { key: acct.apiKey });
      expectError(res, 500, 'server_error');
      expect(res.body.detail).not.toMatch(/capacity/); // no internal details
    } finally {
      stack.deps.runner = runner;
    }
    const after = await snapshot(acct.accountId);
    expect(after.balance).toBe(3);
    expect(after.holds).toBe(0);
  });
});

describe('authentication (every endpoint)', () => {
  const endpoints = () => [
    ['POST', '/api/bot/join'],
    ['GET', `/api/bot/${randomUUID()}/status`],
    ['POST', `/v1/bots/leave/${randomUUID()}`],
    ['POST', `/v1/bot/${randomUUID()}/stop`],
    ['GET', '/api/bots'],
  ];
  const badHeaders: [string, Record<string, string>, RegExp][] = [
    ['missing', {}, /missing/],
    ['not Bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, /Bearer/],
    ['Bearer without a key', { authorization: 'Bearer' }, /Bearer/],
    ['malformed', { authorization: 'Bearer not-a-key' }, /malformed/],
    ['unknown', { authorization: `Bearer mbk_${'A'.repeat(43)}` }, /not recognised/],
  ];
  it.each(badHeaders)(
    'a %s key gets 401 authentication_error with WWW-Authenticate',
    async (_n, headers, detail) => {
      const before = await snapshot();
      for (const [method, path] of endpoints()) {
        const res = await stack.request(method!, path!, {
          headers,
          body: method === 'POST' ? { room_url: 'https://a.daily.co/r' } : undefined,
        });
        expectError(res, 401, 'authentication_error');
        expect(res.body.detail).toMatch(detail);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      expect(await snapshot()).toEqual(before);
    },
  );

  it('a revoked key gets 401; the account’s other key keeps working', async () => {
    const acct = await stack.account(5, 'Revoker');
    const second = await stack.deps.accounts.createKey(acct.accountId);
    expect((await join({ room_url: 'https://a.daily.co/r' }, { key: acct.apiKey })).status).toBe(201);
    await stack.deps.accounts.revokeKey(acct.accountId, acct.keyId);
    const res = await join({ room_url: 'https://a.daily.co/r' }, { key: acct.apiKey });
    expectError(res, 401, 'authentication_error');
    expect(res.body.detail).toMatch(/revoked/);
    expect((await join({ room_url: 'https://a.daily.co/r' }, { key: second.apiKey })).status).toBe(201);
  });

  it('with a key cache, a revocation takes effect within KEY_CACHE_TTL_MS', async () => {
    const cached = await startTestStack({ KEY_CACHE_TTL_MS: '300' });
    try {
      const acct = await cached.account(5);
      const path = `/api/bot/${randomUUID()}/status`;
      expect((await cached.request('GET', path, { key: acct.apiKey })).status).toBe(404);
      await cached.deps.accounts.revokeKey(acct.accountId, acct.keyId);
      // The key cache's entry expires.
      await elapse(350);
      expectError(await cached.request('GET', path, { key: acct.apiKey }), 401, 'authentication_error');
    } finally {
      await cached.close();
    }
  });
});

describe('GET /api/bot/{bot_id}/status', () => {
  it('returns the running view: status, bot_id, room_url, started_at, results null', async () => {
    const { body: started } = await join({ provider: 'local', room_url: roomUrl });
    const res = await stack.request('GET', `/api/bot/${started.bot_id}/status`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'running',
      bot_id: started.bot_id,
      room_url: roomUrl,
      started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      completed_at: null,
      transcript: null,
      qa_pairs: null,
      insights: null,
      error: null,
      error_code: null,
      exit_reason: null,
      replacements: [],
      // The bot's steps so far (joining, in_call …), as many as it took by now.
      status_changes: expect.any(Array),
      // Always present; empty while the bot did without nothing.
      warnings: [],
      // Null without a recording (and while one is being made).
      recording: null,
      // Null for a bot started at once (a scheduled one shows its join time).
      join_at: null,
      // Null until the meeting's data is deleted (the tombstone's time).
      data_deleted_at: null,
    });
    expect(JSON.stringify(res.body)).not.toContain('meeting_token');
  });

  it('404 not_found for an unknown bot, naming it', async () => {
    const id = randomUUID();
    const res = await stack.request('GET', `/api/bot/${id}/status`, { key });
    expectError(res, 404, 'not_found');
    expect(res.body.detail).toContain(id);
  });

  it('400 validation_error for a bot id that is not a UUID', async () => {
    for (const id of ['123', 'not-a-uuid', `${randomUUID()}x`, '%27%20OR%201%3D1']) {
      expectError(await stack.request('GET', `/api/bot/${id}/status`, { key }), 400, 'validation_error');
    }
  });

  it('one account cannot see another account’s bot (404, same as missing)', async () => {
    const { body } = await join({ provider: 'local', room_url: roomUrl });
    const other = await stack.account(5, 'Other');
    const res = await stack.request('GET', `/api/bot/${body.bot_id}/status`, { key: other.apiKey });
    expectError(res, 404, 'not_found');
    expect(JSON.stringify(res.body)).not.toContain(roomUrl);
  });
});

describe('GET /api/bots', () => {
  it('lists only the caller’s bots, newest first, page by page with next_cursor, and filters by status', async () => {
    const mine = await stack.account(20, 'Lister');
    const other = await stack.account(20, 'Neighbour');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await join({ provider: 'local', room_url: roomUrl }, { key: mine.apiKey });
      ids.push(res.body.bot_id);
      await join({ provider: 'local', room_url: `${roomUrl}-other` }, { key: other.apiKey });
    }
    await stack.deps.sessions.updateRunning(ids[1]!, {
      status: 'completed',
      completedAt: new Date().toISOString(),
      exitReason: 'force_leave',
    });
    const list = (query: string) => stack.request('GET', `/api/bots${query}`, { key: mine.apiKey });

    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body.bots.map((b: { bot_id: string }) => b.bot_id)).toEqual([...ids].reverse());
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.bots[3]).toEqual({
      bot_id: ids[1],
      status: 'completed',
      provider: 'local',
      room_url: roomUrl,
      created_at: expect.any(String),
      started_at: expect.any(String),
      completed_at: expect.any(String),
      exit_reason: 'force_leave',
      error: null,
    });
    expect(JSON.stringify(all.body)).not.toContain(`${roomUrl}-other`);

    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 5; page++) {
      const res = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.bots.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.bots.map((b: { bot_id: string }) => b.bot_id));
      if (!res.body.next_cursor) break;
      cursor = res.body.next_cursor;
    }
    expect(seen).toEqual([...ids].reverse());

    const completed = await list('?status=completed');
    expect(completed.body.bots.map((b: { bot_id: string }) => b.bot_id)).toEqual([ids[1]]);
    const running = await list('?status=running&limit=3');
    expect(running.body.bots.map((b: { bot_id: string }) => b.bot_id)).toEqual([ids[4], ids[3], ids[2]]);
    const rest = await list(`?status=running&limit=3&cursor=${running.body.next_cursor}`);
    expect(rest.body.bots.map((b: { bot_id: string }) => b.bot_id)).toEqual([ids[0]]);

    // Another account's cursor positions only within the caller's own list.
    const theirs = await stack.request('GET', '/api/bots?limit=1', { key: other.apiKey });
    const fromTheirCursor = await list(`?cursor=${theirs.body.next_cursor}`);
    expect(fromTheirCursor.status).toBe(200);
    for (const b of fromTheirCursor.body.bots) expect(ids).toContain(b.bot_id);
  });

  it.each([
    ['limit=0', /limit/],
    ['limit=101', /limit/],
    ['limit=ten', /limit/],
    ['status=done', /status/],
    ['cursor=not-a-cursor', /cursor/],
    ['colour=red', /colour: unknown field/],
  ])('refuses ?%s with 400 validation_error naming it', async (query, detail) => {
    const res = await stack.request('GET', `/api/bots?${query}`, { key });
    expectError(res, 400, 'validation_error');
    expect(res.body.detail).toMatch(detail);
  });
});

describe('POST /v1/bots/leave/{bot_id} and its alias /v1/bot/{bot_id}/stop', () => {
  it.each(['/v1/bots/leave/', '/v1/bot/'])(
    '%s: 202 leave_requested, recorded, runner signalled; repeat is 202',
    async (prefix) => {
      const { body } = await join({ provider: 'local', room_url: roomUrl });
      const path = prefix === '/v1/bot/' ? `/v1/bot/${body.bot_id}/stop` : `${prefix}${body.bot_id}`;
      const res = await stack.request('POST', path, { key });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        status: 'leave_requested',
        bot_id: body.bot_id,
        message: expect.any(String),
      });
      const session = await stack.deps.sessions.get(body.bot_id);
      expect(session?.stopRequestedAt).toBeTruthy();
      expect((stack.deps.runner as ReturnType<typeof recordingRunner>).stopped).toContain(body.bot_id);
      const again = await stack.request('POST', path, { key });
      expect(again.status).toBe(202);
      expect((await stack.deps.sessions.get(body.bot_id))?.stopRequestedAt).toBe(session?.stopRequestedAt);
    },
  );

  it('409 bot_not_running once the bot completed or failed', async () => {
    const { body } = await join({ provider: 'local', room_url: roomUrl });
    await stack.deps.sessions.updateRunning(body.bot_id, {
      status: 'completed',
      completedAt: new Date().toISOString(),
    });
    expectError(
      await stack.request('POST', `/v1/bots/leave/${body.bot_id}`, { key }),
      409,
      'bot_not_running',
    );
  });

  it('404 for an unknown bot and for another account’s bot, which keeps running', async () => {
    expectError(await stack.request('POST', `/v1/bots/leave/${randomUUID()}`, { key }), 404, 'not_found');
    const { body } = await join({ provider: 'local', room_url: roomUrl });
    const other = await stack.account(5, 'Intruder');
    expectError(
      await stack.request('POST', `/v1/bots/leave/${body.bot_id}`, { key: other.apiKey }),
      404,
      'not_found',
    );
    expect(await stack.deps.sessions.get(body.bot_id)).toMatchObject({ status: 'running' });
    expect((await stack.deps.sessions.get(body.bot_id))?.stopRequestedAt).toBeUndefined();
  });

  it('still 202 when only the runner signal fails: the stop request is durable in the session', async () => {
    const { body } = await join({ provider: 'local', room_url: roomUrl });
    const runner = stack.deps.runner;
    stack.deps.runner = { start: runner.start, stop: async () => Promise.reject(new Error('ecs down')) };
    try {
      expect((await stack.request('POST', `/v1/bots/leave/${body.bot_id}`, { key })).status).toBe(202);
    } finally {
      stack.deps.runner = runner;
    }
    expect((await stack.deps.sessions.get(body.bot_id))?.stopRequestedAt).toBeTruthy();
  });
});

describe('Idempotency-Key on join', () => {
  it('the same key and body give one bot and one hold; the replay says so', async () => {
    const before = await snapshot();
    const headers = { 'idempotency-key': `order-${randomUUID()}` };
    const body = { provider: 'local', room_url: roomUrl, bot_config: { name: 'Once' } };
    const first = await join(body, { headers });
    const second = await join(body, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const after = await snapshot();
    expect(after.balance).toBe((before.balance ?? 0) - 1);
    expect(after.holds).toBe(before.holds + 1);
  });

  it('the same key with another body is 422 idempotency_conflict and creates nothing', async () => {
    const headers = { 'idempotency-key': `order-${randomUUID()}` };
    expect((await join({ provider: 'local', room_url: roomUrl }, { headers })).status).toBe(201);
    const before = await snapshot();
    const res = await join({ provider: 'local', room_url: `${roomUrl}-other` }, { headers });
    expectError(res, 422, 'idempotency_conflict');
    expect(await snapshot()).toEqual(before);
  });

  it('keys are per account: another account may use the same key', async () => {
    const headers = { 'idempotency-key': `shared-${randomUUID()}` };
    const other = await stack.account(5, 'Same key');
    const a = await join({ provider: 'local', room_url: roomUrl }, { headers });
    const b = await join({ provider: 'local', room_url: roomUrl }, { headers, key: other.apiKey });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.bot_id).not.toBe(a.body.bot_id);
  });

  it('a duplicate while the first request is in flight gets 409 idempotency_in_progress', async () => {
    const headers = { 'idempotency-key': `slow-${randomUUID()}` };
    const runner = stack.deps.runner;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let starting = false;
    stack.deps.runner = {
      start: async (id) => {
        starting = true;
        return gate.then(() => ({ taskRef: `slow:${id}` }));
      },
      stop: runner.stop,
    };
    try {
      const first = join({ provider: 'local', room_url: roomUrl }, { headers });
      // The first request holds the key: it is starting its bot.
      await until(() => starting, 10_000);
      const dup = await join({ provider: 'local', room_url: roomUrl }, { headers });
      expectError(dup, 409, 'idempotency_in_progress');
      expect(dup.headers.get('retry-after')).toBe('1');
      release();
      expect((await first).status).toBe(201);
    } finally {
      stack.deps.runner = runner;
    }
  });

  it('a key whose first request died half-way is taken over after the in-flight limit, not replayed as a fake bot', async () => {
    const stale = await startTestStack({ IDEMPOTENCY_IN_FLIGHT_MS: '1' });
    try {
      stale.deps.runner = recordingRunner();
      const acct = await stale.account(5);
      const body = { room_url: 'https://a.daily.co/half-way' };
      const { startRequestSchema } = await import('../../core/schemas/start-request');
      const { requestFingerprint } = await import('../../core/accounts/secrets');
      const fingerprint = requestFingerprint(startRequestSchema({ allowInsecureWebhooks: true }).parse(body));
      const ghost = '33333333-3333-4333-8333-333333333333';
      // What a request that died right after claiming the key leaves behind.
      await stale.deps.idempotency.claim(acct.accountId, 'half-way', fingerprint, {
        status: 201,
        body: { status: 'started', bot_id: ghost, room_url: body.room_url },
      });
      // Past the in-flight limit (1 ms here).
      await elapse(5);
      const res = await stale.request('POST', '/api/bot/join', {
        key: acct.apiKey,
        body,
        headers: { 'idempotency-key': 'half-way' },
      });
      expect(res.status).toBe(201);
      expect(res.body.bot_id).not.toBe(ghost);
      expect(await stale.deps.sessions.get(res.body.bot_id)).toMatchObject({ status: 'running' });
    } finally {
      await stale.close();
    }
  });

  it('a key that failed (402) may be retried after credits are added', async () => {
    const acct = await stack.account(0, 'Topped up');
    const headers = { 'idempotency-key': 'retry-me' };
    expect((await join({ room_url: 'https://a.daily.co/r' }, { key: acct.apiKey, headers })).status).toBe(
      402,
    );
    await stack.deps.ledger.grant(acct.accountId, 2);
    expect((await join({ room_url: 'https://a.daily.co/r' }, { key: acct.apiKey, headers })).status).toBe(
      201,
    );
  });

  it('refuses a malformed Idempotency-Key with 400', async () => {
    const res = await join(
      { room_url: 'https://a.daily.co/r' },
      { headers: { 'idempotency-key': 'x'.repeat(256) } },
    );
    expectError(res, 400, 'validation_error');
  });
});

describe('credits under concurrency', () => {
  it('balance for exactly K holds and N > K parallel joins: K sessions, N−K 402, ledger = balance change', async () => {
    const K = 5;
    const N = 16;
    const acct = await stack.account(K, 'Race');
    const results = await Promise.all(
      Array.from({ length: N }, () => join({ room_url: 'https://a.daily.co/race' }, { key: acct.apiKey })),
    );
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(K);
    expect(refused).toHaveLength(N - K);
    for (const r of refused)
      expect(r.body).toMatchObject({ error: 'insufficient_credits', balance: expect.any(Number) });
    const account = await stack.deps.accounts.get(acct.accountId);
    expect(account?.balance).toBe(0);
    expect(Object.keys(account?.holds ?? {})).toHaveLength(K);
    const entries = await stack.deps.ledger.entries(acct.accountId);
    const holds = entries.filter((e) => e.kind === 'hold');
    expect(holds).toHaveLength(K);
    const sum = entries.reduce((s, e) => s + e.amount, 0);
    expect(sum).toBe(account?.balance); // grant(K) + K holds(−1) = 0
    for (const r of ok)
      expect(await stack.deps.sessions.get(r.body.bot_id)).toMatchObject({ status: 'running' });
  });
});

describe('rate limiting', () => {
  it('429 rate_limited with Retry-After once a key exceeds its per-minute limit', async () => {
    const limited = await startTestStack({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const acct = await limited.account(5);
      const path = `/api/bot/${randomUUID()}/status`;
      const codes = [];
      for (let i = 0; i < 4; i++)
        codes.push((await limited.request('GET', path, { key: acct.apiKey })).status);
      expect(codes).toEqual([404, 404, 404, 429]);
      const res = await limited.request('GET', path, { key: acct.apiKey });
      expectError(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Another key is counted separately.
      const other = await limited.account(5);
      expect((await limited.request('GET', path, { key: other.apiKey })).status).toBe(404);
    } finally {
      await limited.close();
    }
  });
});

describe('local rooms outside the local stack', () => {
  it('provider "local" is refused with 400 unless ALLOW_LOCAL_ROOMS is set (it could name any host)', async () => {
    const cloudLike = await startTestStack({ ALLOW_LOCAL_ROOMS: 'false' });
    try {
      const acct = await cloudLike.account(5);
      const res = await cloudLike.request('POST', '/api/bot/join', {
        key: acct.apiKey,
        body: { provider: 'local', room_url: 'http://10.0.0.5:8080/rooms/probe' },
      });
      expectError(res, 400, 'validation_error');
      expect(res.body.detail).toMatch(/provider/);
      expect((await cloudLike.deps.accounts.get(acct.accountId))?.balance).toBe(5);
    } finally {
      await cloudLike.close();
    }
  });
});

describe('running bots per account', () => {
  it('a join beyond MAX_RUNNING_BOTS_PER_ACCOUNT gets 429 rate_limited and holds nothing', async () => {
    const capped = await startTestStack({ MAX_RUNNING_BOTS_PER_ACCOUNT: '2' });
    try {
      capped.deps.runner = recordingRunner();
      const acct = await capped.account(10);
      const body = { room_url: 'https://a.daily.co/cap' };
      for (let i = 0; i < 2; i++)
        expect((await capped.request('POST', '/api/bot/join', { key: acct.apiKey, body })).status).toBe(201);
      const res = await capped.request('POST', '/api/bot/join', { key: acct.apiKey, body });
      expectError(res, 429, 'rate_limited');
      expect(res.body.detail).toMatch(/2 bots at once/);
      expect(res.headers.get('retry-after')).toBe('30');
      expect((await capped.deps.accounts.get(acct.accountId))?.balance).toBe(8);
    } finally {
      await capped.close();
    }
  });
});

describe('routing', () => {
  it('malformed percent-encoding in a path is refused, never a crash: 400 on the API, 4404 on a room socket', async () => {
    expectError(await stack.request('GET', '/api/bot/%E0%A4/status', { key }), 400, 'validation_error');
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(`${stack.baseUrl.replace('http', 'ws')}/rooms/%E0%A4/ws`);
    const code = await new Promise<number>((resolve, reject) => {
      ws.on('close', (c) => resolve(c));
      ws.on('error', reject);
    });
    expect(code).toBe(4404);
    // The stack is still up.
    expect((await stack.request('GET', '/openapi.json')).status).toBe(200);
  });

  it('an unknown path gets a 404 error body', async () => {
    expectError(await stack.request('GET', '/api/robots', { key }), 404, 'not_found');
  });

  it('GET /openapi.json serves the OpenAPI 3.1 document without a key', async () => {
    const res = await stack.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/bot/join',
        '/api/bot/{bot_id}/status',
        '/v1/bots/leave/{bot_id}',
        '/v1/bot/{bot_id}/stop',
      ]),
    );
  });
});
