// The typed client of the Meeting Bot Service: one method per operation of docs/openapi.json (types generated into
// api-types.ts), the API key sent on every call, and every error answer thrown as a MeetingBotApiError.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './api-types.js';

export type { components, paths, webhooks } from './api-types.js';
export {
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventName,
  type WebhookEventOf,
  WebhookVerificationError,
  webhookEventName,
} from './webhooks.js';

type Schemas = components['schemas'];
export type StartRequest = Schemas['StartRequest'];
export type StartResponse = Schemas['StartResponse'];
export type StatusView = Schemas['StatusView'];
export type LeaveResponse = Schemas['LeaveResponse'];
export type TranscriptPage = Schemas['TranscriptPage'];
export type DeliveriesView = Schemas['DeliveriesView'];
export type RecordingView = Schemas['RecordingView'];
export type DataDeletion = Schemas['DataDeletion'];
export type BotListView = Schemas['BotListView'];
export type ErrorBody = Schemas['ErrorBody'];
export type TranscriptQuery = NonNullable<
  paths['/api/bot/{bot_id}/transcript']['get']['parameters']['query']
>;
export type ListBotsQuery = NonNullable<paths['/api/bots']['get']['parameters']['query']>;

/** An answer other than success: the service's error body (`error`, `detail`, `message`) and what came with it. */
export class MeetingBotApiError extends Error {
  override readonly name = 'MeetingBotApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The error code (authentication_error, not_found, insufficient_credits, …), or unexpected_response. */
  readonly error: string;
  readonly detail: string;
  /** The user-friendly message of the error body. */
  readonly userMessage: string;
  /** The account's balance, with insufficient_credits. */
  readonly balance: number | undefined;
  /** Seconds to wait before retrying, with rate_limited and the 503s (capacity_unavailable, dependency_unavailable, …). */
  readonly retryAfterSeconds: number | undefined;
  /** The x-request-id of the answer, for a support request. */
  readonly requestId: string | undefined;

  constructor(status: number, body: ErrorBody, headers: Headers) {
    super(`${status} ${body.error}: ${body.detail}`);
    this.status = status;
    this.error = body.error;
    this.detail = body.detail;
    this.userMessage = body.message;
    this.balance = body.balance;
    const retryAfter = Number(headers.get('retry-after') ?? Number.NaN);
    this.retryAfterSeconds = Number.isFinite(retryAfter) ? retryAfter : undefined;
    this.requestId = headers.get('x-request-id') ?? undefined;
  }
}

export interface MeetingBotClientOptions {
  /** Where the service answers, e.g. http://localhost:3000 (npm start) or the deployed API's URL. */
  baseUrl: string;
  /** An API key of the account (the dev account's is printed by npm start). */
  apiKey: string;
  /** Another fetch (tests, proxies); globalThis.fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface MeetingBotClient {
  /** Starts a bot in a room (201). The same `idempotencyKey` and body within 24 h return the first answer. */
  start(body: StartRequest, options?: { idempotencyKey?: string }): Promise<StartResponse>;
  /** Status and results of a bot. */
  status(botId: string): Promise<StatusView>;
  /** Asks a running bot to leave; it then runs its exit pipeline (202). */
  leave(botId: string): Promise<LeaveResponse>;
  /** One page of the transcript; follow `next_after_seq` until it is null. */
  transcript(botId: string, query?: TranscriptQuery): Promise<TranscriptPage>;
  /** The webhook and e-mail deliveries of a bot, with every attempt. */
  deliveries(botId: string): Promise<DeliveriesView>;
  /** The account's bots, newest first, one page; follow `next_cursor`. */
  list(query?: ListBotsQuery): Promise<BotListView>;
  /**
   * Where to download a recorded session's audio (`url`, valid until `expires_at`, at most an hour) and what the file
   * is. 409 recording_not_ready until the session completes; ask again for a fresh address when one expired.
   */
  recording(botId: string): Promise<RecordingView>;
  /**
   * The recording itself: a fresh address from recording(), then the file fetched from it (no API key sent there).
   * Read the answer as it suits you: `await response.arrayBuffer()`, or stream `response.body`.
   */
  downloadRecording(botId: string): Promise<Response>;
  /**
   * Deletes an ended bot's meeting content, keeping its tombstone; `status` is `data_deleted`, or `deleting` (202) when the
   * service finishes the purge within minutes. A repeat answers with the first `data_deleted_at`.
   */
  deleteData(botId: string): Promise<DataDeletion>;
  /** The OpenAPI document of the service (no API key needed). */
  openapi(): Promise<Record<string, unknown>>;
  /** The openapi-fetch client underneath, typed by the same paths, for anything the methods above do not cover. */
  readonly http: Client<paths>;
}

export function createMeetingBotClient(options: MeetingBotClientOptions): MeetingBotClient {
  const base = URL.canParse(options.baseUrl) ? new URL(options.baseUrl) : undefined;
  if (base?.protocol !== 'http:' && base?.protocol !== 'https:') {
    throw new TypeError(
      `baseUrl must be an absolute URL such as http://localhost:3000, got '${options.baseUrl}'`,
    );
  }
  if (typeof options.apiKey !== 'string' || !options.apiKey.trim()) {
    throw new TypeError(
      'apiKey is required: an API key of your account (npm start prints the dev account’s)',
    );
  }
  const http = createClient<paths>({
    baseUrl: base.href.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch && { fetch: options.fetch }),
  });
  const path = (botId: string) => ({ path: { bot_id: botId } });
  const recording = (botId: string) =>
    unwrap(http.GET('/api/bot/{bot_id}/recording', { params: path(botId) }));
  const fetchFile = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  return {
    http,
    start: (body, { idempotencyKey } = {}) =>
      unwrap(
        http.POST('/api/bot/join', {
          body,
          params: { header: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey } },
        }),
      ),
    status: (botId) => unwrap(http.GET('/api/bot/{bot_id}/status', { params: path(botId) })),
    leave: (botId) => unwrap(http.POST('/v1/bots/leave/{bot_id}', { params: path(botId) })),
    transcript: (botId, query = {}) =>
      unwrap(http.GET('/api/bot/{bot_id}/transcript', { params: { ...path(botId), query } })),
    deliveries: (botId) => unwrap(http.GET('/api/bot/{bot_id}/deliveries', { params: path(botId) })),
    list: (query = {}) => unwrap(http.GET('/api/bots', { params: { query } })),
    recording,
    downloadRecording: async (botId) => {
      const { url } = await recording(botId);
      const file = await fetchFile(new Request(url));
      if (file.ok) return file;
      const text = await file.text().catch(() => '');
      throw unexpectedResponse(
        file,
        `the recording's download address answered HTTP ${file.status}: ${text}`,
      );
    },
    deleteData: (botId) => unwrap(http.DELETE('/api/bot/{bot_id}/data', { params: path(botId) })),
    openapi: () => unwrap(http.GET('/openapi.json')),
  };
}

/** The success body, or the error answer thrown: ours as its error body, anything else (a proxy's page) as it came. */
async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data as NonNullable<T>;
  if (isErrorBody(error)) throw new MeetingBotApiError(response.status, error, response.headers);
  const text = typeof error === 'string' ? error : JSON.stringify(error ?? null);
  throw unexpectedResponse(response, `HTTP ${response.status} without the service's error body: ${text}`);
}

/** An answer that is not ours (a proxy's page, a storage error) as a MeetingBotApiError quoting its start. */
function unexpectedResponse(response: Response, detail: string): MeetingBotApiError {
  return new MeetingBotApiError(
    response.status,
    {
      error: 'unexpected_response',
      detail: detail.slice(0, 300),
      message: 'The service, or something in front of it, gave an answer this client does not understand.',
    },
    response.headers,
  );
}

function isErrorBody(value: unknown): value is ErrorBody {
  const v = value as Partial<ErrorBody> | null;
  return typeof v === 'object' && v !== null && typeof v.error === 'string' && typeof v.detail === 'string';
}
