// API Gateway's $default route: a path no route has gets the service's 404 error body; a known path asked with another
// method gets 405 with the methods it takes in Allow.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/http/not-found';

const event = (method: string, rawPath: string) =>
  ({
    rawPath,
    headers: {},
    isBase64Encoded: false,
    requestContext: { requestId: 'req-404', http: { method, path: rawPath } },
  }) as unknown as APIGatewayProxyEventV2;

describe('not-found ($default route)', () => {
  it.each([
    ['POST', '/nope'],
    ['GET', '/api/bot/6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f/nothing'],
    ['GET', '/api/bot//status'],
  ])('%s %s → 404 not_found in our error body', async (method, path) => {
    const res = await handler(event(method, path));
    expect(res.statusCode).toBe(404);
    expect(res.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8' });
    expect(JSON.parse(res.body!)).toMatchObject({
      error: 'not_found',
      message: 'Not found.',
      detail: `no route ${method} ${path}`,
    });
  });

  it.each([
    ['GET', '/api/bot/join', 'POST'],
    ['PUT', '/api/bot/6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f/status', 'GET'],
    ['GET', '/api/bot/6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f/data', 'DELETE'],
  ])('%s %s → 405 method_not_allowed, Allow: %s', async (method, path, allow) => {
    const res = await handler(event(method, path));
    expect(res.statusCode).toBe(405);
    expect(res.headers).toMatchObject({ allow });
    expect(JSON.parse(res.body!)).toMatchObject({
      error: 'method_not_allowed',
      detail: `${path} takes ${allow}, not ${method}`,
    });
  });
});
