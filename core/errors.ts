// The one domain error type; its `error` code maps to the HTTP status of ARCHITECTURE.md in one table.

export const errorStatus = {
  validation_error: 400,
  authentication_error: 401,
  insufficient_credits: 402,
  not_found: 404,
  method_not_allowed: 405,
  bot_not_running: 409,
  bot_running: 409,
  idempotency_in_progress: 409,
  recording_not_ready: 409,
  data_deleted: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_conflict: 422,
  rate_limited: 429,
  server_error: 500,
  capacity_unavailable: 503,
  capacity_exhausted: 503,
  dependency_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

const defaultMessages: Record<ErrorCode, string> = {
  validation_error: 'The request is not valid. Check the detail and try again.',
  authentication_error: 'Authentication failed. Send a valid API key as "Authorization: Bearer <key>".',
  insufficient_credits: 'Your account does not have enough credits to start a bot.',
  not_found: 'The bot session was not found.',
  method_not_allowed: 'This path does not take that method: see the Allow header.',
  bot_not_running: 'The bot has already finished.',
  bot_running: 'The bot is still running: stop it first (the leave endpoint), then delete its data.',
  idempotency_in_progress: 'A request with this Idempotency-Key is still being processed. Retry shortly.',
  recording_not_ready: 'The recording is still being made: it is ready shortly after the session completes.',
  data_deleted:
    "This meeting's content was deleted (DELETE /api/bot/{bot_id}/data, or the account's retention).",
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'Send the request body as JSON, with the header "Content-Type: application/json".',
  idempotency_conflict: 'This Idempotency-Key was already used with a different request body.',
  rate_limited: 'Too many requests. Slow down and retry later.',
  server_error: 'Something went wrong on our side. Please retry.',
  capacity_unavailable:
    'No bot could be launched right now; nothing was started or charged. Retry after the Retry-After seconds.',
  capacity_exhausted:
    'This service runs as many bots as it can right now; nothing was started or charged. Retry after the Retry-After seconds.',
  dependency_unavailable:
    'The service is overloaded for a moment; nothing was charged. Send the same request again after the Retry-After seconds.',
};

export interface ApiErrorExtras {
  balance?: number;
  /** Seconds, sent as the Retry-After header. */
  retryAfter?: number;
  /** The methods the path takes, sent as the Allow header (405). */
  allow?: string[];
  message?: string;
  /** The failure behind it (Error.cause): the HTTP layer reads it to tell an overloaded dependency from a fault. */
  cause?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  readonly userMessage: string;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extras: ApiErrorExtras = {},
  ) {
    super(`${code}: ${detail}`, extras.cause === undefined ? undefined : { cause: extras.cause });
    this.name = 'ApiError';
    this.status = errorStatus[code];
    this.userMessage = extras.message ?? defaultMessages[code];
  }

  /** The interface's error body: error, detail, message (+ balance). */
  toBody(): ErrorBody {
    const body: ErrorBody = { error: this.code, detail: this.detail, message: this.userMessage };
    if (this.extras.balance !== undefined) body.balance = this.extras.balance;
    return body;
  }
}

export interface ErrorBody {
  error: ErrorCode;
  detail: string;
  message: string;
  balance?: number;
}

export const notFound = (botId: string) => new ApiError('not_found', `bot session ${botId} was not found`);
