// The one place an OpenAI-compatible client is built (Ollama, vLLM, LM Studio, OpenAI): base URL and optional key.
// Retries are not the SDK's but ours (core/retry.ts), so every model adapter backs off and logs alike; time is
// bounded by the engines (a conversation turn's budget, the insights deadline), which abort their requests.
import OpenAI from 'openai';

export interface OpenAIClientSettings {
  /** The server's API root, e.g. http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1. */
  baseUrl: string;
  /** Bearer key; local servers usually need none, and then no Authorization header is sent. */
  apiKey?: string;
}

export function openAIClient(settings: OpenAIClientSettings): OpenAI {
  return new OpenAI({
    baseURL: settings.baseUrl,
    // The SDK insists on a key; without one the header is removed below instead of sending a made-up key.
    apiKey: settings.apiKey || 'none',
    defaultHeaders: settings.apiKey ? undefined : { Authorization: null },
    maxRetries: 0,
  });
}

/** The base URL as it may be shown (banner, logs): without any user:password part. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
