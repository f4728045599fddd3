// The typed client's wrapper (key header, error bodies as MeetingBotApiError) and its webhook verify helper, against a
// fake fetch and our own signer; test/integration/client.test.ts drives it against the local stack.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createMeetingBotClient,
  MeetingBotApiError,
  type MeetingBotClient,
  verifyWebhook,
  WebhookVerificationError,
  webhookEventName,
} from '../../client';
import { newWebhookSecret } from '../../core/accounts/secrets';
import { webhookHeaders } from '../../core/delivery/webhook-signer';

const botId = '7d2f6a51-3c1e-4b7a-9a43-1f0e2b8c9d10';

/** A fetch that records each request and answers with `reply`. */
function fakeFetch(reply: (req: Request) => Response) {
  const requests: Request[] = [];
  return {
    requests,
    fetch: async (req: Request) => {
      requests.push(req);
      return reply(req);
    },
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('createMeetingBotClient', () => {
  it('sends the API key and the Idempotency-Key, and returns the success body', async () => {
    const f = fakeFetch(() =>
      json(201, { status: 'started', bot_id: botId, room_url: 'http://x/rooms/demo' }),
    );
    const client = createMeetingBotClient({
      baseUrl: 'http://localhost:3000/',
      apiKey: 'mb_key',
      fetch: f.fetch,
    });
    const started = await client.start(
      { provider: 'local', room_url: 'http://localhost:3000/rooms/demo' },
      { idempotencyKey: 'k-1' },
    );
    expect(started.bot_id).toBe(botId);
    const req = f.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('http://localhost:3000/api/bot/join');
    expect(req.headers.get('authorization')).toBe('Bearer mb_key');
    expect(req.headers.get('idempotency-key')).toBe('k-1');
    expect(await req.json()).toEqual({ provider: 'local', room_url: 'http://localhost:3000/rooms/demo' });
  });

  it('puts the bot id in the path and the query in the query string', async () => {
    const f = fakeFetch(() => json(200, { utterances: [], next_after_seq: null }));
    const client = createMeetingBotClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: f.fetch });
    await client.transcript(botId, { after_seq: 5, limit: 10 });
    expect(f.requests[0]!.url).toBe(`http://api.test/api/bot/${botId}/transcript?after_seq=5&limit=10`);
  });

  it('throws our error body as a MeetingBotApiError, with balance, Retry-After and the request id', async () => {
    const f = fakeFetch(() =>
      json(
        402,
        {
          error: 'insufficient_credits',
          detail: 'balance 3 is below 10',
          message: 'Add credits.',
          balance: 3,
        },
        { 'x-request-id': 'req-1', 'retry-after': '7' },
      ),
    );
    const client = createMeetingBotClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: f.fetch });
    const err = await client.start({ room_url: 'https://acme.daily.co/x' }).catch((e) => e);
    expect(err).toBeInstanceOf(MeetingBotApiError);
    expect(err).toMatchObject({
      status: 402,
      error: 'insufficient_credits',
      detail: 'balance 3 is below 10',
      userMessage: 'Add credits.',
      balance: 3,
      retryAfterSeconds: 7,
      requestId: 'req-1',
      message: '402 insufficient_credits: balance 3 is below 10',
    });
  });

  it('an answer without our error body (a proxy page) is an unexpected_response error that quotes it', async () => {
    const f = fakeFetch(() => new Response('<html>Bad Gateway</html>', { status: 502 }));
    const client = createMeetingBotClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: f.fetch });
    const err = await client.status(botId).catch((e) => e);
    expect(err).toBeInstanceOf(MeetingBotApiError);
    expect(err.status).toBe(502);
    expect(err.error).toBe('unexpected_response');
    expect(err.detail).toContain('Bad Gateway');
    expect(err.retryAfterSeconds).toBeUndefined();
  });

  it('recording: the download address; downloadRecording: the file from it, without the API key', async () => {
    const fileUrl = 'https://recordings.test/acct/bot.webm?X-Amz-Signature=abc';
    const view = {
      url: fileUrl,
      expires_at: '2025-06-03T15:04:05Z',
      content_type: 'audio/webm',
      duration_seconds: 1.5,
      size_bytes: 4,
      gaps: [],
    };
    const f = fakeFetch((req) =>
      req.url === fileUrl
        ? new Response(new Uint8Array([0x1a, 0x45, 0xdf, 0xa3]), {
            headers: { 'content-type': 'audio/webm' },
          })
        : json(200, view),
    );
    const client = createMeetingBotClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: f.fetch });
    expect(await client.recording(botId)).toEqual(view);
    expect(f.requests[0]!.url).toBe(`http://api.test/api/bot/${botId}/recording`);
    const file = await client.downloadRecording(botId);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(new Uint8Array([0x1a, 0x45, 0xdf, 0xa3]));
    expect(f.requests.map((r) => r.url)).toEqual([
      `http://api.test/api/bot/${botId}/recording`,
      `http://api.test/api/bot/${botId}/recording`,
      fileUrl,
    ]);
    expect(f.requests[2]!.headers.get('authorization')).toBeNull();
  });

  it('downloadRecording: a storage error is an unexpected_response, a not-ready recording our error', async () => {
    const expired = fakeFetch((req) =>
      req.url.startsWith('https://recordings.test')
        ? new Response('<Error><Code>AccessDenied</Code></Error>', { status: 403 })
        : json(200, { url: 'https://recordings.test/x.webm' }),
    );
    const client = createMeetingBotClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: expired.fetch });
    await expect(client.downloadRecording(botId)).rejects.toMatchObject({
      status: 403,
      error: 'unexpected_response',
      detail: expect.stringContaining('AccessDenied'),
    });
    const notReady = fakeFetch(() =>
      json(409, { error: 'recording_not_ready', detail: 'still running', message: 'Later.' }),
    );
    const waiting = createMeetingBotClient({
      baseUrl: 'http://api.test',
      apiKey: 'k',
      fetch: notReady.fetch,
    });
    await expect(waiting.downloadRecording(botId)).rejects.toMatchObject({
      status: 409,
      error: 'recording_not_ready',
    });
    expect(notReady.requests).toHaveLength(1);
  });

  it('deleteData sends DELETE and returns the deletion, 200 or 202', async () => {
    const body = { bot_id: botId, status: 'deleting', data_deleted_at: '2025-06-03T15:04:05Z' };
    const f = fakeFetch(() => json(202, body));
    const client = createMeetingBotClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: f.fetch });
    expect(await client.deleteData(botId)).toEqual(body);
    expect(f.requests[0]!.method).toBe('DELETE');
    expect(f.requests[0]!.url).toBe(`http://api.test/api/bot/${botId}/data`);
  });

  it('has a method for every operation of docs/openapi.json', async () => {
    const methodOf: Record<string, keyof MeetingBotClient> = {
      startBot: 'start',
      getBotStatus: 'status',
      getBotTranscript: 'transcript',
      getBotRecording: 'recording',
      getBotDeliveries: 'deliveries',
      deleteBotData: 'deleteData',
      listBots: 'list',
      stopBot: 'leave',
      stopBotAlias: 'leave', // the same operation under the interface's other path
      getOpenApi: 'openapi',
    };
    const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    const operationIds = Object.values(
      document.paths as Record<string, Record<string, { operationId: string }>>,
    )
      .flatMap((item) => Object.values(item))
      .map((op) => op.operationId);
    expect(operationIds.sort()).toEqual(Object.keys(methodOf).sort());
    const f = fakeFetch(() => json(200, { openapi: '3.1.0' }));
    const client = createMeetingBotClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: f.fetch });
    for (const method of Object.values(methodOf)) expect(typeof client[method]).toBe('function');
    expect(await client.openapi()).toEqual({ openapi: '3.1.0' });
    expect(f.requests[0]!.url).toBe('http://api.test/openapi.json');
  });

  it('refuses a relative base URL or an empty key before any request', () => {
    expect(() => createMeetingBotClient({ baseUrl: 'localhost:3000', apiKey: 'k' })).toThrow(/absolute URL/);
    expect(() => createMeetingBotClient({ baseUrl: '/api', apiKey: 'k' })).toThrow(/absolute URL/);
    expect(() => createMeetingBotClient({ baseUrl: 'http://api.test', apiKey: ' ' })).toThrow(/apiKey/);
  });
});

describe('verifyWebhook', () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({
    event: 'bot.in_call',
    bot_id: botId,
    timestamp: new Date().toISOString(),
    seq: 1,
    data: {},
  });
  const signed = (b: string, secrets = [secret]) =>
    webhookHeaders(secrets, 'msg_1', Math.floor(Date.now() / 1000), b);

  it('returns the event our signer signed, from fetch Headers, a plain object or Node’s arrays', () => {
    const headers = signed(body);
    const event = verifyWebhook(secret, body, new Headers(headers));
    expect(webhookEventName(event)).toBe('bot.in_call');
    expect(verifyWebhook(secret, Buffer.from(body), headers)).toEqual(event);
    const nodeStyle = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(verifyWebhook(secret, body, nodeStyle)).toEqual(event);
  });

  it('accepts either signature during a secret rotation', () => {
    const previous = newWebhookSecret();
    expect(verifyWebhook(previous, body, signed(body, [secret, previous]))).toMatchObject({ seq: 1 });
  });

  it('refuses a changed body, another secret, a missing signature and an old timestamp', () => {
    const headers = signed(body);
    expect(() => verifyWebhook(secret, body.replace('"seq":1', '"seq":2'), headers)).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(newWebhookSecret(), body, headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, body, { ...headers, 'webhook-signature': undefined })).toThrow(
      WebhookVerificationError,
    );
    const old = webhookHeaders([secret], 'msg_1', Math.floor(Date.now() / 1000) - 600, body);
    expect(() => verifyWebhook(secret, body, old)).toThrow(WebhookVerificationError);
  });

  it('names bot_join_failed by its event_type', () => {
    const b = JSON.stringify({ event_type: 'bot_join_failed', room_url: 'http://x', error_type: 'unknown' });
    expect(webhookEventName(verifyWebhook(secret, b, signed(b)))).toBe('bot_join_failed');
  });

  it('says it needs the raw body when given a parsed one', () => {
    expect(() => verifyWebhook(secret, JSON.parse(body), signed(body))).toThrow(/raw request body/);
  });
});
