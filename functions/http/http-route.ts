// The one wrapper between API Gateway v2 events and use cases: auth, body parsing, and error-to-response mapping.

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Caller } from '../../core/accounts/authenticate';
import type { ServiceDeps } from '../../core/deps';
import { ApiError } from '../../core/errors';
import { JsonText } from '../../core/json-text';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext {
  deps: ServiceDeps;
  event: HttpEvent;
  caller: Caller;
}

export type Route = (ctx: RouteContext) => Promise<Reply>;
export type HttpHandler = (event: HttpEvent) => Promise<HttpResult>;

const baseHeaders = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function header(event: HttpEvent, name: string): string | undefined {
  return event.headers?.[name.toLowerCase()];
}

/** The bot a request is about: its path's bot_id, or the one a join started (for the trace's annotation). */
export function botIdOfRequest(event: HttpEvent, result?: HttpResult): string | undefined {
  const fromPath = event.pathParameters?.bot_id;
  if (fromPath || !result?.body || result.statusCode !== 201) return fromPath;
  try {
    const id = (JSON.parse(result.body) as { bot_id?: unknown }).bot_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Wraps a route that needs a valid API key; `deps` may be built lazily (a Lambda cold start). */
export function authenticatedRoute(route: Route, deps: () => Promise<ServiceDeps>): HttpHandler {
  return async (event) => {
    const requestId = event.requestContext?.requestId ?? randomUUID();
    let d: ServiceDeps | undefined;
    try {
      d = await deps();
      const caller = await d.auth.authenticate(header(event, 'authorization'), d.now());
      return toResult(await route({ deps: d, event, caller }), requestId);
    } catch (err) {
      return errorResult(err, requestId, d);
    }
  };
}

/** Wraps a public route (no API key). */
export function publicRoute(route: (event: HttpEvent) => Promise<Reply>): HttpHandler {
  return async (event) => {
    const requestId = event.requestContext?.requestId ?? randomUUID();
    try {
      return toResult(await route(event), requestId);
    } catch (err) {
      return errorResult(err, requestId, undefined);
    }
  };
}

/** The JSON body of a request; size is checked before parsing (413), then syntax (400). */
export function jsonBody(event: HttpEvent, maxBytes: number): unknown {
  if (event.body === undefined || event.body === null || event.body === '') {
    throw new ApiError('validation_error', 'body: a JSON object is required');
  }
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (raw.length > maxBytes) {
    throw new ApiError('payload_too_large', `the body is ${raw.length} bytes; the limit is ${maxBytes}`);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('validation_error', 'body: not valid JSON');
  }
}

function toResult(reply: Reply, requestId: string): HttpResult {
  return {
    statusCode: reply.status,
    headers: { ...baseHeaders, 'x-request-id': requestId, ...reply.headers },
    body: reply.body instanceof JsonText ? reply.body.text : JSON.stringify(reply.body),
  };
}

export function errorResult(err: unknown, requestId: string, deps: ServiceDeps | undefined): HttpResult {
  const apiError =
    err instanceof ApiError
      ? err
      : new ApiError(
          'server_error',
          `an unexpected error occurred; quote request id ${requestId} to support`,
        );
  if (!(err instanceof ApiError)) {
    (deps?.log ?? console).error('unhandled error', { request_id: requestId, err });
  }
  const headers: Record<string, string> = {};
  if (apiError.code === 'authentication_error')
    headers['www-authenticate'] = 'Bearer realm="meeting-bot", error="invalid_token"';
  if (apiError.extras.retryAfter !== undefined) headers['retry-after'] = String(apiError.extras.retryAfter);
  return toResult({ status: apiError.status, body: apiError.toBody(), headers }, requestId);
}
