// What the API answers about one bot: its status and results, its recording, its leave and its data deletion.
import { z } from 'zod';
import { botStatuses, dateTime, exitReasons, sessionErrorCodes } from './api';
import { insightsSchema, qaPairSchema } from './results';

export const leaveResponseSchema = z.strictObject({
  status: z.literal('leave_requested'),
  bot_id: z.uuid(),
  message: z.string(),
});

export const replacementSchema = z
  .strictObject({
    at: dateTime.describe('When the bot was lost (its machine stopped, crashed or lost its connection).'),
    reason: z.string().describe('What happened to the lost bot.'),
  })
  .describe('A bot that was lost mid-meeting and replaced by a new one with the same bot_id (an addition).');
export type ReplacementView = z.infer<typeof replacementSchema>;

/**
 * What went wrong around a session that still completed (an addition): the bot carried on in a degraded way, and the
 * customer is told. One warning per code per session.
 */
export const warningCodes = ['conversation_model_fallback', 'speech_fallback', 'recording_failed'] as const;
export type WarningCode = (typeof warningCodes)[number];

export const warningSchema = z
  .strictObject({
    code: z
      .enum(warningCodes)
      .describe(
        '`conversation_model_fallback`: the conversation model (Bedrock or the OpenAI-compatible server) failed on ' +
          'consecutive attempts and the bot finished the interview with the local engine (no model). ' +
          '`speech_fallback`: the voice (Amazon Polly) failed twice on one line and the bot went on in text only ' +
          '(chat messages in the room). `recording_failed`: the recording asked for could not be made or assembled ' +
          '(the message says why); the session completed without it.',
      ),
    message: z.string().describe('What happened, for people (the vendor error where there is one).'),
  })
  .describe(
    'Something outside the service failed during the session and the bot carried on without it (an addition).',
  );
export type SessionWarningView = z.infer<typeof warningSchema>;

export const recordingSummarySchema = z
  .strictObject({
    duration_seconds: z.number().describe('Length of the file, gaps included.'),
    size_bytes: z.number().int().describe('Size of the file.'),
  })
  .describe(
    "A session's recording: its length and size (no address: that comes from the recording endpoint).",
  );
export type RecordingSummary = z.infer<typeof recordingSummarySchema>;

export const recordingViewSchema = z
  .strictObject({
    url: z
      .url()
      .describe('Where to download the file (GET, no Authorization header); valid until expires_at.'),
    expires_at: dateTime.describe('When the URL stops working: at most an hour after this response.'),
    content_type: z.literal('audio/webm').describe('Opus in WebM, mono, about 32 kb/s.'),
    duration_seconds: z.number().describe('Length of the file, gaps included.'),
    size_bytes: z.number().int(),
    gaps: z
      .array(
        z.strictObject({
          at_seconds: z.number().describe('Where in the file the gap starts.'),
          seconds: z
            .number()
            .describe('How long nothing was recorded (a lost bot until its replacement joined).'),
        }),
      )
      .describe('Stretches with no audio, because the bot was lost and replaced; empty when none.'),
  })
  .describe("A session's recording: a time-limited download address and what the file is (an addition).");
export type RecordingView = z.infer<typeof recordingViewSchema>;

export const statusViewSchema = z
  .strictObject({
    status: z.enum(botStatuses),
    bot_id: z.uuid(),
    room_url: z.string(),
    started_at: dateTime.nullable(),
    completed_at: dateTime.nullable(),
    transcript: z.string().nullable().describe('Full transcript; while running, the transcript so far.'),
    qa_pairs: z.array(qaPairSchema).nullable(),
    insights: insightsSchema.nullable(),
    error: z.string().nullable(),
    join_at: dateTime
      .nullable()
      .describe(
        'When a scheduled bot joins (the start request’s join_at, in UTC); null for a bot started at once.',
      ),
    error_code: z
      .enum(sessionErrorCodes)
      .nullable()
      .describe(
        'Of a failed session, what failed when we know more than `error` says (an addition to the interface): ' +
          '`waiting_room_timeout` (nobody let the bot in from the waiting room in time), `capacity_unavailable` ' +
          '(the platform would not launch the bot within RUN_TASK_RETRY_BUDGET_MS: throttled, at a quota, or no ' +
          'capacity; nothing is charged) or ' +
          "`transcription_unavailable` (the room's transcription could not start, or stopped with an error and could " +
          'not be restarted within TRANSCRIPTION_RECOVERY_MS; nothing is charged). Null otherwise.',
      ),
    exit_reason: z.enum(exitReasons).nullable().describe('Why the bot left (an addition to the interface).'),
    replacements: z
      .array(replacementSchema)
      .describe(
        'Each time the bot was lost and replaced, in order; empty when it never was (an addition to the interface).',
      ),
    status_changes: z
      .array(
        z.strictObject({
          code: z
            .string()
            .describe(
              'scheduled, joining, in_waiting_room, in_call, left, done, failed or replaced (the bot.* events).',
            ),
          at: dateTime,
          detail: z
            .string()
            .nullable()
            .describe('The exit reason, error or replacement reason where there is one.'),
        }),
      )
      .describe(
        'The steps of the bot’s life, in order; `status` keeps the spec’s three values (an addition).',
      ),
    recording: recordingSummarySchema
      .nullable()
      .describe(
        'The recording, once assembled after the session (fetch it with GET /api/bot/{bot_id}/recording); null ' +
          'without one, and while it is being made (an addition).',
      ),
    warnings: z
      .array(warningSchema)
      .describe(
        'What the bot had to do without, in the order it happened; empty when nothing (an addition).',
      ),
    data_deleted_at: dateTime
      .nullable()
      .describe(
        "When the meeting's content was deleted (DELETE /api/bot/{bot_id}/data, or the account's retention): " +
          'transcript, qa_pairs and insights are then null for good. Null while the content is kept (an addition).',
      ),
  })
  .describe('Status and results of a bot session.');

export const dataDeletionSchema = z
  .strictObject({
    bot_id: z.uuid(),
    status: z
      .enum(['data_deleted', 'deleting'])
      .describe(
        'data_deleted: every copy is gone (answered with 200). deleting: the tombstone is set and no content is served ' +
          'any more, but the purge ran out of time in this request; the service finishes it within minutes, and a repeat ' +
          'continues it (answered with 202).',
      ),
    data_deleted_at: dateTime.describe(
      'When the content was first deleted (a repeat returns the same time).',
    ),
  })
  .describe("The meeting's content is deleted (or being deleted); the session's tombstone remains.");
export type DataDeletion = z.infer<typeof dataDeletionSchema>;
export type StatusView = z.infer<typeof statusViewSchema>;
