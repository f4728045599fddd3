// Use case: start a bot — validate, honour Idempotency-Key, hold credits, write the session, start the task (or offer
// the session to the warm pool, with a cold start as the fallback).
import type { Caller } from '../accounts/authenticate';
import { InsufficientCreditsError, TooManyRunningBotsError } from '../accounts/errors';
import { requestFingerprint } from '../accounts/secrets';
import { lifecycleEvent } from '../control/messages';
import { correlatedLog } from '../correlation';
import type { ServiceDeps } from '../deps';
import { ApiError } from '../errors';
import type { Logger } from '../log';
import { metrics } from '../metrics';
import type { CreditHold } from '../ports/credit-ledger';
import type { StoredResponse } from '../ports/idempotency-store';
import { TaskCapacityError } from '../ports/task-runner';
import {
  dailyHostAllowed,
  idempotencyKeySchema,
  roomNameOf,
  type StartRequest,
  startRequestSchema,
} from '../schemas/start-request';
import { parseOrThrow } from '../schemas/validate';
import { normalizeBotConfig } from './automatic-leave';
import { newBotId } from './bot-id';
import { refuseBeyondBotMaximum } from './bot-maximum';
import { failSession } from './finish-session';
import { launchFailureOf } from './launch-failure';
import { startColdRequest } from './pool-fallback';
import { dueWithinHorizon, queueScheduledStart } from './scheduled-joins';
import { type BotSession, coldClaimant } from './session';

/** Log lines of a join (dashboards and the runbook search for them). */
export const joinLogMessages = {
  noCapacity: 'join: no bot could be launched within the retry budget (503 capacity_unavailable)',
  exhausted: "join: the account's quota of concurrent bot tasks is reached (503 capacity_exhausted)",
  handedOver: 'join: ECS is throttling; the start is handed to the control plane',
} as const;

export interface StartResult extends StoredResponse {
  /** True when the response is a replay of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export async function startBot(
  deps: ServiceDeps,
  caller: Caller,
  body: unknown,
  idempotencyKeyHeader: string | undefined,
  /** The request's id (x-request-id): the bot's correlation_id in every log line of its life (core/correlation.ts). */
  requestId?: string,
): Promise<StartResult> {
  const request = parseOrThrow(
    startRequestSchema({ allowInsecureWebhooks: deps.config.ALLOW_INSECURE_WEBHOOKS }),
    body,
  );
  // A local room URL may name any host: outside the local stack it would let the bot probe internal networks.
  if (request.provider === 'local' && !deps.config.ALLOW_LOCAL_ROOMS)
    throw invalid('provider: "local" rooms exist only on the local stack; use "daily"');
  if (request.provider === 'daily' && !dailyHostAllowed(request.room_url, deps.config.DAILY_ROOM_DOMAINS))
    throw invalid(
      `room_url: must be a room on a Daily domain this service accepts (${deps.config.DAILY_ROOM_DOMAINS.map((d) => `*.${d}`).join(', ')})`,
    );
  const joinAt = request.join_at === undefined ? undefined : checkJoinAt(request.join_at, deps);
  // The id carries the join's time, which the hold then need not record (bot-id.ts).
  const requestedAt = deps.now();
  const botId = newBotId(requestedAt);
  const response: StoredResponse = {
    status: 201,
    body: { status: 'started', bot_id: botId, room_url: request.room_url },
  };

  let idempotencyKey: string | undefined;
  if (idempotencyKeyHeader !== undefined) {
    const parsed = idempotencyKeySchema.safeParse(idempotencyKeyHeader);
    if (!parsed.success) throw invalid('Idempotency-Key header: must be 1 to 255 printable ASCII characters');
    idempotencyKey = parsed.data;
    const replay = await claimIdempotencyKey(deps, caller, idempotencyKey, request, response);
    if (replay) return { ...replay, replayed: true };
  }
  const log = correlatedLog(deps.log.child({ bot_id: botId, account_id: caller.accountId }), requestId);
  try {
    await startClaimed(deps, { caller, request, botId, requestedAt, joinAt, requestId }, log);
  } catch (err) {
    // Nothing was started or charged: the key is freed, so the same request may be sent again.
    if (idempotencyKey) await deps.idempotency.release(caller.accountId, idempotencyKey);
    throw err;
  }
  if (idempotencyKey) await completeIdempotencyKey(deps, caller, idempotencyKey, response, log);
  if (joinAt) log.info('bot scheduled', { provider: request.provider, join_at: joinAt });
  else log.info('bot started', { provider: request.provider });
  return { ...response, replayed: false };
}

/** The join once its Idempotency-Key (if any) is claimed: the hold, the session, then its bot or its schedule. */
async function startClaimed(
  deps: ServiceDeps,
  j: {
    caller: Caller;
    request: StartRequest;
    botId: string;
    requestedAt: Date;
    joinAt: string | undefined;
    requestId: string | undefined;
  },
  log: ReturnType<typeof correlatedLog>,
): Promise<void> {
  const { caller, request, botId, joinAt, requestId } = j;
  // A bot starting now must fit under MAX_BOTS (a scheduled one is counted when its moment comes: the fallback).
  if (!joinAt) await refuseBeyondBotMaximum({ runner: deps.runner, config: deps.config, log });
  // Two requests to DynamoDB in all: the conditional hold on the account item, then the session and the hold's
  // ledger entry in one batch. The task's id is not written back: ECS finds it by startedBy = bot id.
  let hold: CreditHold;
  try {
    hold = await deps.ledger.reserve(
      caller.accountId,
      botId,
      deps.config.JOIN_HOLD_CREDITS,
      deps.config.MAX_RUNNING_BOTS_PER_ACCOUNT,
      j.requestedAt,
    );
  } catch (err) {
    if (err instanceof TooManyRunningBotsError) {
      throw new ApiError(
        'rate_limited',
        `this account already runs ${err.limit} bots at once; stop one or retry later`,
        { retryAfter: 30 },
      );
    }
    if (err instanceof InsufficientCreditsError) {
      throw new ApiError(
        'insufficient_credits',
        `starting a bot holds ${deps.config.JOIN_HOLD_CREDITS} credit(s); the balance is ${err.balance}`,
        { balance: err.balance },
      );
    }
    throw err;
  }

  const pooled = deps.config.BOT_POOL_SIZE > 0;
  try {
    await deps.sessions.create(
      {
        ...newSession(botId, caller.accountId, request, deps, pooled, joinAt),
        ...(requestId && { correlationId: requestId }),
      },
      hold,
    );
  } catch (err) {
    // The hold's entry may not have been written with the session: write it, so hold and release both show.
    await deps.ledger.writeEntry(hold);
    await deps.ledger.releaseHold(caller.accountId, botId, deps.now());
    throw err;
  }

  if (joinAt) return schedule(deps, { botId, accountId: caller.accountId, request, joinAt }, log);
  try {
    await startServing(deps, botId, pooled, log);
  } catch (err) {
    const { capacity, error, code } = launchFailureOf(err);
    log.error(
      code === 'capacity_exhausted'
        ? joinLogMessages.exhausted
        : capacity
          ? joinLogMessages.noCapacity
          : 'bot task could not be started',
      { err },
    );
    await failSession(deps, botId, { error, chargeUsage: false, errorCode: code }, deps.now());
    if (err instanceof TaskCapacityError) {
      // Throttling or capacity is ours to absorb, not a fault to report as a 500: the caller is told to come back,
      // holding nothing (the hold is returned, the Idempotency-Key freed; the session stays failed, unseen).
      metrics.launchFailed('join');
      if (err.exhausted) {
        throw new ApiError(
          'capacity_exhausted',
          `this service already runs as many bots as its platform quota allows; nothing was started or charged, retry after ${err.retryAfterSeconds} s`,
          { retryAfter: err.retryAfterSeconds },
        );
      }
      throw new ApiError(
        'capacity_unavailable',
        `no bot could be launched within ${Math.round(deps.config.RUN_TASK_RETRY_BUDGET_MS / 1000)} s (the platform is throttling or at capacity); nothing was started or charged, retry after ${err.retryAfterSeconds} s`,
        { retryAfter: err.retryAfterSeconds },
      );
    }
    // The cause lets the HTTP layer answer a throttled or timed-out dependency as 503 dependency_unavailable.
    throw new ApiError(
      'server_error',
      'the bot could not be started; no credits were charged, please retry',
      { cause: err },
    );
  }
}

const invalid = (detail: string) => new ApiError('validation_error', detail);

/** join_at as the session keeps it (UTC), once it is known to lie within the deployment's bounds. */
function checkJoinAt(joinAt: string, deps: ServiceDeps): string {
  const at = new Date(joinAt);
  const ahead = at.getTime() - deps.now().getTime();
  const { JOIN_AT_MIN_LEAD_MS: min, JOIN_AT_MAX_LEAD_MS: max } = deps.config;
  if (ahead < min || ahead > max)
    throw invalid(
      `join_at: must be at least ${formatSpan(min)} and at most ${formatSpan(max)} ahead (it is ${ahead < 0 ? `${formatSpan(-ahead)} in the past` : `${formatSpan(ahead)} ahead`})`,
    );
  return at.toISOString();
}

function formatSpan(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/**
 * A scheduled session is written (with its hold) and listed for the scheduler; bot.scheduled goes out. One due
 * before the scheduler's next look has its start queued here. Neither failure fails the join: the session is listed,
 * and the scheduler queues its start.
 */
async function schedule(
  deps: ServiceDeps,
  s: { botId: string; accountId: string; request: StartRequest; joinAt: string },
  log: Logger,
): Promise<void> {
  const at = deps.now();
  await deps.outbox
    .send(
      lifecycleEvent(
        {
          botId: s.botId,
          accountId: s.accountId,
          webhookUrl: s.request.webhook_callback_url,
          webhookEvents: s.request.webhook_events,
        },
        { event: 'bot.scheduled', at: at.toISOString(), data: { join_at: s.joinAt } },
      ),
    )
    .catch((err) => log.error('could not send bot.scheduled', { err }));
  if (dueWithinHorizon(s.joinAt, deps.config, at))
    await queueScheduledStart(
      { stores: deps, outbox: deps.outbox, config: deps.config },
      { botId: s.botId, joinAt: s.joinAt },
      at,
    ).catch((err) => log.warn('could not queue the scheduled start; the scheduler will', { err }));
}

/**
 * Gets a bot to the session. Without the pool: a fresh task, as always. With it: idle pooled bots see the
 * offer written with the session (the pool queue wakes one) and one claims it (bot-task/pool.ts); the fallback, a
 * control-queue message delayed by POOL_CLAIM_TIMEOUT_MS, starts a cold task if none did. When that message cannot be sent,
 * the cold start is now.
 */
async function startServing(
  deps: ServiceDeps,
  botId: string,
  pooled: boolean,
  log: ReturnType<typeof correlatedLog>,
): Promise<void> {
  if (pooled) {
    try {
      await deps.outbox.send(startColdRequest(botId, 'no pooled bot claimed the session in time'), {
        delaySeconds: Math.ceil(deps.config.POOL_CLAIM_TIMEOUT_MS / 1000),
      });
      // Wakes one idle pooled bot now. A lost wake-up costs time, not the session: the fallback above starts a cold
      // task.
      await deps.poolQueue
        ?.offer(botId)
        .catch((err) =>
          deps.log.warn('could not wake the pool; the fallback will start the bot', { bot_id: botId, err }),
        );
      return;
    } catch (err) {
      deps.log.warn('could not schedule the pool fallback; starting a cold task now', { bot_id: botId, err });
    }
    const now = deps.now().toISOString();
    // A pooled bot may have it already: then it is served, and no task starts.
    if (!(await deps.sessions.claim(botId, { by: coldClaimant, path: 'cold', at: now }))) return;
  }
  try {
    await deps.runner.start(botId);
  } catch (err) {
    // Throttled (or no capacity) past the join's budget is a storm, not a fault: the control plane keeps trying at
    // the paced rate (core/bots/pool-fallback.ts) and the join answers 201. Only the quota, which no wait fixes,
    // is the caller's to hear now; and if even the hand-over cannot be sent, the caller hears 503.
    if (!(err instanceof TaskCapacityError) || err.exhausted) throw err;
    await deps.outbox.send({ ...startColdRequest(botId, err.message), claimed: true, tries: 1 }).catch(() => {
      throw err;
    });
    log.warn(joinLogMessages.handedOver, { detail: err.message });
  }
}

/**
 * Marks the key's request done. The bot exists by now, so a failure here (DynamoDB throttling) must not turn the join
 * into an error the caller would retry into a second bot: the claim already holds this response, which a retry is
 * answered with once IDEMPOTENCY_IN_FLIGHT_MS has passed (claimIdempotencyKey finds the session).
 */
async function completeIdempotencyKey(
  deps: ServiceDeps,
  caller: Caller,
  key: string,
  response: StoredResponse,
  log: Logger,
): Promise<void> {
  await deps.idempotency
    .complete(caller.accountId, key, response)
    .catch((err) =>
      log.warn('could not mark the Idempotency-Key done; its claim replays the response', { err }),
    );
}

async function claimIdempotencyKey(
  deps: ServiceDeps,
  caller: Caller,
  key: string,
  request: StartRequest,
  response: StoredResponse,
): Promise<StoredResponse | null> {
  const fingerprint = requestFingerprint(request);
  const now = deps.now();
  const claim = await deps.idempotency.claim(caller.accountId, key, fingerprint, response, now);
  if (claim.claimed) return null;
  const { existing } = claim;
  if (existing.fingerprint !== fingerprint) {
    throw new ApiError('idempotency_conflict', 'this Idempotency-Key was used with a different request body');
  }
  const age = now.getTime() - Date.parse(existing.createdAt);
  if (existing.state === 'done' && existing.response) return existing.response;
  if (age > deps.config.IDEMPOTENCY_IN_FLIGHT_MS && existing.response) {
    // The first request stopped half-way (its process died). Replay only what really exists; otherwise the key
    // is taken over and this request starts the bot.
    const replayedId = (existing.response.body as { bot_id?: string }).bot_id;
    if (replayedId && (await deps.sessions.get(replayedId))) return existing.response;
    await deps.idempotency.release(caller.accountId, key);
    return claimIdempotencyKey(deps, caller, key, request, response);
  }
  throw new ApiError('idempotency_in_progress', 'a request with this Idempotency-Key is still in progress', {
    retryAfter: 1,
  });
}

function newSession(
  botId: string,
  accountId: string,
  req: StartRequest,
  deps: ServiceDeps,
  pooled: boolean,
  joinAt?: string,
): BotSession {
  const now = deps.now().toISOString();
  return {
    botId,
    accountId,
    status: 'running',
    provider: req.provider,
    roomUrl: req.room_url,
    roomName: roomNameOf(req.provider, req.room_url)!,
    // The deployment's leave defaults are filled in here and stored: the bot, its replacements and the status
    // agree on them, whatever configuration the bot-task runs with.
    botConfig: normalizeBotConfig(req.bot_config, deps.config),
    processInsights: req.process_insights,
    email: req.email,
    webhookUrl: req.webhook_callback_url,
    ...(req.webhook_events && { webhookEvents: req.webhook_events }),
    // Stored only when it records: an old session and a new one that records nothing look the same.
    ...(req.recording?.audio && { recording: req.recording }),
    meetingToken: req.meeting_token,
    analysisPrompt: req.analysis_prompt,
    summaryFormatPrompt: req.summary_format_prompt,
    holdCredits: deps.config.JOIN_HOLD_CREDITS,
    createdAt: now,
    startedAt: now,
    completedAt: null,
    // No segment yet: status reads skip the segments until the first save marks the session (transcript-store.ts).
    transcriptAt: null,
    // Offered to the pool, the session is claimed later (by a pooled bot or the fallback); otherwise a cold task
    // serves it from the start. A scheduled one is neither until the scheduler hands it out (scheduled-joins.ts);
    // it has started when its bot is due, at join_at.
    ...(joinAt
      ? { joinAt, startedAt: null }
      : pooled
        ? { poolOfferedAt: now }
        : { claimedBy: coldClaimant, claimedAt: now, startPath: 'cold' as const }),
  };
}
