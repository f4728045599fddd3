// The API's routes (docs/api.md): each one line from HTTP to a use case.
import { getRecording } from '../../core/bots/get-recording';
import { findOwnSession, getBotDeliveries, getBotStatus } from '../../core/bots/get-status';
import { listBots } from '../../core/bots/list-bots';
import { startBot } from '../../core/bots/start-bot';
import { stopBot } from '../../core/bots/stop-bot';
import { getTranscriptPage } from '../../core/bots/transcript-page';
import { deleteMeetingData, requestDeletionBudgetMs } from '../../core/data/delete-meeting-data';
import { header, jsonBody, type Route } from './http-route';

export const joinRoute: Route = async ({ deps, event, caller }) => {
  const body = jsonBody(event, deps.config.MAX_BODY_BYTES);
  const result = await startBot(
    deps,
    caller,
    body,
    header(event, 'idempotency-key'),
    event.requestContext?.requestId,
  );
  const headers: Record<string, string> = result.replayed ? { 'idempotent-replayed': 'true' } : {};
  return { status: result.status, body: result.body, headers };
};

export const leaveRoute: Route = async ({ deps, event, caller }) => ({
  status: 202,
  body: await stopBot(deps, caller, event.pathParameters?.bot_id),
});

export const statusRoute: Route = async ({ deps, event, caller }) => ({
  status: 200,
  body: await getBotStatus(deps, caller, event.pathParameters?.bot_id),
});

export const transcriptRoute: Route = async ({ deps, event, caller }) => ({
  status: 200,
  body: await getTranscriptPage(deps, caller, event.pathParameters?.bot_id, event.queryStringParameters),
});

export const recordingRoute: Route = async ({ deps, event, caller }) => ({
  status: 200,
  body: await getRecording(deps, caller, event.pathParameters?.bot_id),
});

/** The status function serves three routes (route-table.ts); API Gateway names the one matched in `routeKey`. */
export const statusFunctionRoute: Route = (ctx) =>
  ctx.event.routeKey === 'GET /api/bot/{bot_id}/transcript'
    ? transcriptRoute(ctx)
    : ctx.event.routeKey === 'GET /api/bot/{bot_id}/recording'
      ? recordingRoute(ctx)
      : statusRoute(ctx);

export const deliveriesRoute: Route = async ({ deps, event, caller }) => ({
  status: 200,
  body: await getBotDeliveries(deps, caller, event.pathParameters?.bot_id),
});

export const listRoute: Route = async ({ deps, event, caller }) => ({
  status: 200,
  body: await listBots(deps, caller, event.queryStringParameters),
});

/**
 * Deletes the meeting's content of one of the caller's ended bots; the tombstone stays (docs/data-retention.md). 202
 * `deleting` when the purge outgrew the request's budget: the sweeper finishes it.
 */
export const dataRoute: Route = async ({ deps, event, caller }) => {
  const session = await findOwnSession(deps, caller, event.pathParameters?.bot_id);
  const body = await deleteMeetingData(
    {
      stores: deps,
      recordings: deps.recordings(),
      outbox: deps.outbox,
      log: deps.log,
      now: deps.now,
      deadline: new Date(deps.now().getTime() + requestDeletionBudgetMs),
    },
    session,
    'requested',
  );
  deps.statusCache.forget(session.botId);
  return { status: body.status === 'deleting' ? 202 : 200, body };
};
