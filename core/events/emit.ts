// Use case: something happened in a bot's life. It is recorded as a status change when it is one, and when the bot's
// webhook asked for it, it gets the bot's next event number and one delivery job (signed and retried like every
// webhook, with one webhook-id per event however often it is tried). The control function calls it for the
// bot-events queue, which hands one bot's events over one at a time, in order: numbering them here is their order.
import type { BotSession } from '../bots/session';
import { requeueDelivery, scheduleDelivery } from '../delivery/deliver';
import type { Stores } from '../deps';
import type { MessageQueue } from '../ports/queue';
import {
  carriesMeetingContent,
  eventRegistry,
  type LifecycleEventName,
  statusCodeOf,
  subscribes,
} from './registry';

export interface EmitDeps {
  stores: Pick<Stores, 'sessions' | 'deliveries'>;
  deliveryQueue: MessageQueue;
}

export interface BotEvent<N extends LifecycleEventName = LifecycleEventName> {
  name: N;
  at: string;
  data: Record<string, unknown>;
  /**
   * Tells one event from another of the same name (a replacement's number, a transcript batch's first line):
   * the delivery is keyed by it, so the same event processed twice is delivered once. Empty for once-per-bot events.
   */
  key?: string;
  /** The status change's detail (exit reason, error, replacement reason). */
  detail?: string;
}

/** The delivery's event key: the name, and what tells this one apart when a bot has several of them. */
export const deliveryEventKey = (e: Pick<BotEvent, 'name' | 'key'>) =>
  e.key ? `${e.name}#${e.key}` : e.name;

/** The event's name as its webhook body names it, from a delivery's event key (deliveryEventKey's inverse, less the key). */
export const eventNameOfDeliveryKey = (eventKey: string) => eventKey.split('#', 1)[0]!;

/** Whom a bot's events are for: its account, and its webhook (URL and the events it asked for) or none. */
export interface EventTarget {
  botId: string;
  accountId: string;
  webhook: { url: string; events?: readonly string[] } | null;
  /** The session's status changes, when the caller has read the session (they tell a repeat apart). */
  statusChanges?: BotSession['statusChanges'];
}

/** The event target of a session (for callers that have read it). */
export const targetOf = (
  s: Pick<BotSession, 'botId' | 'accountId' | 'webhookUrl' | 'webhookEvents' | 'statusChanges'>,
): EventTarget => ({
  botId: s.botId,
  accountId: s.accountId,
  webhook: s.webhookUrl ? { url: s.webhookUrl, ...(s.webhookEvents && { events: s.webhookEvents }) } : null,
  statusChanges: s.statusChanges ?? [],
});

/**
 * Records one event and queues its webhook delivery. `repeat`: the same event may have been handled before (a
 * redelivered queue message, a hand-over sent twice), so what was done is looked up and not done again; on a first
 * receipt nothing is read: the bot-events queue hands each message over once, in order (core/control/messages.ts).
 */
export async function emitEvent(
  deps: EmitDeps,
  target: EventTarget,
  event: BotEvent,
  now: Date,
  options: { repeat?: boolean } = {},
): Promise<void> {
  const code = statusCodeOf(event.name);
  const webhook = target.webhook && subscribes(target.webhook.events, event.name) ? target.webhook.url : null;
  const eventKey = deliveryEventKey(event);
  if (options.repeat) {
    if (webhook) {
      // Its delivery exists: make sure it is queued, number nothing again.
      const existing = await deps.stores.deliveries.get(target.botId, 'webhook', eventKey);
      if (existing) {
        if (existing.status === 'pending') await requeueDelivery(deps.deliveryQueue, existing);
        return;
      }
    } else if (code && !event.key) {
      // A once-per-bot step recorded already is not recorded again.
      const changes =
        target.statusChanges ?? (await deps.stores.sessions.get(target.botId))?.statusChanges ?? [];
      if (changes.some((c) => c.code === code)) return;
    }
  }
  // Keyed: the same message received again right after a failure gets its first number back, not a new one.
  const seq = await deps.stores.sessions.recordEvent(target.botId, {
    statusChange: code ? { code, at: event.at, detail: event.detail } : undefined,
    numbered: Boolean(webhook),
    key: eventKey,
    content: carriesMeetingContent(event.name),
  });
  // null: the meeting's data was deleted, and this event is its content.
  if (!webhook || seq === undefined || seq === null) return;
  const body = eventRegistry[event.name].schema.parse({
    event: event.name,
    bot_id: target.botId,
    timestamp: event.at,
    seq,
    data: event.data,
  });
  // A first receipt's delivery is stored by the delivery stage's claim (one write fewer); a repeat's here, at once, so
  // a further repeat finds it.
  await scheduleWebhook(
    deps,
    target,
    { event: eventKey, target: webhook, body, seq, meetingContent: carriesMeetingContent(event.name) },
    now,
    !options.repeat,
  );
}

type SpecEventName = 'session_complete' | 'bot_join_failed' | 'bot_failed';

/** Sends one of the spec's events (its body as the spec has it) when the session's webhook receives it. */
export async function sendSpecEvent(
  deps: EmitDeps,
  session: Pick<BotSession, 'botId' | 'accountId' | 'webhookUrl' | 'webhookEvents'>,
  name: SpecEventName,
  body: unknown,
  now: Date,
): Promise<void> {
  if (!session.webhookUrl || !subscribes(session.webhookEvents, name)) return;
  const seq = await specEventSeq(deps, session, name);
  await scheduleWebhook(deps, session, { event: name, target: session.webhookUrl, body, seq }, now);
}

/** One webhook delivery job of the bot's: its body signed and retried as every webhook is (delivery/deliver.ts). */
function scheduleWebhook(
  deps: EmitDeps,
  session: Pick<BotSession, 'botId' | 'accountId'>,
  w: { event: string; target: string; body: unknown; seq: number | undefined; meetingContent?: boolean },
  now: Date,
  inline = false,
): Promise<void> {
  return scheduleDelivery(
    deps.stores,
    deps.deliveryQueue,
    {
      botId: session.botId,
      accountId: session.accountId,
      channel: 'webhook',
      event: w.event,
      target: w.target,
      payload: JSON.stringify(w.body),
      seq: w.seq,
      ...(w.meetingContent && { meetingContent: true }),
    },
    now,
    { inline },
  );
}

/**
 * The place of one of the spec's events among a bot's numbered events, when its start request named
 * `webhook_events`: its delivery then waits for the bot.* events before it, so a receiver gets bot.left → bot.done →
 * session_complete in that order. The body stays the spec's (no `seq`). Without `webhook_events` nothing changes
 * from what the spec's events always did.
 */
async function specEventSeq(
  deps: EmitDeps,
  session: Pick<BotSession, 'botId' | 'webhookEvents'>,
  event: SpecEventName,
): Promise<number | undefined> {
  if (!session.webhookEvents) return undefined;
  const existing = await deps.stores.deliveries.get(session.botId, 'webhook', event);
  if (existing) return existing.seq;
  return (await deps.stores.sessions.recordEvent(session.botId, { numbered: true, key: event })) ?? undefined;
}
