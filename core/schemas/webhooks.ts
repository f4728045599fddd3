// Zod schemas of the webhook payloads (the interface's two plus our additions: bot_id, qa_pairs, started_at,
// completed_at, bot_failed; docs/webhooks.md).
import { z } from 'zod';
import { exitReasons } from './api';
import { recordingSummarySchema, replacementSchema, warningSchema } from './bot-views';
import { insightsSchema, qaPairSchema } from './results';

const dateTime = z.iso.datetime({ offset: true });

export const sessionCompleteSchema = z
  .object({
    event: z.literal('session_complete'),
    bot_id: z.uuid(),
    transcript_id: z.string().nullable(),
    room_id: z.string().nullable(),
    room_name: z.string(),
    duration_seconds: z
      .number()
      .nonnegative()
      .describe('From started_at until the bot left the room (results processing not included).'),
    transcript_text: z.string(),
    summary: z.string(),
    exit_reason: z.enum(exitReasons),
    insights: insightsSchema.optional().describe('Omitted when insights are disabled or failed.'),
    insights_error: z.string().nullable().optional().describe('Present only when insight processing failed.'),
    qa_pairs: z.array(qaPairSchema),
    started_at: dateTime,
    completed_at: dateTime,
    replacements: z
      .array(replacementSchema)
      .describe('Each time the bot was lost and replaced, in order; empty when it never was (an addition).'),
    warnings: z
      .array(warningSchema)
      .describe(
        'What the bot had to do without (the status view’s warnings); empty when nothing (an addition).',
      ),
    recording: recordingSummarySchema
      .optional()
      .describe(
        "Present when the session was recorded: the file's length and size. No address: fetch one with " +
          'GET /api/bot/{bot_id}/recording (an addition).',
      ),
  })
  .describe('Sent after the call ends and the results are processed.');

export const joinErrorTypes = ['room_not_found', 'auth_error', 'unknown'] as const;
export type JoinErrorType = (typeof joinErrorTypes)[number];
/** Finer reasons than `error_type` (our addition to the interface); `unknown` stays the type, as the interface allows. */
export const joinErrorCodes = ['waiting_room_timeout', 'capacity_unavailable', 'capacity_exhausted'] as const;
export type JoinErrorCode = (typeof joinErrorCodes)[number];
/** Why a bot that had joined failed, when we know more than error_message says (our addition). */
export const botFailedErrorCodes = ['transcription_unavailable'] as const;
export type BotFailedErrorCode = (typeof botFailedErrorCodes)[number];

export const botJoinFailedSchema = z
  .object({
    event_type: z.literal('bot_join_failed'),
    bot_id: z.uuid(),
    workflow_thread_id: z.string().describe('The bot id.'),
    room_url: z.string(),
    error_type: z.enum(joinErrorTypes),
    error_message: z.string(),
    error_code: z
      .enum(joinErrorCodes)
      .optional()
      .describe(
        'Our addition to bot_join_failed, present when we know more than error_type says: `waiting_room_timeout` (with ' +
          'error_type `unknown`) when nobody let the bot in from the waiting room in time ' +
          '(bot_config.automatic_leave.waiting_room_timeout_seconds); `capacity_unavailable` (error_type `unknown`) when ' +
          'the platform would not launch the bot (throttled, at a launch limit or out of capacity) within ' +
          'RUN_TASK_RETRY_BUDGET_MS after the warm pool had no bot for it; nothing is charged.',
      ),
    timestamp: dateTime,
    duration_seconds: z.number().nonnegative(),
  })
  .describe('Sent when the bot fails to join the room.');

export const botFailedSchema = z
  .object({
    event_type: z.literal('bot_failed'),
    bot_id: z.uuid(),
    room_url: z.string(),
    error_message: z.string(),
    error_code: z
      .enum(botFailedErrorCodes)
      .optional()
      .describe(
        "Present when we know more than error_message says: `transcription_unavailable` when the room's " +
          'transcription could not start, or stopped with an error and could not be restarted in time; the bot left ' +
          'and nothing was charged.',
      ),
    transcript_text: z.string().describe('The transcript captured before the failure.'),
    timestamp: dateTime,
    duration_seconds: z.number().nonnegative(),
  })
  .describe('Sent when a bot that had joined dies before finishing (our addition).');

export type SessionCompleteEvent = z.infer<typeof sessionCompleteSchema>;
export type BotJoinFailedEvent = z.infer<typeof botJoinFailedSchema>;
export type BotFailedEvent = z.infer<typeof botFailedSchema>;
