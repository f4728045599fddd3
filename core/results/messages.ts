// Messages on the results queue: what a bot hands to the next stage when it ends, and failure events.
import { z } from 'zod';
import { exitReasons } from '../schemas/api';
import { botFailedSchema, botJoinFailedSchema } from '../schemas/webhooks';

export const resultsMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('session_ended'),
    bot_id: z.uuid(),
    exit_reason: z.enum(exitReasons),
    left_at: z.iso.datetime({ offset: true }),
  }),
  z.object({ kind: z.literal('bot_join_failed'), bot_id: z.uuid(), event: botJoinFailedSchema }),
  // A step of the bot's life or a transcript batch: recorded, and sent when the webhook asked for it.
  z.object({
    kind: z.literal('bot_event'),
    bot_id: z.uuid(),
    event: z.enum(['bot.joining', 'bot.in_waiting_room', 'bot.in_call', 'bot.left', 'transcript.data']),
    at: z.iso.datetime({ offset: true }),
    key: z.string().max(100).optional(),
    detail: z.string().max(1000).optional(),
    data: z.record(z.string(), z.unknown()),
  }),
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
  }),
  // Without the partial transcript: it can be larger than a queue message may be (SQS: 256 KiB). failSession
  // stored it on the session, and the results stage puts it back into the event from there.
  z.object({
    kind: z.literal('bot_failed'),
    bot_id: z.uuid(),
    event: botFailedSchema.omit({ transcript_text: true }),
  }),
]);

export type ResultsMessage = z.infer<typeof resultsMessageSchema>;

/** The hand-over of a bot that left the room (or is taken to have left: asked to, and gone). */
export function sessionEnded(
  botId: string,
  exitReason: (typeof exitReasons)[number],
  leftAt: string,
): ResultsMessage {
  return { kind: 'session_ended', bot_id: botId, exit_reason: exitReason, left_at: leftAt };
}

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
): ResultsMessage {
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
