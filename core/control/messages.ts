// Messages of the control plane, on its two queues. The control queue (standard, so a message can be delayed) carries
// decisions about a bot's task: start a cold task, replace a lost one. The bot-events queue (FIFO, grouped by bot_id)
// carries what happened in a bot's life, in the order it happened: the queue hands one bot's events to the handler
// one at a time, so the handler numbers them (`seq`) and queues their deliveries in that order.
import { z } from 'zod';
import { limits } from '../schemas/api';
import { botFailedSchema, botJoinFailedSchema } from '../schemas/webhooks';

/** Where a bot's events go: its account and webhook as the start request set them (null: no webhook). */
const webhookSchema = z
  .object({ url: z.string().max(limits.urlChars), events: z.array(z.string()).max(50).optional() })
  .nullable();

export const controlMessageSchema = z.discriminatedUnion('kind', [
  // A bot that was in the room is lost (crash, platform stop, lost connection): start its replacement.
  z.object({
    kind: z.literal('replace_bot'),
    bot_id: z.uuid(),
    /** The lost task's attempt: a request about a task already replaced is dropped. */
    attempt: z.number().int().min(0),
    reason: z.string().max(1000),
    lost_at: z.iso.datetime({ offset: true }),
    /** The lost bot is still in the room (a platform SIGTERM's warning) and leaves once its replacement is in. */
    alive: z.boolean(),
  }),
  // Nobody from the warm pool took the session in time, or the pooled bot that took it was lost before it got into
  // the room: start a fresh task for it, unless a pooled bot has it (core/bots/pool-fallback.ts).
  z.object({
    kind: z.literal('start_cold'),
    bot_id: z.uuid(),
    /** The pooled bot that was lost after claiming; unset: the session was never claimed. */
    claimant: z.string().max(200).optional(),
    reason: z.string().max(1000),
    /**
     * The session is already claimed for a cold start (the join handed its start over while ECS throttled, or this is
     * a later try): start it without claiming.
     */
    claimed: z.boolean().optional(),
    /** Launch tries made so far for this session (each ran out of its retry budget). */
    tries: z.number().int().min(0).max(1000).optional(),
  }),
  // A scheduled session's moment to get a bot: offer it to the warm pool or start its task, unless it was
  // cancelled or handed out already (core/bots/scheduled-joins.ts). Sent delayed, by the scheduler or the join.
  z.object({ kind: z.literal('start_scheduled'), bot_id: z.uuid() }),
]);

export const botEventMessageSchema = z.discriminatedUnion('kind', [
  // A step of the bot's life or a transcript batch: recorded, and sent when the webhook asked for it. The sender
  // writes the account and webhook it knows from the session, so the handler does not read the session for them.
  z.object({
    kind: z.literal('bot_event'),
    bot_id: z.uuid(),
    account_id: z.string().min(1).max(200),
    webhook: webhookSchema,
    event: z.enum([
      'bot.scheduled',
      'bot.joining',
      'bot.in_waiting_room',
      'bot.in_call',
      'bot.left',
      'bot.replaced',
      'transcript.data',
      'bot.data_deleted',
    ]),
    at: z.iso.datetime({ offset: true }),
    key: z.string().max(100).optional(),
    detail: z.string().max(1000).optional(),
    data: z.record(z.string(), z.unknown()),
  }),
  // The results are final (the results stage completed the session): bot.done, then session_complete.
  z.object({ kind: z.literal('session_completed'), bot_id: z.uuid() }),
  // A failed session's recording was assembled after it failed: recording.ready.
  z.object({ kind: z.literal('recording_ready'), bot_id: z.uuid() }),
  z.object({ kind: z.literal('bot_join_failed'), bot_id: z.uuid(), event: botJoinFailedSchema }),
  // Without the partial transcript: it can be larger than a queue message may be (SQS: 256 KiB). failSession
  // stored it on the session, and the handler puts it back into the event from there.
  z.object({
    kind: z.literal('bot_failed'),
    bot_id: z.uuid(),
    event: botFailedSchema.omit({ transcript_text: true }),
  }),
]);

export type ControlMessage = z.infer<typeof controlMessageSchema>;
export type BotEventMessage = z.infer<typeof botEventMessageSchema>;
export type LifecycleEventMessage = Extract<BotEventMessage, { kind: 'bot_event' }>;

/** Both queues' messages: the control function reads either. */
export const controlPlaneMessageSchema = z.union([controlMessageSchema, botEventMessageSchema]);
export type ControlPlaneMessage = ControlMessage | BotEventMessage;

/** bot_join_failed: the bot never got into the room (`workflow_thread_id` is the bot id). */
export function joinFailed(
  session: { botId: string; roomUrl: string },
  failure: {
    type: z.infer<typeof botJoinFailedSchema>['error_type'];
    message: string;
    code?: z.infer<typeof botJoinFailedSchema>['error_code'];
    durationSeconds: number;
  },
  now = new Date(),
): BotEventMessage {
  return {
    kind: 'bot_join_failed',
    bot_id: session.botId,
    event: {
      event_type: 'bot_join_failed',
      bot_id: session.botId,
      workflow_thread_id: session.botId,
      room_url: session.roomUrl,
      error_type: failure.type,
      error_message: failure.message,
      ...(failure.code && { error_code: failure.code }),
      timestamp: now.toISOString(),
      duration_seconds: Math.round(failure.durationSeconds * 1000) / 1000,
    },
  };
}

/** A step of the bot's life, addressed from what its session says (account, webhook URL and events). */
export function lifecycleEvent(
  session: { botId: string; accountId: string; webhookUrl?: string; webhookEvents?: string[] },
  e: Pick<LifecycleEventMessage, 'event' | 'data' | 'key' | 'detail'> & { at?: string },
): LifecycleEventMessage {
  return {
    kind: 'bot_event',
    bot_id: session.botId,
    account_id: session.accountId,
    webhook: session.webhookUrl
      ? { url: session.webhookUrl, ...(session.webhookEvents && { events: session.webhookEvents }) }
      : null,
    event: e.event,
    at: e.at ?? new Date().toISOString(),
    data: e.data,
    ...(e.key !== undefined && { key: e.key }),
    ...(e.detail !== undefined && { detail: e.detail }),
  };
}
