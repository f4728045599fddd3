// The start request (the interface's fields plus our additions, `webhook_events` from the event registry), its room
// and webhook URL rules, its Idempotency-Key and its response; built once per webhook policy (zod schemas are costly
// to build).
import { z } from 'zod';
import { webhookEventsSchema } from '../events/registry';
import { isLocalHostName, isPublicAddress } from '../net/address-policy';
import { limits, type Provider, prompt, providers } from './api';
import { botConfigSchema } from './bot-config';

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

/** The start request schema for a webhook policy; `webhook_events` is the event registry's (core/events/registry.ts). */
function buildStartRequestSchema(policy: RequestPolicy) {
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
      webhook_events: webhookEventsSchema.optional(),
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

/** Idempotency-Key header (ARCHITECTURE.md): printable ASCII, 1–255 characters. */
export const idempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters without spaces');

const schemas = new Map<boolean, ReturnType<typeof buildStartRequestSchema>>();

export function startRequestSchema(policy: RequestPolicy) {
  let schema = schemas.get(policy.allowInsecureWebhooks);
  if (!schema) {
    schema = buildStartRequestSchema(policy);
    schemas.set(policy.allowInsecureWebhooks, schema);
  }
  return schema;
}

export type StartRequest = z.infer<ReturnType<typeof startRequestSchema>>;
