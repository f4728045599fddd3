// The OpenAPI 3.1 document, generated from the same zod schemas the handlers validate with (docs/openapi.json).
import { z } from 'zod';
import type { errorStatus } from './errors';
import { eventNames, eventRegistry, liveUtteranceSchema } from './events/registry';
import { withExamples } from './openapi-examples';
import { errorBodySchema } from './schemas/api';
import { botConfigSchema } from './schemas/bot-config';
import {
  dataDeletionSchema,
  leaveResponseSchema,
  recordingViewSchema,
  statusViewSchema,
} from './schemas/bot-views';
import { botListViewSchema, deliveriesViewSchema, listBotsQuerySchema } from './schemas/list-views';
import { insightsSchema, qaPairSchema } from './schemas/results';
import { startRequestSchema, startResponseSchema } from './schemas/start-request';
import { transcriptPageQuerySchema, transcriptPageSchema } from './schemas/transcript-page';

/** Component names that the rule below would give twice: bot_failed and bot.failed are both "BotFailedEvent". */
const eventComponentNames: Partial<Record<string, string>> = { 'bot.failed': 'BotFailedLifecycleEvent' };

/** An event's component name: session_complete → SessionCompleteEvent, transcript.data → TranscriptDataEvent. */
const eventComponent = (name: string) =>
  eventComponentNames[name] ??
  `${name
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Event`;

// Two events under one name would leave one of them without its schema in the document (and the typed client).
const taken = new Map<string, string>();
for (const n of eventNames) {
  const component = eventComponent(n);
  const other = taken.get(component);
  if (other) throw new Error(`events ${other} and ${n} both map to the OpenAPI component ${component}`);
  taken.set(component, n);
}

/** Named schemas, each read as the side of the exchange it is on (a request body, or what we send). */
const named = (io: 'input' | 'output', schemas: Record<string, z.ZodType>) =>
  Object.entries(schemas).map(([name, schema]) => [name, { schema, io }] as const);
const components = Object.fromEntries([
  ...named('input', {
    StartRequest: startRequestSchema({ allowInsecureWebhooks: false }),
    BotConfig: botConfigSchema,
  }),
  ...named('output', {
    StartResponse: startResponseSchema,
    LeaveResponse: leaveResponseSchema,
    DataDeletion: dataDeletionSchema,
    StatusView: statusViewSchema,
    DeliveriesView: deliveriesViewSchema,
    BotListView: botListViewSchema,
    TranscriptPage: transcriptPageSchema,
    RecordingView: recordingViewSchema,
    // One utterance as both the transcript pages and transcript.data carry it (a reference in each).
    Utterance: liveUtteranceSchema,
    QaPair: qaPairSchema,
    Insights: insightsSchema,
    ErrorBody: errorBodySchema,
    // Every webhook event, from the one registry.
    ...Object.fromEntries(eventNames.map((n) => [eventComponent(n), eventRegistry[n].schema as z.ZodType])),
  }),
]);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function schemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, { schema, io }] of Object.entries(components)) {
    const registry = z.registry<{ id: string }>();
    // Nested named schemas become references instead of copies.
    for (const [other, c] of Object.entries(components)) {
      if (other !== name && c.io === io) registry.add(c.schema as z.ZodType, { id: other });
    }
    registry.add(schema as z.ZodType, { id: name });
    const { schemas: generated } = z.toJSONSchema(registry, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${id}`,
    });
    const { $schema: _schema, $id: _id, ...body } = generated[name] as Record<string, unknown>;
    out[name] = withExamples(body);
  }
  return out;
}

const json = (name: string, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(name) } },
});

const errorResponse = (codes: (keyof typeof errorStatus)[], description: string) =>
  json('ErrorBody', `${description} (error: ${codes.join(', ')})`);

/**
 * A query's parameters from its schema. The output side, so a whole number parsed from the query string is
 * documented as the integer it is (with its bounds and default), not as the string it arrives as.
 */
function queryParameters(query: z.ZodObject) {
  return Object.entries(query.shape).map(([name, schema]) => {
    const { $schema: _, ...rest } = z.toJSONSchema(schema as z.ZodType, {
      io: 'output',
      target: 'draft-2020-12',
    });
    return { name, in: 'query', required: false, description: schema.description, schema: rest };
  });
}

const botIdParam = {
  name: 'bot_id',
  in: 'path',
  required: true,
  description: 'The bot id returned by the start operation.',
  schema: { type: 'string', format: 'uuid' },
};

const retryAfterHeader = (description: string) => ({
  'Retry-After': { description, schema: { type: 'integer', minimum: 1 } },
});

/** Every operation reads the database (the API key, at least), so any of them may meet it overloaded. */
const dependencyUnavailable =
  'A service this request depends on (the database, a queue, the container platform) throttled it, did not answer ' +
  'in time or answered with a fault, after our own retries. Send the same request again after Retry-After seconds: ' +
  'every operation is safe to repeat, and a join refused this way started and charged nothing (its credit hold is ' +
  'returned, its Idempotency-Key freed)';

const noSuchBot = errorResponse(['not_found'], 'No bot session with that id for this account');

const commonErrors = {
  '400': errorResponse(['validation_error'], 'The request or a path parameter is not valid'),
  '401': errorResponse(['authentication_error'], 'Missing, malformed, unknown or revoked API key'),
  '405': {
    ...errorResponse(['method_not_allowed'], 'This path takes other methods'),
    headers: { Allow: { description: 'The methods the path takes.', schema: { type: 'string' } } },
  },
  '429': errorResponse(['rate_limited'], 'Too many requests for this key; see Retry-After'),
  '500': errorResponse(['server_error'], 'Unexpected fault; the caller may retry'),
  '503': {
    ...errorResponse(['dependency_unavailable'], dependencyUnavailable),
    headers: retryAfterHeader(
      'Seconds to wait before retrying (DEPENDENCY_RETRY_AFTER_SECONDS, 2 by default).',
    ),
  },
};

/** An operation on one bot (path parameter bot_id): its own responses over the common errors and the 404. */
type BotOp = { operationId: string; summary: string; description?: string; security?: unknown[] };
function botOp({ query, security, responses, ...head }: BotOp & { query?: z.ZodObject; responses: object }) {
  return {
    ...head,
    tags: ['bots'],
    ...(security && { security }),
    parameters: [botIdParam, ...(query ? queryParameters(query) : [])],
    responses: { ...commonErrors, '404': noSuchBot, ...responses },
  };
}

export function buildOpenApiDocument() {
  const stop = (alias: boolean) =>
    botOp({
      operationId: alias ? 'stopBotAlias' : 'stopBot',
      summary: alias ? "Stop a bot (alias the interface's webhook text cites)" : 'Stop a bot',
      description:
        'Records the stop request; the bot leaves the room (typically within 1 s) and runs the full exit pipeline.',
      security: [{ bearerAuth: [] }],
      responses: {
        '202': json(
          'LeaveResponse',
          'Leave requested (also for a repeated request while the bot is leaving)',
        ),
        '409': errorResponse(['bot_not_running'], 'The bot already completed or failed'),
      },
    });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Meeting Bot Service',
      version: '0.1.0',
      description:
        'Start an AI bot in an existing video room, stop it, and read its transcript, Q&A pairs and insights. ' +
        'Results are also delivered by e-mail and by signed webhook (Standard Webhooks).',
    },
    servers: [{ url: 'http://localhost:3000', description: 'Local stack (npm start)' }],
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key of your account.' },
      },
      schemas: schemas(),
    },
    paths: {
      '/api/bot/join': {
        post: {
          operationId: 'startBot',
          summary: 'Start a bot in a room',
          tags: ['bots'],
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description:
                'Kept 24 h per account: the same key and body return the first response; another body gives 422; ' +
                'a duplicate while the first is still in progress gives 409.',
              schema: { type: 'string', minLength: 1, maxLength: 255 },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('StartRequest') } } },
          responses: {
            '201': json('StartResponse', 'The bot was created and is joining'),
            ...commonErrors,
            '402': errorResponse(
              ['insufficient_credits'],
              'The balance is below the start hold; body has balance',
            ),
            '409': errorResponse(
              ['idempotency_in_progress'],
              'A request with this Idempotency-Key is in progress',
            ),
            '413': errorResponse(['payload_too_large'], 'Body over 64 KiB'),
            '415': errorResponse(
              ['unsupported_media_type'],
              'The body was not sent as application/json (with charset utf-8 or none): e.g. text/plain, which ' +
                'fetch sends for a string body without a Content-Type header',
            ),
            '422': errorResponse(['idempotency_conflict'], 'Idempotency-Key reused with another body'),
            '503': {
              ...errorResponse(
                ['capacity_exhausted', 'capacity_unavailable', 'dependency_unavailable'],
                "The service truly cannot start another bot now. capacity_exhausted: the account's quota of " +
                  'concurrent bot tasks (Fargate vCPUs or tasks) is reached, or the deployment runs its configured ' +
                  'maximum of bots (MAX_BOTS); bots must end first (Retry-After 60). ' +
                  'capacity_unavailable: the launch could not even be handed to the control plane (its queue failed). ' +
                  'A join that ECS merely throttles (RunTask is limited per account and region) or that finds no ' +
                  'capacity is not refused: it answers 201 and the control plane starts the bot at the paced rate, ' +
                  'retrying for up to START_GIVE_UP_MS. Nothing was started or charged: the credit hold is returned ' +
                  'and the Idempotency-Key freed, so the same request may be sent again after Retry-After seconds. ' +
                  "ECS's throttling of RunTask never answers 5xx. dependency_unavailable: " +
                  dependencyUnavailable,
              ),
              headers: retryAfterHeader(
                'Seconds to wait before retrying: 60 for capacity_exhausted, CAPACITY_RETRY_AFTER_SECONDS for ' +
                  'capacity_unavailable, DEPENDENCY_RETRY_AFTER_SECONDS (2 by default) for dependency_unavailable.',
              ),
            },
          },
        },
      },
      '/api/bot/{bot_id}/status': {
        get: botOp({
          operationId: 'getBotStatus',
          summary: 'Status and results of a bot',
          responses: { '200': json('StatusView', 'The session') },
        }),
      },
      '/api/bot/{bot_id}/transcript': {
        get: botOp({
          operationId: 'getBotTranscript',
          summary: "A bot's transcript a page at a time, while it runs and after",
          description:
            'The utterances after after_seq, in order, numbered by seq from 1 as transcript.data numbers them. ' +
            'Follow next_after_seq until it is null; while the bot runs, poll again with the last seq received.',
          query: transcriptPageQuerySchema,
          responses: {
            '200': json('TranscriptPage', 'One page of utterances'),
            '400': errorResponse(
              ['validation_error'],
              'bot_id is not a UUID, after_seq or limit is not a whole number in range, or an unknown parameter',
            ),
          },
        }),
      },
      '/api/bot/{bot_id}/recording': {
        get: botOp({
          operationId: 'getBotRecording',
          summary: "A recorded session's audio: a download address valid for at most an hour",
          description:
            'For a session started with recording.audio. The file (Opus in WebM, mono) is assembled after the bot ' +
            'left; until the session completes this answers 409 recording_not_ready. Ask again for a fresh address ' +
            'when one expired (docs/recording.md).',
          responses: {
            '200': json('RecordingView', 'Where to download the recording, and what it is'),
            '404': errorResponse(
              ['not_found'],
              'No bot session with that id for this account, or the session was not recorded or ended without a recording',
            ),
            '409': errorResponse(
              ['recording_not_ready'],
              'The session is still running or its recording is being made',
            ),
            '410': errorResponse(
              ['data_deleted'],
              "The meeting's content, its recording included, was deleted",
            ),
          },
        }),
      },
      '/api/bot/{bot_id}/deliveries': {
        get: botOp({
          operationId: 'getBotDeliveries',
          summary: 'Webhook and e-mail deliveries of a bot, with every attempt',
          responses: { '200': json('DeliveriesView', 'The deliveries') },
        }),
      },
      '/api/bot/{bot_id}/data': {
        delete: botOp({
          operationId: 'deleteBotData',
          summary: "Delete a meeting's content, keeping its tombstone",
          description:
            'Deletes the transcript (every saved segment), the Q&A pairs, the insights and the payloads of the stored ' +
            'webhook and e-mail deliveries of an ended bot; the session stays as a tombstone (bot_id, times, exit ' +
            'reason, status changes, the delivery log without payloads) whose status view has transcript, qa_pairs and ' +
            'insights null and data_deleted_at set. Idempotent: a repeat answers 200 with the first data_deleted_at. ' +
            'A delivery not yet sent is never sent; bot.data_deleted goes to a webhook that asked for it. Status reads ' +
            'served from a cache show the tombstone within 60 s. A deletion that does not finish within the request ' +
            '(a very long meeting) answers 202 with status deleting: the tombstone is set and nothing is served any ' +
            'more, and the service finishes the purge within minutes (docs/data-retention.md).',
          responses: {
            '200': json('DataDeletion', 'The content is deleted (now, or by an earlier request)'),
            '202': json(
              'DataDeletion',
              'The tombstone is set and the purge goes on: status deleting, finished by the service within minutes',
            ),
            '409': errorResponse(['bot_running'], 'The bot is still running: stop it first'),
          },
        }),
      },
      '/api/bots': {
        get: {
          operationId: 'listBots',
          summary: "The account's bots, newest first, a page at a time",
          tags: ['bots'],
          parameters: queryParameters(listBotsQuerySchema),
          responses: { '200': json('BotListView', 'One page of bots'), ...commonErrors },
        },
      },
      '/v1/bots/leave/{bot_id}': { post: stop(false) },
      '/v1/bot/{bot_id}/stop': { post: stop(true) },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document',
          security: [],
          responses: {
            '200': {
              description: 'OpenAPI 3.1 document',
              content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
            },
          },
        },
      },
    },
    webhooks: Object.fromEntries(
      eventNames.map((n) => [
        n,
        {
          post: {
            summary: eventRegistry[n].description,
            description: `${eventRegistry[n].alwaysSent ? 'Always sent when the start request gives webhook_callback_url, whatever webhook_events names' : 'Sent when named in webhook_events'}. Signed per Standard Webhooks; the webhook-id is the same on every attempt.`,
            requestBody: { content: { 'application/json': { schema: ref(eventComponent(n)) } } },
            responses: { '2XX': { description: 'Received' } },
          },
        },
      ]),
    ),
  };
}
