// DynamoDB throttling or timing out on the local stack, injected into the stack's own DynamoDB client as SDK
// middleware (each attempt fails before it is sent, so the SDK's retries run and give up as they would on AWS): the
// API answers 503 dependency_unavailable with Retry-After, and the join leaves nothing behind: no credit held or
// charged, no session, no bot, its Idempotency-Key free for the retry.
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
/** Which DynamoDB calls fail, and how; none while undefined. */
let failing:
  | { when: (command: string, input: Record<string, unknown>) => boolean; error: () => Error }
  | undefined;
const failed: string[] = [];

const throttled = () =>
  new ProvisionedThroughputExceededException({
    message: 'The level of configured provisioned throughput for the table was exceeded.',
    $metadata: { httpStatusCode: 400 },
  });
/** What the SDK's NodeHttpHandler raises when requestTimeout passes. */
const timedOut = () => Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });

beforeAll(async () => {
  stack = await startTestStack({ DEPENDENCY_RETRY_AFTER_SECONDS: '3' });
  const client = stack.table.doc.client;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      if (failing?.when(command, args.input as Record<string, unknown>)) {
        failed.push(command);
        throw failing.error();
      }
      return next(args);
    },
    { step: 'deserialize', name: 'injectDependencyFailure' },
  );
  // The client caches each command's handler chain (cacheMiddleware); the chains built before lack the injection.
  (client as unknown as { handlers?: unknown }).handlers = undefined;
});
afterEach(() => {
  failing = undefined;
  failed.length = 0;
});
afterAll(() => stack?.close());

const join = (apiKey: string, room: string, headers?: Record<string, string>) =>
  stack.request('POST', '/api/bot/join', {
    key: apiKey,
    body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/${room}` },
    headers,
  });

describe('a throttled or timed-out DynamoDB', () => {
  it("the session's write throttled after the hold: 503, Retry-After, the hold returned, no session, key freed", async () => {
    const account = await stack.account(10);
    const before = (await stack.deps.accounts.get(account.accountId))!;
    failing = { when: (command) => command === 'BatchWriteItemCommand', error: throttled };

    const refused = await join(account.apiKey, 'throttled', { 'idempotency-key': 'join-throttled' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(refused.body).toMatchObject({ error: 'dependency_unavailable' });
    expect(refused.body.detail).toMatch(/throttling requests; retry after 3 s/);
    expect(refused.body.message).toMatch(/Retry-After/);
    // The SDK retried (maxAttempts 3) before the join gave up.
    expect(failed.length).toBeGreaterThanOrEqual(3);
    failing = undefined;

    const after = (await stack.deps.accounts.get(account.accountId))!;
    expect(after.balance).toBe(before.balance);
    expect(after.holds ?? {}).toEqual({});
    const list = await stack.request('GET', '/api/bots', { key: account.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.bots).toEqual([]);
    expect(await stack.runner.botCount()).toBe(0);

    // The same request again, once DynamoDB keeps up: the key was freed, so it starts the bot (one hold).
    const retried = await join(account.apiKey, 'throttled', { 'idempotency-key': 'join-throttled' });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const held = (await stack.deps.accounts.get(account.accountId))!;
    expect(Object.keys(held.holds ?? {})).toEqual([retried.body.bot_id]);
    await stack.request('POST', `/api/bot/${retried.body.bot_id}/leave`, { key: account.apiKey });
  }, 60_000);

  it('the hold itself timed out: 503, nothing held', async () => {
    const account = await stack.account(10);
    const before = (await stack.deps.accounts.get(account.accountId))!;
    failing = {
      when: (command, input) =>
        command === 'UpdateItemCommand' &&
        String(input.UpdateExpression).startsWith('SET balance = balance - '),
      error: timedOut,
    };
    const refused = await join(account.apiKey, 'timed-out');
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(refused.body).toMatchObject({ error: 'dependency_unavailable' });
    expect(refused.body.detail).toMatch(/did not answer in time/);
    failing = undefined;
    const after = (await stack.deps.accounts.get(account.accountId))!;
    expect(after.balance).toBe(before.balance);
    expect(after.holds ?? {}).toEqual({});
    expect((await stack.request('GET', '/api/bots', { key: account.apiKey })).body.bots).toEqual([]);
  }, 60_000);

  it('any route: every read throttled answers 503 (the API key check first), never 500', async () => {
    const account = await stack.account(1);
    failing = { when: () => true, error: throttled };
    const status = await stack.request('GET', `/api/bot/${crypto.randomUUID()}/status`, {
      key: account.apiKey,
    });
    expect(status.status, JSON.stringify(status.body)).toBe(503);
    expect(status.headers.get('retry-after')).toBe('3');
    expect(status.body.error).toBe('dependency_unavailable');
    const list = await stack.request('GET', '/api/bots', { key: account.apiKey });
    expect(list.status).toBe(503);
  }, 60_000);
});
