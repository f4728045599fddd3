// Every event a bot's webhook can carry, defined once: its name, body schema, description, whether it is
// sent without being asked for, and whether it is a step of the bot's life (a status change). The zod body types,
// the OpenAPI `webhooks` section, docs/webhooks.md's event table and the validation of `webhook_events` all come from here:
// adding an event is one entry plus the code that emits it.
import { z } from 'zod';
import { exitReasons } from '../schemas/api';
import { botFailedSchema, botJoinFailedSchema, sessionCompleteSchema } from '../schemas/webhooks';

const dateTime = z.iso.datetime({ offset: true });

/** The body of every event of ours (the spec's three keep their own shapes): the same envelope, its own `data`. */
function envelope<N extends string, D extends z.ZodType>(name: N, data: D, description: string) {
  return z
    .strictObject({
      event: z.literal(name),
      bot_id: z.uuid(),
      timestamp: dateTime.describe('When it happened (ISO 8601 with offset).'),
      seq: z
        .number()
        .int()
        .min(1)
        .describe(
          "This bot's event number, 1, 2, 3 … in the order they happened; a receiver can put late retries in place.",
        ),
      data,
    })
    .describe(description);
}

export const liveUtteranceSchema = z
  .strictObject({
    speaker: z.string(),
    participant_id: z.string(),
    text: z.string(),
    started_at: dateTime,
    seq: z
      .number()
      .int()
      .min(1)
      .describe(
        'Position in the transcript (1 the first line): GET /api/bot/{bot_id}/transcript?after_seq= pages by it.',
      ),
    is_bot: z.boolean().describe('Spoken by the bot itself.'),
  })
  .describe('One final utterance.');
export type LiveUtterance = z.infer<typeof liveUtteranceSchema>;

interface EventDefinition {
  /** The webhook body. */
  schema: z.ZodType;
  description: string;
  /**
   * Sent to every webhook, whatever `webhook_events` names: the results and the failures (the spec's events and our
   * bot_failed), which the interface promises to whoever gives a `webhook_callback_url`. The others are opt-in.
   */
  alwaysSent: boolean;
  /** A step of the bot's life: recorded in the status view's `status_changes` under this code. */
  statusCode?: string;
  /**
   * Its body carries what was said in the meeting (the bot-events message carries it too): once the meeting's data is
   * deleted it is never numbered or sent, however late its message comes (a redrive from the DLQ).
   */
  meetingContent?: true;
}

export const eventRegistry = {
  session_complete: {
    schema: sessionCompleteSchema,
    description: 'The call ended and the results are processed.',
    alwaysSent: true,
  },
  bot_join_failed: {
    schema: botJoinFailedSchema,
    description: 'The bot could not join the room.',
    alwaysSent: true,
  },
  bot_failed: {
    schema: botFailedSchema,
    description:
      'A bot that had joined was lost for good, removed from the room, or left because the room’s transcription was unavailable; with the partial transcript.',
    alwaysSent: true,
  },
  'bot.scheduled': {
    schema: envelope(
      'bot.scheduled',
      z.strictObject({ join_at: dateTime.describe('When the bot joins the room (UTC).') }),
      'The bot is scheduled: it joins the room at join_at; a leave before then cancels it.',
    ),
    description: 'A join with join_at was accepted; the bot joins the room at join_at.',
    alwaysSent: false,
    statusCode: 'scheduled',
  },
  'bot.joining': {
    schema: envelope('bot.joining', z.strictObject({ room_url: z.string() }), 'The bot is joining the room.'),
    description: 'The bot started joining the room.',
    alwaysSent: false,
    statusCode: 'joining',
  },
  'bot.in_waiting_room': {
    schema: envelope(
      'bot.in_waiting_room',
      z.strictObject({ timeout_seconds: z.number().int().min(0) }),
      'The room keeps the bot in its waiting room until someone admits it.',
    ),
    description: 'The bot asked to be let in and waits in the waiting room (lobby).',
    alwaysSent: false,
    statusCode: 'in_waiting_room',
  },
  'bot.in_call': {
    schema: envelope('bot.in_call', z.strictObject({}), 'The bot is in the call, transcribing.'),
    description: 'The bot is in the room and transcribing.',
    alwaysSent: false,
    statusCode: 'in_call',
  },
  'bot.left': {
    schema: envelope(
      'bot.left',
      z.strictObject({ exit_reason: z.enum(exitReasons) }),
      'The bot left the room; its results are being processed.',
    ),
    description: 'The bot left the room, with its exit_reason; results follow.',
    alwaysSent: false,
    statusCode: 'left',
  },
  'bot.done': {
    schema: envelope(
      'bot.done',
      z.strictObject({ status: z.literal('completed') }),
      'The results are final (the status view has them; session_complete carries them).',
    ),
    description: 'The results are final; session_complete follows.',
    alwaysSent: false,
    statusCode: 'done',
  },
  'bot.failed': {
    schema: envelope(
      'bot.failed',
      z.strictObject({ error: z.string() }),
      'The session ended failed (it never joined, or was lost for good).',
    ),
    description: 'The session ended failed, with its error (bot_join_failed or bot_failed has the details).',
    alwaysSent: false,
    statusCode: 'failed',
  },
  'bot.replaced': {
    schema: envelope(
      'bot.replaced',
      z.strictObject({ reason: z.string(), lost_at: dateTime, attempt: z.number().int().min(1) }),
      'The bot was lost (crash, platform stop, lost connection) and a replacement with the same bot_id is joining.',
    ),
    description: 'The bot was lost and a replacement with the same bot_id takes over.',
    alwaysSent: false,
    statusCode: 'replaced',
  },
  'recording.ready': {
    schema: envelope(
      'recording.ready',
      z.strictObject({ duration_seconds: z.number(), size_bytes: z.number().int() }),
      'The recording is assembled: GET /api/bot/{bot_id}/recording gives its download address.',
    ),
    description:
      'The recording asked for is ready to download (before bot.done; after bot.failed when the session failed).',
    alwaysSent: false,
  },
  'bot.data_deleted': {
    schema: envelope(
      'bot.data_deleted',
      z.strictObject({
        reason: z
          .enum(['requested', 'operator', 'retention'])
          .describe(
            "`requested`: DELETE /api/bot/{bot_id}/data; `operator`: our support, on the account's request; `retention`: the account's retention_days passed.",
          ),
        data_deleted_at: dateTime,
      }),
      "The meeting's content (transcript, Q&A pairs, insights, delivered payloads) is deleted; the tombstone remains.",
    ),
    description:
      "The meeting's content was deleted (on request or by retention); the session is a tombstone.",
    alwaysSent: false,
    statusCode: 'data_deleted',
  },
  'transcript.data': {
    schema: envelope(
      'transcript.data',
      z.strictObject({ utterances: z.array(liveUtteranceSchema).min(1) }),
      'The final utterances of one batch: the lines heard within 250 ms of its first, sent once the bot saved them.',
    ),
    description:
      'The final utterances while the bot runs: one event per batch the bot saves, 250 ms after its first line.',
    alwaysSent: false,
    meetingContent: true,
  },
} as const satisfies Record<string, EventDefinition>;

export type EventName = keyof typeof eventRegistry;
export const eventNames = Object.keys(eventRegistry) as [EventName, ...EventName[]];
/** Events of ours (the envelope with `seq`), as opposed to the spec's three. */
export type LifecycleEventName = Exclude<EventName, 'session_complete' | 'bot_join_failed' | 'bot_failed'>;
export const alwaysSentEvents = eventNames.filter((n) => eventRegistry[n].alwaysSent);

export function statusCodeOf(name: EventName): string | undefined {
  return (eventRegistry[name] as EventDefinition).statusCode;
}

/** Whether the event's body is meeting content (deleted with the meeting's data). */
export function carriesMeetingContent(name: EventName): boolean {
  return (eventRegistry[name] as EventDefinition).meetingContent === true;
}

/** The start request's `webhook_events`: known names only, each once; the events wanted besides the results. */
export const webhookEventsSchema = z
  .array(
    z.string().refine((v): v is EventName => (eventNames as string[]).includes(v), {
      message: `must be one of: ${eventNames.join(', ')}`,
    }),
  )
  .max(eventNames.length)
  .refine((a) => new Set(a).size === a.length, { message: 'names an event twice' })
  .describe(
    `The events the webhook receives besides ${alwaysSentEvents.join(', ')}, which it always receives (the results ` +
      'and the failures: a list without them still gets them). Requires webhook_callback_url. ' +
      `Allowed: ${eventNames.join(', ')}.`,
  );

/**
 * Whether a session's webhook receives `name`: the results and failures always (a list that leaves out
 * session_complete asked for live events, not for losing the results), the others when `webhook_events` names them.
 */
export function subscribes(webhookEvents: readonly string[] | undefined, name: EventName): boolean {
  return (eventRegistry[name] as EventDefinition).alwaysSent || (webhookEvents ?? []).includes(name);
}
