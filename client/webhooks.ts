// Verifies a webhook the service sent (Standard Webhooks signature, via the standardwebhooks package) and returns its
// body typed by the event it is, from the OpenAPI document's `webhooks`.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './api-types.js';

export { WebhookVerificationError };

export type WebhookEventName = keyof webhooks;
/** The body of one event, e.g. WebhookEventOf<'session_complete'>. */
export type WebhookEventOf<N extends WebhookEventName> = NonNullable<
  webhooks[N]['post']['requestBody']
>['content']['application/json'];
/** The body of any event: tell them apart with webhookEventName(). */
export type WebhookEvent = { [N in WebhookEventName]: WebhookEventOf<N> }[WebhookEventName];

/** Headers as a fetch Request, Node's IncomingMessage or a plain object carries them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * The event a webhook carries, once its signature checks out against the account's webhook secret (whsec_…; npm start
 * prints the dev account's). `body` must be the raw body as received: a parsed and re-serialised one no longer
 * matches its signature. Throws WebhookVerificationError for a bad or missing signature, or a timestamp more than
 * five minutes off.
 */
export function verifyWebhook(
  secret: string,
  body: string | Uint8Array,
  headers: WebhookHeaders,
): WebhookEvent {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook needs the raw request body (a string or bytes), not a parsed object');
  }
  // Decoded as standardwebhooks decodes a Buffer (UTF-8), with no Node type in the way of a browser or edge runtime.
  const raw = typeof body === 'string' ? body : new TextDecoder().decode(body);
  return new Webhook(secret).verify(raw, plainHeaders(headers)) as WebhookEvent;
}

/** The event's name: the spec's bot_join_failed names itself in `event_type`, every other event in `event`. */
export function webhookEventName(event: WebhookEvent): WebhookEventName {
  return 'event_type' in event ? event.event_type : event.event;
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name.toLowerCase()] = first;
  }
  return out;
}
