// The credit ledger against dynalite: holds, settles and releases are exact and idempotent.

import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountNotFoundError,
  InsufficientCreditsError,
  TooManyRunningBotsError,
} from '../../core/accounts/errors';
import { sqsClient } from '../../core/adapters/aws-clients';
import { completeSession } from '../../core/bots/finish-session';
import { sessionCompletePayload } from '../../core/delivery/payloads';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.close());

const sum = async (accountId: string) =>
  (await stack.deps.ledger.entries(accountId)).reduce((s, e) => s + e.amount, 0);

describe('credit ledger', () => {
  it('a repeated hold for the same bot is one hold', async () => {
    const { accountId } = await stack.account(5);
    await stack.deps.ledger.placeHold(accountId, 'bot-a', 2, 100);
    await stack.deps.ledger.placeHold(accountId, 'bot-a', 2, 100);
    expect((await stack.deps.accounts.get(accountId))?.balance).toBe(3);
    expect(await sum(accountId)).toBe(3);
  });

  it('refuses a hold above the balance with the balance, changing nothing', async () => {
    const { accountId } = await stack.account(1);
    await expect(stack.deps.ledger.placeHold(accountId, 'bot-b', 2, 100)).rejects.toEqual(
      new InsufficientCreditsError(1),
    );
    expect((await stack.deps.accounts.get(accountId))?.balance).toBe(1);
    expect(await sum(accountId)).toBe(1);
  });

  it('settles once: hold back, usage charged; a repeat or a late release changes nothing', async () => {
    const { accountId } = await stack.account(10);
    await stack.deps.ledger.placeHold(accountId, 'bot-c', 1, 100);
    expect(await stack.deps.ledger.settle(accountId, 'bot-c', 4)).toBe(true);
    expect(await stack.deps.ledger.settle(accountId, 'bot-c', 4)).toBe(false);
    await stack.deps.ledger.releaseHold(accountId, 'bot-c');
    expect((await stack.deps.accounts.get(accountId))?.balance).toBe(6);
    expect(await sum(accountId)).toBe(6);
  });

  it('concurrent settles of one hold charge once', async () => {
    const { accountId } = await stack.account(10);
    await stack.deps.ledger.placeHold(accountId, 'bot-d', 1, 100);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => stack.deps.ledger.settle(accountId, 'bot-d', 3)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await stack.deps.accounts.get(accountId))?.balance).toBe(7);
    expect(await sum(accountId)).toBe(7);
  });

  it('usage above the balance goes negative (post-paid) and blocks the next join', async () => {
    const { accountId } = await stack.account(1);
    await stack.deps.ledger.placeHold(accountId, 'bot-e', 1, 100);
    await stack.deps.ledger.settle(accountId, 'bot-e', 5);
    expect((await stack.deps.accounts.get(accountId))?.balance).toBe(-4);
    await expect(stack.deps.ledger.placeHold(accountId, 'bot-f', 1, 100)).rejects.toBeInstanceOf(
      InsufficientCreditsError,
    );
  });

  it('caps the bots an account runs at once, and frees a place when one settles', async () => {
    const { accountId } = await stack.account(10);
    await stack.deps.ledger.placeHold(accountId, 'run-1', 1, 2);
    await stack.deps.ledger.placeHold(accountId, 'run-2', 1, 2);
    await expect(stack.deps.ledger.placeHold(accountId, 'run-3', 1, 2)).rejects.toBeInstanceOf(
      TooManyRunningBotsError,
    );
    expect((await stack.deps.accounts.get(accountId))?.balance).toBe(8);
    await stack.deps.ledger.settle(accountId, 'run-1', 1);
    await stack.deps.ledger.placeHold(accountId, 'run-3', 1, 2);
    expect(Object.keys((await stack.deps.accounts.get(accountId))?.holds ?? {}).sort()).toEqual([
      'run-2',
      'run-3',
    ]);
  });

  it('grants to an unknown account fail without a ledger entry', async () => {
    await expect(stack.deps.ledger.grant('acct_missing', 5)).rejects.toBeInstanceOf(AccountNotFoundError);
    expect(await stack.deps.ledger.entries('acct_missing')).toEqual([]);
  });

  it('completing a session twice settles once', async () => {
    const acct = await stack.account(5);
    stack.deps.runner = { start: async (id) => ({ taskRef: id }), stop: async () => {} };
    const res = await stack.request('POST', '/api/bot/join', {
      key: acct.apiKey,
      body: { room_url: 'https://a.daily.co/x' },
    });
    const botId = res.body.bot_id;
    await stack.deps.sessions.updateRunning(botId, { joinedAt: new Date().toISOString() });
    const deps = { ...stack.deps, config: stack.config };
    const later = new Date(Date.now() + 90_000);
    const [a, b] = await Promise.all([
      completeSession(deps, botId, { exitReason: 'participant_left' }, later),
      completeSession(deps, botId, { exitReason: 'idle_timeout' }, later),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect((await stack.deps.accounts.get(acct.accountId))?.balance).toBe(3); // 2 started minutes at 1 credit
    expect(await sum(acct.accountId)).toBe(3);
  });

  it('a bot that never got into the room (stopped while joining) completes without a charge', async () => {
    const acct = await stack.account(5);
    stack.deps.runner = { start: async (id) => ({ taskRef: id }), stop: async () => {} };
    const res = await stack.request('POST', '/api/bot/join', {
      key: acct.apiKey,
      body: { room_url: 'https://a.daily.co/lobby' },
    });
    const later = new Date(Date.now() + 90_000);
    const deps = { ...stack.deps, config: stack.config };
    expect(await completeSession(deps, res.body.bot_id, { exitReason: 'force_leave' }, later)).toBe(true);
    expect((await stack.deps.accounts.get(acct.accountId))?.balance).toBe(5);
    expect(await sum(acct.accountId)).toBe(5);
  });
});

describe('usage through the results stage', () => {
  it('charges up to when the bot left the room, not up to when its results were processed', async () => {
    const acct = await stack.account(5);
    stack.deps.runner = { start: async (id) => ({ taskRef: id }), stop: async () => {} };
    const res = await stack.request('POST', '/api/bot/join', {
      key: acct.apiKey,
      body: { room_url: 'https://a.daily.co/late' },
    });
    const botId = res.body.bot_id as string;
    const startedMs = Date.now() - 32 * 60_000;
    const startedAt = new Date(startedMs).toISOString();
    // In the room for 1 min 59 s, about half an hour ago; its results message is only handled now (throttled
    // insights are retried by the queue for up to about 24 minutes).
    await stack.deps.sessions.updateRunning(botId, { startedAt, joinedAt: startedAt });
    const sqs = sqsClient(stack.config);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.config.RESULTS_QUEUE_URL,
        MessageBody: JSON.stringify({
          kind: 'session_ended',
          bot_id: botId,
          exit_reason: 'participant_left',
          left_at: new Date(startedMs + 119_000).toISOString(),
        }),
      }),
    );
    sqs.destroy();
    const session = await until(async () => {
      const s = await stack.deps.sessions.get(botId);
      return s?.status === 'completed' ? s : undefined;
    });
    expect((await stack.deps.accounts.get(acct.accountId))?.balance).toBe(3); // 2 started minutes
    expect(await sum(acct.accountId)).toBe(3);
    expect(session.leftAt).toBeDefined();
    expect(sessionCompletePayload(session, '').duration_seconds).toBe(119);
  });
});

describe('DynamoDB rate limiter (Lambda)', () => {
  it('counts per key per minute across callers and refuses past the limit', async () => {
    const { DynamoRateLimiter } = await import('../../core/adapters/dynamodb/rate-limiter');
    const a = new DynamoRateLimiter(stack.table);
    const b = new DynamoRateLimiter(stack.table); // another Lambda instance
    const t = new Date('2026-01-01T00:00:30Z');
    const decisions = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).consume('key_x', 4, t)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(4);
    expect(decisions.find((d) => !d.allowed)?.retryAfterSeconds).toBe(30);
    expect((await a.consume('key_x', 4, new Date('2026-01-01T00:01:00Z'))).allowed).toBe(true);
  });
});
