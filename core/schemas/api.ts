// Zod schemas of the HTTP API (docs/api.md; our decisions in ARCHITECTURE.md): what handlers validate with and
// OpenAPI is built from.
import { z } from 'zod';
import { isLocalHostName, isPublicAddress } from '../net/address-policy';
import { transcriptionLanguages } from '../transcription-languages';
import { defaultVoice, voiceIds } from '../voices';

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

/** What the bot says and posts when it starts recording, unless bot_config says otherwise. */
export const defaultRecordingNotice = 'This meeting is being recorded.';

export const recordingRequestSchema = z
  .strictObject({
    audio: z
      .boolean()
      .default(false)
      .describe(
        "true: record the meeting's mixed audio (every participant and the bot) as one Opus/WebM file, mono, about " +
          '32 kb/s, fetched with GET /api/bot/{bot_id}/recording after the session (docs/recording.md).',
      ),
  })
  .describe('What to record (an addition). Absent: nothing is recorded.');
export type RecordingRequest = z.infer<typeof recordingRequestSchema>;
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

const prompt = (what: string) => z.string().max(limits.promptChars).describe(what);

/**
 * Bounds of each bot_config.automatic_leave member, in seconds. Their defaults are the deployment's
 * configuration (core/config.ts), filled in by the join (core/bots/automatic-leave.ts), not by this schema.
 */
export const automaticLeaveBounds = {
  everyone_left_timeout_seconds: { min: 0, max: 3600 },
  silence_timeout_seconds: { min: 10, max: 86_400 },
  waiting_room_timeout_seconds: { min: 10, max: 3600 },
  max_duration_seconds: { min: 60, max: limits.maxDurationSeconds },
} as const;

/** An optional whole number of seconds within the bounds of `key`, one message for every way it can be wrong. */
function seconds(key: keyof typeof automaticLeaveBounds, meaning: string) {
  const { min, max } = automaticLeaveBounds[key];
  const range = `must be a whole number of seconds from ${min} to ${max}`;
  return z.number({ error: range }).int(range).min(min, range).max(max, range).optional().describe(meaning);
}

export const automaticLeaveSchema = z
  .strictObject({
    everyone_left_timeout_seconds: seconds(
      'everyone_left_timeout_seconds',
      'Once the last participant has left, the bot waits this long before it leaves (participant_left); anyone who joins meanwhile, such as a participant whose connection dropped, keeps the session going. Default 2.',
    ),
    silence_timeout_seconds: seconds(
      'silence_timeout_seconds',
      'The bot leaves (idle_timeout) after this long without audio from anyone but itself. Default 300.',
    ),
    waiting_room_timeout_seconds: seconds(
      'waiting_room_timeout_seconds',
      'How long the bot waits in a waiting room to be let in before it gives up (bot_join_failed). Default 600.',
    ),
    max_duration_seconds: seconds(
      'max_duration_seconds',
      'Safety cap: the bot leaves with exit_reason max_duration this long after it got in. Default 14400.',
    ),
  })
  .describe(
    "When the bot leaves on its own. Members left out take the deployment's defaults (docs/configuration.md).",
  );

export const botConfigSchema = z
  .strictObject({
    bot_prompt: prompt('Instruction prompt for the bot (its questions, its role).').optional(),
    name: z
      .string()
      .trim()
      .min(1)
      .max(limits.nameChars)
      .default('Meeting Bot')
      .describe('Display name of the bot.'),
    video_mode: z
      .enum(['static', 'off'])
      .default('static')
      .describe('static: one still tile (background_image_url or a generated name card); off: no video.'),
    background_image_url: z
      .url({ protocol: /^https?$/ })
      .max(limits.urlChars)
      .optional()
      .describe('https URL of the image shown as the bot tile (PNG, JPEG, WebP or GIF, at most 5 MB).'),
    bot_greeting: prompt('How the bot greets participants; a sentence is spoken as written.').optional(),
    stop_phrase: z
      .string()
      .trim()
      .min(1)
      .max(limits.stopPhraseChars)
      .optional()
      .describe('Phrase that makes the bot leave when a participant says it.'),
    voice: z
      .enum(voiceIds)
      .default(defaultVoice)
      .describe('Amazon Polly voice id (see docs/api.md, "Voices").'),
    language: z
      .enum(transcriptionLanguages, {
        error: `must be one of the supported transcription languages: ${transcriptionLanguages.join(', ')}`,
      })
      .optional()
      .describe(
        'Language the room is transcribed in (a Deepgram code, docs/api.md, "Transcription languages"). Default: the ' +
          "voice's language (en-US for Joanna, fr for Lea), or en.",
      ),
    recording_notice: z
      .boolean()
      .optional()
      .describe(
        'With recording.audio: the bot says recording_notice_text when it starts recording and posts it as a chat ' +
          'message (it is in the transcript). Default true; false: no notice (the customer tells the participants).',
      ),
    recording_notice_text: z
      .string()
      .trim()
      .min(1)
      .max(limits.recordingNoticeChars)
      .optional()
      .describe(`The recording notice, said and posted as written. Default: "${defaultRecordingNotice}"`),
    automatic_leave: automaticLeaveSchema.optional(),
    max_duration_seconds: seconds(
      'max_duration_seconds',
      'The older name of automatic_leave.max_duration_seconds, still accepted; giving both with different values is refused.',
    ),
  })
  .superRefine((c, ctx) => {
    const alias = c.max_duration_seconds;
    const own = c.automatic_leave?.max_duration_seconds;
    if (alias !== undefined && own !== undefined && alias !== own) {
      ctx.addIssue({
        code: 'custom',
        path: ['max_duration_seconds'],
        message: `is ${alias} but bot_config.automatic_leave.max_duration_seconds is ${own}; give one of them (max_duration_seconds is its older name)`,
      });
    }
  })
  .describe('How the bot looks, sounds and behaves. Every member has a default.');

/** bot_config as a start request gives it: automatic_leave partial, the alias max_duration_seconds maybe set. */
export type BotConfigRequest = z.infer<typeof botConfigSchema>;

/** Every leave setting resolved, in seconds (a deployment default from milliseconds may be fractional). */
export type AutomaticLeave = { [K in keyof typeof automaticLeaveBounds]: number };

/**
 * bot_config as a session stores it and the bot reads it: the request's, with automatic_leave complete (the
 * deployment's defaults filled in and the alias folded into it, core/bots/automatic-leave.ts).
 */
export type BotConfig = Omit<BotConfigRequest, 'automatic_leave' | 'max_duration_seconds'> & {
  automatic_leave: AutomaticLeave;
};

/** Room URL shapes: Daily rooms are https://<domain>/<room>; local rooms are http(s)://<host>/rooms/<room>. */
const dailyRoomPath = /^\/([A-Za-z0-9_-]{1,128})\/?$/;
const localRoomPath = /^\/rooms\/([A-Za-z0-9_-]{1,128})\/?$/;

/** The room name in a room URL of the given provider, or null when the URL is not a room of that provider. */
export function roomNameOf(provider: Provider, roomUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(roomUrl);
  } catch {
    return null;
  }
  if (url.username || url.password || url.hash) return null;
  if (provider === 'daily') {
    if (url.protocol !== 'https:') return null;
    return dailyRoomPath.exec(url.pathname)?.[1] ?? null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return localRoomPath.exec(url.pathname)?.[1] ?? null;
}

/** Whether a Daily room URL's host is one of `domains` or a subdomain of one (DAILY_ROOM_DOMAINS). */
export function dailyHostAllowed(roomUrl: string, domains: readonly string[]): boolean {
  let host: string;
  try {
    host = new URL(roomUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

export interface RequestPolicy {
  /** http:// and private or loopback webhook targets are accepted (local mode). */
  allowInsecureWebhooks: boolean;
}

/** Static check of a webhook URL; the delivery side checks the resolved address again at connect time. */
export function webhookUrlProblem(raw: string, policy: RequestPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (policy.allowInsecureWebhooks) {
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must be an http(s) URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isLocalHostName(host)) return 'must point to a public host';
  if (/^[\d.]+$/.test(host) || host.includes(':')) {
    if (!isPublicAddress(host)) return 'must point to a public address';
  }
  return null;
}

/**
 * The start request schema for a webhook policy. `webhookEvents` is the `webhook_events` field, from the event
 * registry (core/events/registry.ts, which builds on these schemas): core/schemas/start-request.ts puts them
 * together, once per policy.
 */
export function buildStartRequestSchema<E extends z.ZodType>(policy: RequestPolicy, webhookEvents: E) {
  return z
    .strictObject({
      provider: z.enum(providers).default('daily').describe('Room provider: daily (default) or local.'),
      room_url: z
        .string()
        .max(limits.urlChars)
        .describe(
          "Full URL of the existing meeting room. daily: https://<team>.daily.co/<room> (a host of the deployment's Daily domains); local: http(s)://<host>/rooms/<room>.",
        ),
      bot_config: botConfigSchema.default(() => botConfigSchema.parse({})),
      process_insights: z
        .boolean()
        .default(true)
        .describe('Extract Q&A pairs and insights after the session.'),
      email: z.email().max(limits.emailChars).optional().describe('Where to e-mail the results.'),
      webhook_callback_url: z
        .string()
        .max(limits.urlChars)
        .optional()
        .describe(
          'https URL that receives the results and failures (session_complete, bot_join_failed, bot_failed) and ' +
            'the events named by webhook_events.',
        ),
      webhook_events: webhookEvents.optional(),
      recording: recordingRequestSchema.optional(),
      meeting_token: z
        .string()
        .min(1)
        .max(limits.tokenChars)
        .optional()
        .describe('Meeting token for private rooms.'),
      analysis_prompt: prompt('Custom prompt steering the evaluation.').optional(),
      summary_format_prompt: prompt('Custom prompt for the summary format.').optional(),
      join_at: z.iso
        .datetime({
          offset: true,
          error:
            'must be an RFC 3339 date-time with its time zone offset (Z or ±hh:mm), e.g. 2026-05-04T10:00:00Z or ' +
            '2026-05-04T12:00:00+02:00; a time without an offset names no moment',
        })
        .optional()
        .describe(
          'Schedule the bot instead of starting it now (an addition): when it joins the room, RFC 3339 with an offset ' +
            '(e.g. 2026-05-04T10:00:00Z or 2026-05-04T12:00:00+02:00), at least JOIN_AT_MIN_LEAD_MS (30 s) and at most ' +
            'JOIN_AT_MAX_LEAD_MS (30 days) ahead. The credit hold is taken now; nothing is charged before the bot is in ' +
            'the room; a leave before join_at cancels it.',
        ),
    })
    .superRefine((req, ctx) => {
      if (roomNameOf(req.provider, req.room_url) === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['room_url'],
          message:
            req.provider === 'daily'
              ? 'must be a Daily room URL such as https://your-domain.daily.co/room-name'
              : 'must be a local room URL such as http://localhost:3000/rooms/room-name',
        });
      }
      // The bot fetches the image only over https outside local mode (bot-task/fetch-image.ts): say so here rather
      // than silently showing the name card instead.
      const image = req.bot_config.background_image_url;
      if (image !== undefined && !policy.allowInsecureWebhooks && !image.startsWith('https:')) {
        ctx.addIssue({
          code: 'custom',
          path: ['bot_config', 'background_image_url'],
          message: 'must be an https URL',
        });
      }
      // Live events go to the webhook URL: asked for without one, they would go nowhere, silently.
      if (req.webhook_events !== undefined && req.webhook_callback_url === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['webhook_events'],
          message: 'needs webhook_callback_url: the events are sent there',
        });
      }
      if (req.webhook_callback_url !== undefined) {
        const problem = webhookUrlProblem(req.webhook_callback_url, policy);
        if (problem) ctx.addIssue({ code: 'custom', path: ['webhook_callback_url'], message: problem });
      }
    })
    .describe('Start a bot in an existing room.');
}

export const botIdSchema = z.uuid().describe('The bot id returned by the start operation.');

export const startResponseSchema = z
  .strictObject({
    status: z.literal('started'),
    bot_id: z
      .uuid()
      .describe(
        "A UUID of version 7: the join's time in its first 48 bits, then random bits. Ids of bots started before this " +
          'was so are of version 4. Treat it as opaque.',
      ),
    room_url: z.string(),
  })
  .describe('The bot was created and is starting.');

export const leaveResponseSchema = z.strictObject({
  status: z.literal('leave_requested'),
  bot_id: z.uuid(),
  message: z.string(),
});

export const qaPairSchema = z
  .object({
    question: z.string(),
    answer: z.string(),
    asked_by: z.string().nullable().optional(),
    answered_by: z.string().nullable().optional(),
    asked_at: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .describe('A question and the answer that followed it.');
export type QaPair = z.infer<typeof qaPairSchema>;

/** How far a question was answered (the rubric: core/insights/rubric.ts). */
export const answeredLevels = ['yes', 'partly', 'no'] as const;
/** Which rubric `overall_score` follows: an interview's questions, a working meeting's outcomes, or nothing said. */
export const scoreBases = ['interview', 'meeting', 'none'] as const;

export const questionAssessmentSchema = z
  .object({
    question: z.string(),
    asked_by: z.string().nullable().optional(),
    answered_by: z.string().nullable().optional(),
    answered: z.enum(answeredLevels).describe('yes, partly, or no (no answer, or the question was dodged).'),
    quality: z.number().int().min(1).max(5).describe('1 (no substance) to 5 (specific, concrete, complete).'),
    evidence: z
      .string()
      .describe('A short quote from the answer that the assessment rests on; empty when nothing was said.'),
  })
  .describe('How one question was answered.');
export type QuestionAssessment = z.infer<typeof questionAssessmentSchema>;

export const insightsSchema = z
  .object({
    summary: z.string(),
    overall_score: z.number().min(0).max(100),
    strengths: z.array(z.string()),
    weaknesses: z.array(z.string()),
    topics: z.array(z.string()).optional(),
    action_items: z.array(z.string()).optional(),
    score_basis: z
      .enum(scoreBases)
      .optional()
      .describe('The rubric overall_score follows (an addition to the interface).'),
    question_assessments: z
      .array(questionAssessmentSchema)
      .optional()
      .describe('Each question put to the participants, in order (an addition).'),
    unanswered: z
      .array(z.string())
      .optional()
      .describe('Questions that got no answer or were dodged (an addition).'),
    engine_notes: z
      .array(z.string())
      .optional()
      .describe(
        'What the engine could not do or follow, in plain words: parts of the analysis or summary-format prompt, ' +
          'and for the rules engine what rules cannot judge (an addition).',
      ),
    engine: z
      .string()
      .optional()
      .describe(
        'Which engine produced these insights (an addition): `local-rules` (deterministic rules, no model), ' +
          '`bedrock:<model id>` (Amazon Bedrock) or `openai:<model>` (an OpenAI-compatible server).',
      ),
  })
  .describe('AI-generated insights: summary and evaluation.');
export type Insights = z.infer<typeof insightsSchema>;

const dateTime = z.iso.datetime({ offset: true });

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

/** Idempotency-Key header (ARCHITECTURE.md): printable ASCII, 1–255 characters. */
export const idempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters without spaces');

export const deliveryAttemptSchema = z.strictObject({
  at: z.iso.datetime({ offset: true }),
  status_code: z
    .number()
    .int()
    .nullable()
    .describe('HTTP status of the webhook reply; null for e-mail or no reply.'),
  latency_ms: z.number(),
  error: z.string().nullable(),
});

export const deliveriesViewSchema = z
  .strictObject({
    bot_id: z.uuid(),
    deliveries: z.array(
      z.strictObject({
        channel: z.enum(['webhook', 'email']),
        event: z
          .string()
          .describe(
            'The event as its webhook body names it: bot.in_call, transcript.data, session_complete, … (an e-mail: session_complete).',
          ),
        seq: z
          .number()
          .int()
          .nullable()
          .describe(
            "The bot's event number, 1, 2, … in the order the events happened: the seq of a bot.* or transcript.data body. session_complete, bot_join_failed and bot_failed take their place in it when the start named webhook_events (their bodies carry no seq); otherwise, and for an e-mail, null.",
          ),
        status: z.enum(['pending', 'delivered', 'failed']),
        target: z.string().describe('The webhook URL or e-mail address.'),
        webhook_id: z
          .string()
          .nullable()
          .describe('The webhook-id header of every attempt (receivers deduplicate on it).'),
        attempts: z.array(deliveryAttemptSchema),
        created_at: z.iso.datetime({ offset: true }),
        delivered_at: z.iso.datetime({ offset: true }).nullable(),
        next_attempt_at: z.iso.datetime({ offset: true }).nullable(),
      }),
    ),
  })
  .describe(
    "Every delivery of a bot's results and events, with each attempt: by seq, then by first attempt; those without a seq last.",
  );
export type DeliveriesView = z.infer<typeof deliveriesViewSchema>;

/** Query of `GET /api/bots`: filters and the page. */
export const listBotsQuerySchema = z.strictObject({
  status: z.enum(botStatuses).optional().describe('Only bots in this state.'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Bots per page, 1-100 (default 20).'),
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe('next_cursor of the previous page; opaque, and valid only for the account that got it.'),
});
export type ListBotsQuery = z.infer<typeof listBotsQuerySchema>;

const botSummarySchema = z.strictObject({
  bot_id: z.uuid(),
  status: z.enum(botStatuses),
  provider: z.enum(providers),
  room_url: z.string(),
  created_at: dateTime,
  started_at: dateTime.nullable(),
  completed_at: dateTime.nullable(),
  exit_reason: z.enum(exitReasons).nullable(),
  error: z.string().nullable(),
});
export type BotSummary = z.infer<typeof botSummarySchema>;

export const botListViewSchema = z
  .strictObject({
    bots: z.array(botSummarySchema),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as cursor for the next (older) page; null on the last page.'),
  })
  .describe("The account's bots, newest first; results are on each bot's status.");
export type BotListView = z.infer<typeof botListViewSchema>;
