// No secret, token or full API key in any log line (STYLE.md): a session with a meeting token and an
// account's API key goes through the log calls of the join, the status, the bot task, results and delivery — the
// shapes those call sites pass (sessions, requests, errors, causes) — and the output is grepped for them.
import type { SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { botMeetingToken } from '../../bot-task/providers/daily/meeting-token';
import { newApiKey } from '../../core/accounts/secrets';
import type { BotSession } from '../../core/bots/session';
import type { ServiceDeps } from '../../core/deps';
import { createLogger, type LogFormat, redactText } from '../../core/log';
import { makeDeliveryHandler } from '../../functions/delivery/handler';
import { errorResult, type HttpEvent } from '../../functions/http/http-route';
import { makeResultsHandler } from '../../functions/results/handler';
import { captureOutput } from '../support/captured-output';

const apiKey = newApiKey().apiKey;
/** A Daily meeting token is a JWT. */
const meetingToken =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyIjoic3RhbmR1cCIsIm8iOnRydWUsImQiOiJhY21lIn0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const dailyApiKey = '5f3c1a9e0b7d4e2f8a6c3b1d9e7f5a3c1b9d7e5f3a1c9b7d5e3f1a9c7b5d3e1f';
const secrets = [apiKey, meetingToken, webhookSecret, dailyApiKey];

const botId = '5b0c2d8e-4f1a-4c3b-9d2e-7a6f5e4d3c2b';
const session: BotSession = {
  botId,
  accountId: 'acc_1',
  status: 'running',
  provider: 'daily',
  roomUrl: `https://acme.daily.co/standup?t=${meetingToken}`,
  roomName: 'standup',
  botConfig: { name: 'Interviewer' } as unknown as BotSession['botConfig'],
  processInsights: true,
  meetingToken,
  holdCredits: 1,
  createdAt: '2026-11-22T10:00:00.000Z',
  startedAt: '2026-11-22T10:00:00.000Z',
  completedAt: null,
  correlationId: 'req-1',
};
/** What a DynamoDB item of it looks like (adapters' errors may quote one). */
const sessionItem = { bot_id: botId, meeting_token: meetingToken, webhook_secret: webhookSecret };
const joinEvent = {
  headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'k1' },
  body: JSON.stringify({ room_url: session.roomUrl, meeting_token: meetingToken }),
  requestContext: { requestId: 'req-1' },
} as unknown as HttpEvent;

let output: string[];

beforeEach(() => {
  output = captureOutput();
});
afterEach(() => vi.restoreAllMocks());

/** Everything written, with the proof that something was: a grep over nothing would pass. */
function written(minLines: number): string {
  const text = output.join('');
  expect(text.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(minLines);
  return text;
}

function expectNoSecret(text: string) {
  for (const secret of secrets) expect(text).not.toContain(secret);
  // Not even a long run of one: a key cut at a line's end is still most of a key.
  expect(text).not.toContain(apiKey.slice(4, 24));
  expect(text).not.toContain(meetingToken.split('.')[1]!.slice(0, 20));
}

const failingStores = () =>
  new Proxy(
    {},
    {
      get: () =>
        new Proxy(
          {},
          {
            get: () => async () => {
              throw new Error(`conditional update failed on ${JSON.stringify(sessionItem)}`, {
                cause: new Error(`request carried ${JSON.stringify(session)} for ${apiKey}`),
              });
            },
          },
        ),
    },
  ) as never;

const sqsEvent = (body: unknown): SQSEvent =>
  ({ Records: [{ messageId: 'm1', body: JSON.stringify(body), attributes: {} }] }) as unknown as SQSEvent;

describe.each<LogFormat>(['json', 'pretty'])('logs (%s) never carry a secret', (format) => {
  const log = createLogger('debug', { component: 'test' }, { format });

  it('the join and the status: an unexpected error quoting the request and the session', () => {
    const err = new Error(`could not start ${JSON.stringify(joinEvent)}`, { cause: session });
    const result = errorResult(err, 'req-1', { log } as unknown as ServiceDeps);
    expect(result.statusCode).toBe(500);
    log.child({ bot_id: botId, account_id: 'acc_1' }).info('bot started', { request: joinEvent, session });
    log.info('status read', { session, headers: joinEvent.headers });
    expectNoSecret(written(3));
  });

  it('the bot task: the session it reads, its errors, its Daily token fallback', async () => {
    const bot = log.child({ bot_id: botId, component: 'bot-task', correlation_id: 'req-1' });
    bot.info('bot task started', { session, config: { DAILY_API_KEY: dailyApiKey, LLM_API_KEY: apiKey } });
    bot.warn('session poll failed', { err: new Error(`GetItem returned ${JSON.stringify(sessionItem)}`) });
    bot.error('bot task failed', {
      err: new TypeError(`cannot join ${session.roomUrl} with ${meetingToken}`),
    });
    await botMeetingToken(
      {
        apiKey: dailyApiKey,
        apiUrl: 'https://api.daily.test/v1',
        fetch: (async () => {
          throw new Error(`fetch failed: authorization: Bearer ${dailyApiKey}`);
        }) as unknown as typeof fetch,
      },
      {
        roomUrl: 'https://acme.daily.co/standup',
        botName: 'b',
        callerToken: meetingToken,
        validForSeconds: 60,
      },
      bot,
    );
    expectNoSecret(written(4));
  });

  it('results and delivery: a message whose processing fails on the stored session', async () => {
    const deps = {
      stores: failingStores(),
      config: {},
      log,
      now: () => new Date(),
      outbox: { send: async () => {} },
      deliveryQueue: { send: async () => {} },
    } as never;
    const results = makeResultsHandler(deps);
    const message = {
      kind: 'session_ended',
      bot_id: botId,
      exit_reason: 'participant_left',
      left_at: session.createdAt,
    };
    expect((await results(sqsEvent({ ...message, correlation_id: 'req-1' }))).batchItemFailures).toHaveLength(
      1,
    );
    const delivery = makeDeliveryHandler(deps, { sqs: {} as never, queueUrl: 'q', dlqUrl: 'dlq' });
    const job = { bot_id: botId, channel: 'webhook', event: 'bot.done', correlation_id: 'req-1' };
    expect((await delivery(sqsEvent(job))).batchItemFailures).toHaveLength(1);
    const text = written(2);
    expect(text).toContain('req-1');
    expectNoSecret(text);
  });
});

describe('redactText', () => {
  it('keeps what is not a secret and says what was removed', () => {
    expect(redactText(`key ${apiKey} token ${meetingToken}`)).toBe('key mbk_[redacted] token [redacted]');
    expect(redactText('https://x.test/hook?token=abc&b=1')).toBe('https://x.test/hook?token=[redacted]&b=1');
    expect(redactText('bot 5b0c2d8e-4f1a-4c3b-9d2e-7a6f5e4d3c2b left: participant_left')).toBe(
      'bot 5b0c2d8e-4f1a-4c3b-9d2e-7a6f5e4d3c2b left: participant_left',
    );
  });

  it('redacts whatever the case of the words around a secret, and skips lines below the level unread', () => {
    expect(redactText(`authorization: BEARER ${'a'.repeat(20)}`)).toBe('authorization: BEARER [redacted]');
    expect(redactText('https://x.test/?API_KEY=abc')).toBe('https://x.test/?API_KEY=[redacted]');
    const log = createLogger('info');
    let reads = 0;
    const fields = {
      get costly() {
        reads++;
        return 'x';
      },
    };
    log.debug('below the level', fields);
    expect(reads).toBe(0);
    log.info('at the level', fields);
    expect(reads).toBe(1);
    expect(written(1)).not.toContain('below the level');
  });

  it('keeps ids and counts whose names mention a key or token', () => {
    const log = createLogger('info');
    log.info('key rotated', { key_id: 'key_0123abcd', token_count: 3, apiKeyId: 'key_9' });
    const line = JSON.parse(written(1));
    expect(line).toMatchObject({
      msg: 'key rotated',
      key_id: 'key_0123abcd',
      token_count: 3,
      apiKeyId: 'key_9',
    });
  });
});
