// API Gateway's limits on the local API server: a route function past its timeout is answered as the deployed HTTP
// API answers a function Lambda stopped (500, API Gateway's own body), and a body past the read limit, far below API
// Gateway's 10 MB, is refused with our error body before any handler runs. The deployed timeouts themselves (each
// under API Gateway's 30 s integration limit) are checked against the template in test/infra/limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, functionTimedOut, readLimitBytes, startApiServer } from '../../local/api-server';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let key: string;
let hanging: ApiServer;

beforeAll(async () => {
  stack = await startTestStack();
  ({ apiKey: key } = await stack.account(10));
  // The same use cases, whose session reads never answer (a dependency that accepts and never replies).
  const sessions = new Proxy(stack.deps.sessions, {
    get: (target, name) => (name === 'get' ? () => new Promise(() => {}) : Reflect.get(target, name)),
  });
  hanging = await startApiServer({ ...stack.deps, sessions }, { port: 0, routeTimeoutMs: () => 300 });
});

afterAll(async () => {
  await hanging?.close();
  await stack?.close();
});

describe("the local API keeps API Gateway's and Lambda's limits", () => {
  it('a route function past its timeout gets the 500 API Gateway answers for a stopped function', async () => {
    const started = Date.now();
    const res = await fetch(`${hanging.baseUrl}/api/bot/00000000-0000-4000-8000-000000000000/status`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(functionTimedOut.statusCode);
    expect(await res.json()).toEqual({ message: 'Internal Server Error' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('a body past the read limit is refused with our error body, unread by the handler', async () => {
    const res = await fetch(`${stack.baseUrl}/api/bot/join`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ room_url: 'https://a.daily.co/r', bot_prompt: 'x'.repeat(readLimitBytes) }),
    });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: string; detail: string };
    expect(body.error).toBe('payload_too_large');
    expect(readLimitBytes).toBeLessThan(10 * 1024 * 1024);
  });
});
