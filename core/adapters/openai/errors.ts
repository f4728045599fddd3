// What the OpenAI-compatible adapters make of the client's errors: which are worth a retry (429, 408, 409, 5xx,
// a broken connection), how long the server asked us to wait, and a short name for logs.
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { RetryVerdict } from '../../retry';

export function openAIRetryVerdict(err: unknown): RetryVerdict {
  if (err instanceof APIUserAbortError) return { retry: false };
  // Includes the request timeout: a server that is starting (Ollama loading a model) may answer next time.
  if (err instanceof APIConnectionError) return { retry: true };
  if (err instanceof APIError && isRetryableStatus(err.status)) {
    return { retry: true, afterMs: retryAfterMs(err.headers) };
  }
  return { retry: false };
}

/** The model server said it is busy (rather than failing). */
export function isThrottled(err: unknown): boolean {
  return err instanceof APIError && err.status === 429;
}

/** "HTTP 429", "connection error", "timeout": what failed, without the server's whole message. */
export function openAIErrorName(err: unknown): string {
  if (err instanceof APIError && typeof err.status === 'number') return `HTTP ${err.status}`;
  if (err instanceof APIConnectionError) return err.constructor.name.replace(/^API/, '');
  if (err instanceof Error) return err.name;
  return '';
}

function isRetryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
}

/** Retry-After (seconds or an HTTP date) or the non-standard retry-after-ms some servers send. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(after);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
