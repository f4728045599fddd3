// Test peer: a local HTTP server speaking the OpenAI-compatible chat completions API (POST /v1/chat/completions,
// JSON answers and SSE streams ending in `data: [DONE]`) that checks every request the way a strict server would:
// the model, the messages, the stream flag, a response_format's JSON schema (OpenAI's strict-mode rules) and the
// Authorization header. A request that breaks a rule gets the API's 4xx error and is listed in `violations`.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { z } from 'zod';

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  max_tokens?: number;
  temperature?: number;
  response_format?: {
    type: 'json_schema' | 'json_object' | 'text';
    json_schema?: { name: string; description?: string; schema: Record<string, unknown>; strict?: boolean };
  };
}

/** One request the server received. */
export interface FakeLlmCall {
  body: ChatRequest;
  headers: IncomingHttpHeaders;
  /** The system message's text ('' when there is none). */
  system: string;
  /** The text of the last user message. */
  lastUser: string;
  /** The server wrote its whole answer (for a stream: up to `data: [DONE]`). */
  finished: boolean;
}

/** What the server answers a call with. */
export type FakeLlmAnswer =
  | {
      /** The assistant's text; streamed in `chunks` when given, else word by word. */
      content: string;
      chunks?: string[];
      finishReason?: 'stop' | 'length';
      /** OpenAI's refusal field instead of content. */
      refusal?: string;
      /** A stream waits for this after `gateAfter` chunks (default 1): a model still generating. */
      gate?: Promise<void>;
      gateAfter?: number;
    }
  | {
      /** An error response (429, 500, …) with the API's error body. */
      status: number;
      message?: string;
      headers?: Record<string, string>;
    };

export type FakeLlmHandler = (call: FakeLlmCall) => FakeLlmAnswer | Promise<FakeLlmAnswer>;

export interface FakeLlmServerOptions {
  /** The one model the server serves (default `fake-model`); other names get 404 model_not_found. */
  model?: string;
  /** The key every request must carry as `Bearer <key>`; null: requests must carry no Authorization header. */
  apiKey?: string | null;
  /** Answers calls once the queued answers have run out (default: a 500). */
  handler?: FakeLlmHandler;
  /** Answer 400 to any response_format, like a server without structured output. */
  rejectResponseFormat?: boolean;
}

export interface FakeLlmServer {
  /** The API root to configure as LLM_BASE_URL: http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  calls: FakeLlmCall[];
  /** Every rule a request broke (a test asserts this stays empty). */
  violations: string[];
  /** Answers for the next calls, in order; after them the handler answers. */
  queue(...answers: FakeLlmAnswer[]): void;
  /** Replaces the handler. */
  handle(handler: FakeLlmHandler): void;
  /** Forgets calls, violations and queued answers, and restores the handler of the options (between tests). */
  reset(): void;
  close(): Promise<void>;
}

const messageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.string().min(1, 'a message needs content'),
});

const requestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  response_format: z
    .object({
      type: z.enum(['json_schema', 'json_object', 'text']),
      json_schema: z
        .object({
          name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
          description: z.string().optional(),
          schema: z.record(z.string(), z.unknown()),
          strict: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
});

/** JSON Schema keywords OpenAI's strict mode refuses. */
const notInStrict = ['minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

/** Where a strict schema breaks OpenAI's rules: objects closed, every property required, no refused keywords. */
export function strictSchemaProblems(node: unknown, path = '$'): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => strictSchemaProblems(n, `${path}[${i}]`));
  if (!node || typeof node !== 'object') return [];
  const o = node as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of notInStrict) if (k in o) problems.push(`${path}: '${k}' is not permitted in strict mode`);
  if (o.type === 'object') {
    if (o.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`);
    const keys = Object.keys((o.properties as object | undefined) ?? {});
    const required = new Set((o.required as string[] | undefined) ?? []);
    for (const k of keys) if (!required.has(k)) problems.push(`${path}: property '${k}' must be required`);
  }
  for (const [k, v] of Object.entries(o)) {
    if (k === 'properties' && v && typeof v === 'object') {
      for (const [name, sub] of Object.entries(v))
        problems.push(...strictSchemaProblems(sub, `${path}.${name}`));
    } else if (typeof v === 'object') problems.push(...strictSchemaProblems(v, `${path}.${k}`));
  }
  return problems;
}

export async function startFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const model = options.model ?? 'fake-model';
  const calls: FakeLlmCall[] = [];
  const violations: string[] = [];
  const queued: FakeLlmAnswer[] = [];
  const initialHandler: FakeLlmHandler =
    options.handler ?? (() => ({ status: 500, message: 'no answer scripted' }));
  let handler = initialHandler;
  let ids = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void serve(
        req.method ?? '',
        req.url ?? '',
        req.headers,
        Buffer.concat(chunks).toString('utf8'),
        res,
      ).catch((err: unknown) => {
        violations.push(`server fault: ${String(err)}`);
        if (!res.headersSent) sendError(res, 500, 'fake server fault', 'server_error');
        else res.end();
      });
    });
  });

  const refuse = (res: ServerResponse, status: number, message: string, code: string) => {
    violations.push(message);
    sendError(res, status, message, code);
  };

  async function serve(
    method: string,
    url: string,
    headers: IncomingHttpHeaders,
    raw: string,
    res: ServerResponse,
  ) {
    if (method !== 'POST' || url.split('?')[0] !== '/v1/chat/completions') {
      return refuse(res, 404, `unknown route ${method} ${url}`, 'not_found');
    }
    const auth = headers.authorization;
    if (options.apiKey === null && auth !== undefined) {
      return refuse(
        res,
        400,
        'an Authorization header was sent to a server that needs no key',
        'unexpected_auth',
      );
    }
    if (typeof options.apiKey === 'string' && auth !== `Bearer ${options.apiKey}`) {
      return refuse(res, 401, 'Incorrect API key provided', 'invalid_api_key');
    }
    if (!String(headers['content-type']).startsWith('application/json')) {
      return refuse(res, 400, 'the body must be application/json', 'invalid_request_error');
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return refuse(res, 400, 'the body is not valid JSON', 'invalid_request_error');
    }
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) return refuse(res, 400, z.prettifyError(parsed.error), 'invalid_request_error');
    const body = parsed.data as ChatRequest;
    if (body.model !== model) {
      return refuse(res, 404, `The model '${body.model}' does not exist`, 'model_not_found');
    }
    const format = body.response_format;
    if (format) {
      if (options.rejectResponseFormat) {
        // Not a violation: the client is expected to try this and fall back.
        return sendError(
          res,
          400,
          "Invalid parameter: 'response_format' is not supported",
          'invalid_request_error',
        );
      }
      if (format.type === 'json_schema') {
        if (!format.json_schema)
          return refuse(res, 400, 'response_format.json_schema is missing', 'invalid_request_error');
        if (format.json_schema.schema.type !== 'object') {
          return refuse(res, 400, 'response_format schema must be an object schema', 'invalid_request_error');
        }
        if (format.json_schema.strict) {
          const problems = strictSchemaProblems(format.json_schema.schema);
          if (problems.length) {
            return refuse(
              res,
              400,
              `Invalid schema for response_format: ${problems.join('; ')}`,
              'invalid_request_error',
            );
          }
        }
      }
    }
    const call: FakeLlmCall = {
      body,
      headers,
      system: body.messages
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n'),
      lastUser: body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '',
      finished: false,
    };
    calls.push(call);
    const answer = queued.shift() ?? (await handler(call));
    if ('status' in answer) {
      for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
      sendError(res, answer.status, answer.message ?? `HTTP ${answer.status}`, errorCode(answer.status));
      call.finished = true;
      return;
    }
    const id = `chatcmpl-fake-${++ids}`;
    const created = Math.floor(Date.now() / 1000);
    const finishReason = answer.finishReason ?? 'stop';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: answer.refusal ? null : answer.content,
                refusal: answer.refusal ?? null,
              },
              finish_reason: finishReason,
            },
          ],
          usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
        }),
      );
      call.finished = true;
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const event = (delta: Record<string, unknown>, finish: string | null) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    const pieces = answer.chunks ?? answer.content.match(/\S+\s*|\s+/g) ?? [];
    event({ role: 'assistant', content: '' }, null);
    for (const [i, piece] of pieces.entries()) {
      if (answer.gate && i === (answer.gateAfter ?? 1)) await answer.gate;
      if (closed) return;
      event({ content: piece }, null);
    }
    if (closed) return;
    event({}, finishReason);
    res.end('data: [DONE]\n\n');
    call.finished = true;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    violations,
    queue: (...answers) => {
      queued.push(...answers);
    },
    handle: (h) => {
      handler = h;
    },
    reset: () => {
      calls.length = 0;
      violations.length = 0;
      queued.length = 0;
      handler = initialHandler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One fake server for a test file: started before its tests, reset after each (a request that broke a rule fails
 * the test that sent it), closed after them. Read `.server` inside tests and hooks.
 */
export function fakeLlmServerForTests(options: FakeLlmServerOptions = {}): {
  readonly server: FakeLlmServer;
} {
  let server: FakeLlmServer | undefined;
  beforeAll(async () => {
    server = await startFakeLlmServer(options);
  });
  afterEach(() => {
    const violations = [...(server?.violations ?? [])];
    server?.reset();
    expect(violations).toEqual([]);
  });
  afterAll(() => server?.close());
  return {
    get server() {
      if (!server) throw new Error('the fake LLM server starts in beforeAll');
      return server;
    },
  };
}

function errorCode(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function sendError(res: ServerResponse, status: number, message: string, code: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: code, param: null, code } }));
}
