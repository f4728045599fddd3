// The deployment's maximum of bots on the local stack (MAX_BOTS, counted as the runner's bot processes): a join
// beyond it answers 503 capacity_exhausted with Retry-After, holds nothing, and leaves no session running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ MAX_BOTS: '1' });
});
afterAll(() => stack?.close());

describe('MAX_BOTS', () => {
  it('a join beyond the maximum: 503 capacity_exhausted, Retry-After, nothing held, no session running', async () => {
    const account = await stack.account(10);
    const join = (room: string) =>
      stack.request('POST', '/api/bot/join', {
        key: account.apiKey,
        body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/${room}` },
      });
    const first = await join('first');
    expect(first.status).toBe(201);
    const held = (await stack.deps.accounts.get(account.accountId))!;
    expect(Object.keys(held.holds ?? {})).toHaveLength(1);

    const beyond = await join('beyond');
    expect(beyond.status, JSON.stringify(beyond.body)).toBe(503);
    expect(beyond.body.error).toBe('capacity_exhausted');
    expect(beyond.body.detail).toMatch(/maximum of 1 bots/);
    expect(beyond.headers.get('retry-after')).toBe('60');
    const after = (await stack.deps.accounts.get(account.accountId))!;
    expect(after.balance).toBe(held.balance);
    expect(after.holds).toEqual(held.holds);
    const list = await stack.request('GET', '/api/bots', { key: account.apiKey });
    expect(list.body.bots.map((b: { bot_id: string }) => b.bot_id)).toEqual([first.body.bot_id]);

    // Once the first bot is gone, a join fits again.
    await stack.request('POST', `/api/bot/${first.body.bot_id}/leave`, { key: account.apiKey });
    await until(async () => (await stack.runner.botCount()) === 0, 60_000);
    const again = await join('again');
    expect(again.status).toBe(201);
    await stack.request('POST', `/api/bot/${again.body.bot_id}/leave`, { key: account.apiKey });
  }, 120_000);
});
