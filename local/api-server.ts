// Plays API Gateway (HTTP API, payload v2) on localhost: each request becomes a v2 event for the same handlers.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceDeps } from '../core/deps';
import { ApiError } from '../core/errors';
import { timedOut, within } from '../core/within';
import {
  authenticatedRoute,
  errorResult,
  type HttpEvent,
  type HttpHandler,
  type HttpResult,
  publicRoute,
} from '../functions/http/http-route';
import { noRouteError } from '../functions/http/not-found';
import { openApiRoute } from '../functions/http/openapi';
import { type RouteName, type RouteSpec, routeTable } from '../functions/http/route-table';
import {
  dataRoute,
  deliveriesRoute,
  joinRoute,
  leaveRoute,
  listRoute,
  statusFunctionRoute,
} from '../functions/http/routes';
import { routeLimits } from '../infra/limits';

/** API Gateway's own payload limit is 10 MB; we stop reading far earlier and let the handler judge the rest. */
export const readLimitBytes = 1024 * 1024;

/**
 * What API Gateway's HTTP API answers when the route's function fails without a response (a timeout: Lambda stopped
 * it): 500 with its own body, not ours, as a client of the deployed API sees it.
 */
export const functionTimedOut = {
  statusCode: 500,
  body: JSON.stringify({ message: 'Internal Server Error' }),
};

/** Extra request handlers mounted beside the API (the local room); return true when handled. */
export type Mount = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

interface CompiledRoute extends RouteSpec {
  routeKey: string;
  pattern: RegExp;
  params: string[];
  handler: HttpHandler;
}

export function apiHandlers(deps: ServiceDeps): Record<RouteName, HttpHandler> {
  const d = async () => deps;
  return {
    join: authenticatedRoute(joinRoute, d),
    leave: authenticatedRoute(leaveRoute, d),
    status: authenticatedRoute(statusFunctionRoute, d),
    deliveries: authenticatedRoute(deliveriesRoute, d),
    list: authenticatedRoute(listRoute, d),
    data: authenticatedRoute(dataRoute, d),
    openapi: publicRoute(openApiRoute),
  };
}

function compile(handlers: Record<RouteName, HttpHandler>): CompiledRoute[] {
  return routeTable.map((r) => {
    const params: string[] = [];
    const source = r.path
      .split('/')
      .map((part) => {
        const m = /^\{(\w+)\}$/.exec(part);
        if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        params.push(m[1]!);
        return '([^/]+)';
      })
      .join('/');
    return {
      ...r,
      routeKey: `${r.method} ${r.path}`,
      pattern: new RegExp(`^${source}$`),
      params,
      handler: handlers[r.name],
    };
  });
}

export type ApiServer = Awaited<ReturnType<typeof startApiServer>>;

export async function startApiServer(
  deps: ServiceDeps,
  options: {
    port: number;
    host?: string;
    mounts?: Mount[];
    /** Each route function's timeout: its deployed one (infra/limits.ts) unless a test shortens it. */
    routeTimeoutMs?: (route: RouteName) => number;
  },
) {
  const timeoutOf = options.routeTimeoutMs ?? ((route) => routeLimits(route).timeoutSeconds * 1000);
  const routes = compile(apiHandlers(deps));
  const server = createServer((req, res) => {
    void handle(req, res).catch((err) => {
      deps.log.error('local api server fault', { err });
      if (!res.headersSent) send(res, errorResult(err, randomUUID(), deps));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    for (const mount of options.mounts ?? []) {
      if (await mount(req, res)) return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const requestId = randomUUID();
    const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (!route) {
      req.resume();
      return send(res, errorResult(noRouteError(req.method ?? 'GET', url.pathname), requestId, deps));
    }
    const body = await readBody(req);
    if (body === null) {
      const error = new ApiError('payload_too_large', `the body is over ${readLimitBytes} bytes`);
      return send(res, errorResult(error, requestId, deps));
    }
    const match = route.pattern.exec(url.pathname)!;
    const pathParameters = Object.fromEntries(
      route.params.map((p, i) => [p, decodePathSegment(match[i + 1]!)]),
    );
    const timeoutMs = timeoutOf(route.name);
    const result = await within(
      route.handler(toEvent(req, url, route.routeKey, pathParameters, body, requestId)),
      timeoutMs,
    );
    if (result === timedOut) {
      // Lambda stops the function at its timeout (here its promise runs on, unanswered).
      deps.log.error('route function timed out; API Gateway answers 500', {
        route: route.name,
        timeout_ms: timeoutMs,
        request_id: requestId,
      });
      return send(res, functionTimedOut);
    }
    send(res, result);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  return {
    server,
    baseUrl: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > readLimitBytes) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function toEvent(
  req: IncomingMessage,
  url: URL,
  routeKey: string,
  pathParameters: Record<string, string>,
  body: Buffer,
  requestId: string,
): HttpEvent {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    pathParameters,
    body: body.length ? body.toString('base64') : undefined,
    isBase64Encoded: body.length > 0,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
  };
}

function send(res: ServerResponse, result: HttpResult) {
  const body = typeof result.body === 'string' ? result.body : '';
  res.writeHead(result.statusCode ?? 200, {
    ...(result.headers as Record<string, string>),
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * A path segment percent-decoded, or as it came when it is not valid percent-encoding (`%E0%A4`): the route then
 * refuses it like any other bad value instead of throwing.
 */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
