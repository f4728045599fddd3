// The one wrapper between API Gateway v2 events and use cases: auth, body parsing, and error-to-response mapping.

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Caller } from '../../core/accounts/authenticate';
import { dependencyFailureOf } from '../../core/adapters/sdk-error';
import type { ServiceDeps } from '../../core/deps';
import { ApiError } from '../../core/errors';
import { JsonText } from '../../core/json-text';
import { metrics } from '../../core/metrics';

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

/**
 * The JSON body of a request: a body is required (400), sent as JSON (415: the OpenAPI document declares only
 * application/json, and a text/plain one is what fetch sends for a string body without a header), within the size
 * limit (413), and then valid JSON (400).
 */
export function jsonBody(event: HttpEvent, maxBytes: number): unknown {
  if (event.body === undefined || event.body === null || event.body === '') {
    throw new ApiError('validation_error', 'body: a JSON object is required');
  }
  const contentType = header(event, 'content-type');
  if (!isJsonMediaType(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type: the body must be sent as application/json, got ${contentType ? `'${contentType}'` : 'none'}`,
    );
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

/**
 * Whether a Content-Type is application/json, in any letter case, with no charset but UTF-8 (RFC 8259: JSON exchanged
 * between systems is UTF-8, and we decode it so). A structured-syntax type such as application/merge-patch+json is
 * refused: it names another format's meaning, and the document declares only application/json.
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type, ...params] = contentType.split(';');
  if (type!.trim().toLowerCase() !== 'application/json') return false;
  return params.every((param) => {
    const [name, value = ''] = param.split('=');
    if (name!.trim().toLowerCase() !== 'charset') return true;
    return (
      value
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase() === 'utf-8'
    );
  });
}

function toResult(reply: Reply, requestId: string): HttpResult {
  return {
    statusCode: reply.status,
    // A literal, then the reply's own: a spread of shared base headers cost V8 about 1 µs a request more.
    headers: Object.assign(
      {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-request-id': requestId,
      },
      reply.headers,
    ),
    body: reply.body instanceof JsonText ? reply.body.text : JSON.stringify(reply.body),
  };
}

export function errorResult(err: unknown, requestId: string, deps: ServiceDeps | undefined): HttpResult {
  const apiError = apiErrorOf(err, requestId, deps);
  const headers: Record<string, string> = {};
  if (apiError.code === 'authentication_error')
    headers['www-authenticate'] = 'Bearer realm="meeting-bot", error="invalid_token"';
  if (apiError.extras.retryAfter !== undefined) headers['retry-after'] = String(apiError.extras.retryAfter);
  if (apiError.extras.allow) headers.allow = apiError.extras.allow.join(', ');
  return toResult({ status: apiError.status, body: apiError.toBody(), headers }, requestId);
}

/** The log line of a request answered 503 dependency_unavailable (the runbook searches for it). */
export const dependencyUnavailableLog = 'request failed: a dependency is throttling or timing out (503)';

const dependencyFailureText = {
  throttled: 'is throttling requests',
  timeout: 'did not answer in time',
  unavailable: 'answered with a server fault',
} as const;

/**
 * The one mapping of a thrown error to the API's: an ApiError as it is, except a server_error (or any other error)
 * whose cause is an overloaded or slow dependency, which is the caller's to retry shortly (503 with Retry-After), not
 * a fault of ours to report as a 500. The use case has undone what it began (the join's hold, its Idempotency-Key).
 */
function apiErrorOf(err: unknown, requestId: string, deps: ServiceDeps | undefined): ApiError {
  if (err instanceof ApiError && err.code !== 'server_error') return err;
  const log = deps?.log ?? console;
  const kind = dependencyFailureOf(err);
  if (kind) {
    const retryAfter = deps?.config.DEPENDENCY_RETRY_AFTER_SECONDS ?? 2;
    metrics.dependencyUnavailable(kind);
    log.warn(dependencyUnavailableLog, { request_id: requestId, kind, err });
    return new ApiError(
      'dependency_unavailable',
      `a service this request depends on ${dependencyFailureText[kind]}; retry after ${retryAfter} s (request id ${requestId})`,
      { retryAfter },
    );
  }
  if (err instanceof ApiError) return err;
  log.error('unhandled error', { request_id: requestId, err });
  return new ApiError(
    'server_error',
    `an unexpected error occurred; quote request id ${requestId} to support`,
  );
}
