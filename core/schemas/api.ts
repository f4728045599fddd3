// The HTTP API's shared words (docs/api.md; our decisions in ARCHITECTURE.md): limits, providers, statuses, exit reasons,
// error codes, the bot id and the error body. Each request and view is in its own module beside this one; all are what
// handlers validate with and OpenAPI is built from.
import { z } from 'zod';

export const limits = {
  promptChars: 8000,
  nameChars: 100,
  stopPhraseChars: 200,
  urlChars: 2048,
  tokenChars: 4096,
  emailChars: 254,
  maxDurationSeconds: 14_400,
  recordingNoticeChars: 300,
} as const;

export const providers = ['daily', 'local'] as const;

export type Provider = (typeof providers)[number];

export const exitReasons = [
  'participant_left',
  'stop_phrase',
  'force_leave',
  'idle_timeout',
  'max_duration',
] as const;
export type ExitReason = (typeof exitReasons)[number];

export const botStatuses = ['running', 'completed', 'failed'] as const;

/**
 * What made a failed session fail, more precisely than its `error` text (status view `error_code`, our addition):
 * `waiting_room_timeout` (nobody let the bot in), `capacity_unavailable` (ECS would not launch the bot within the
 * retry budget: throttled, or no capacity), `capacity_exhausted` (the account's quota of concurrent bot tasks was
 * reached), `transcription_unavailable` (Daily's transcription could not
 * start, or stopped with an error and could not be restarted, so the bot heard nobody).
 */
export const sessionErrorCodes = [
  'waiting_room_timeout',
  'capacity_unavailable',
  'capacity_exhausted',
  'transcription_unavailable',
] as const;
export type SessionErrorCode = (typeof sessionErrorCodes)[number];
export type BotStatus = (typeof botStatuses)[number];

export const prompt = (what: string) => z.string().max(limits.promptChars).describe(what);

export const botIdSchema = z.uuid().describe('The bot id returned by the start operation.');

export const dateTime = z.iso.datetime({ offset: true });

export const errorBodySchema = z
  .strictObject({
    error: z
      .string()
      .describe('The stable error code, e.g. validation_error or not_found (docs/api.md, Errors).'),
    detail: z.string(),
    message: z.string(),
    balance: z.number().optional().describe('Current balance, with insufficient_credits.'),
  })
  .describe('Error body.');
