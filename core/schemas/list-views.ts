// The list views: an account's bots a page at a time, and a bot's deliveries with each attempt.
import { z } from 'zod';
import { botStatuses, dateTime, exitReasons, providers } from './api';

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
