// Use case: a bot's status and results, visible only to the account that started it.
import type { Caller } from '../accounts/authenticate';
import type { ServiceDeps } from '../deps';
import { ApiError, notFound } from '../errors';
import { eventNameOfDeliveryKey } from '../events/emit';
import { JsonText } from '../json-text';
import type { Delivery } from '../ports/deliveries-store';
import { botIdSchema } from '../schemas/api';
import type { StatusView } from '../schemas/bot-views';
import type { DeliveriesView } from '../schemas/list-views';
import { type BotSession, toStatusView } from './session';

function parseBotId(rawBotId: string | undefined): string {
  const parsed = botIdSchema.safeParse(rawBotId);
  if (!parsed.success) throw new ApiError('validation_error', 'bot_id: must be a UUID');
  return parsed.data.toLowerCase();
}

/** The caller's session; another account's bot is reported exactly like a missing one (404). */
export async function findOwnSession(
  deps: ServiceDeps,
  caller: Caller,
  rawBotId: string | undefined,
): Promise<BotSession> {
  const botId = parseBotId(rawBotId);
  const session = await deps.sessions.get(botId);
  if (!session || session.accountId !== caller.accountId) throw notFound(botId);
  return session;
}

/**
 * Status reads go through the in-process caches (final sessions and transcripts kept, running ones for a moment): the
 * session item, then the transcript from its segments, only the ones saved since the last read.
 */
export async function getBotStatus(
  deps: ServiceDeps,
  caller: Caller,
  rawBotId: string | undefined,
): Promise<JsonText<StatusView>> {
  const botId = parseBotId(rawBotId);
  const nowMs = deps.now().getTime();
  const session = await deps.statusCache.load(botId, nowMs, () => deps.sessions.get(botId));
  if (!session || session.accountId !== caller.accountId) throw notFound(botId);
  const transcript = await deps.transcriptCache.read(session, nowMs);
  // The view is rendered once per cached session and transcript, not once per read: a poller's repeated reads cost
  // the lookups and the ownership check.
  return deps.statusCache.renderedJson(
    session,
    transcript.lines,
    () =>
      new JsonText(
        // While it runs, a bot that heard nothing yet has no transcript; an ended one has one, empty when nothing was said.
        toStatusView(
          session,
          session.status === 'running' && transcript.lines.length === 0 ? null : transcript.text(),
        ),
      ),
  ) as JsonText<StatusView>;
}

/**
 * A bot's deliveries in the order its receiver gets them: by the bot's event number (`seq`, as the webhook body
 * carries it), then by first attempt (or creation, for one not tried yet); one without a number (an e-mail, or a
 * webhook of a bot that named no `webhook_events`) after the numbered ones. The store keeps them by channel and event
 * key, an order that tells a customer nothing.
 */
export async function getBotDeliveries(
  deps: ServiceDeps,
  caller: Caller,
  rawBotId: string | undefined,
): Promise<DeliveriesView> {
  const session = await findOwnSession(deps, caller, rawBotId);
  const list = await deps.deliveries.list(session.botId);
  const firstTried = (d: Delivery) => d.attempts[0]?.at ?? d.createdAt;
  const ordered = list.toSorted(
    (a, b) =>
      (a.seq ?? Number.POSITIVE_INFINITY) - (b.seq ?? Number.POSITIVE_INFINITY) ||
      Date.parse(firstTried(a)) - Date.parse(firstTried(b)) ||
      a.channel.localeCompare(b.channel),
  );
  return {
    bot_id: session.botId,
    deliveries: ordered.map((d) => ({
      channel: d.channel,
      event: eventNameOfDeliveryKey(d.event),
      seq: d.seq ?? null,
      status: d.status,
      target: d.target,
      webhook_id: d.channel === 'webhook' ? d.messageId : null,
      attempts: d.attempts,
      created_at: d.createdAt,
      delivered_at: d.deliveredAt ?? null,
      next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt ?? null) : null,
    })),
  };
}
