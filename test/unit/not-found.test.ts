// API Gateway's $default route: anything no route matches gets the service's 404 error body.
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
    ['GET', '/api/bot/join'],
    ['DELETE', '/api/bot/6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f/status'],
    ['POST', '/nope'],
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
});
