// Use case: the warm pool's fallback — a session no pooled bot claimed within POOL_CLAIM_TIMEOUT_MS, or
// whose pooled bot was lost before it got into the room, gets a fresh (cold) task, as every join did before the pool.
// The fallback takes the session's claim itself with a conditional write first, so a pooled bot that comes late
// cannot take it too, and a pooled bot that won the race keeps it.

import type { ControlMessage } from '../control/messages';
import type { Outbox } from '../control/outbox';
import type { Stores } from '../deps';
import type { Logger } from '../log';
import { metrics } from '../metrics';
import { TaskCapacityError, type TaskRunner } from '../ports/task-runner';
import { sessionEnded } from '../results/messages';
import { failNeverJoined } from './finish-session';
import { launchFailureOf } from './launch-failure';
import { BotLife, finalStates, plan, stateOf } from './lifecycle';
import { coldClaimant } from './session';

/** Log lines of the pool's fallbacks (dashboards count them: how often the pool was empty or lost a bot). */
export const poolLogMessages = {
  coldStart: 'pool fallback: cold start',
  requeued: 'cold start throttled past its retry budget; tried again later',
  claimantLost: 'pooled bot lost before joining; cold start requested',
  noCapacity: 'pool fallback: no bot could be launched within the retry budget; session failed',
} as const;

export type StartColdRequest = Extract<ControlMessage, { kind: 'start_cold' }>;

export interface PoolFallbackDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'accounts' | 'retention'>;
  config: { CREDITS_PER_MINUTE: number; RETENTION_DAYS: number; START_GIVE_UP_MS?: number };
  runner: TaskRunner;
  outbox: Outbox;
  log: Logger;
  /** Told of each offer no pooled bot claimed in time: the pool grows in the storm itself (core/bots/pool-growth.ts). */
  poolDemand?: (sessions: number) => Promise<void>;
  /** Jitter of a re-queued start (tests fix it); 0 ≤ x < 1. */
  random?: () => number;
}

/** A start the platform kept throttling is tried again after 5–15 s: spread out, so a storm drains at the quota. */
const requeueMinSeconds = 5;
const requeueSpreadSeconds = 10;

/** The request that makes the control plane start a cold task unless a pooled bot has the session by then. */
export function startColdRequest(botId: string, reason: string, claimant?: string): StartColdRequest {
  return {
    kind: 'start_cold',
    bot_id: botId,
    reason: reason.slice(0, 1000),
    ...(claimant !== undefined && { claimant }),
  };
}

export async function startColdIfUnclaimed(
  deps: PoolFallbackDeps,
  request: StartColdRequest,
  now = new Date(),
): Promise<'started' | 'claimed' | 'ended' | 'left' | 'failed' | 'requeued'> {
  const log = deps.log.child({ bot_id: request.bot_id });
  // The claim's write is conditional (unclaimed, or held by the lost claimant): the store refuses it after a join.
  // A start sent back after throttling (requeue below) holds its claim already.
  const claim = {
    by: coldClaimant,
    path: 'cold',
    at: now.toISOString(),
    ...(request.claimant !== undefined && { from: request.claimant }),
  } as const;
  plan('joining', 'claim', claim, request.bot_id);
  const claimed = request.claimed === true || (await deps.stores.sessions.claim(request.bot_id, claim));
  // An offer nobody in the pool took: the pool is too small for this minute's joins, so it grows now.
  const unclaimedOffer = claimed && request.claimed !== true && request.claimant === undefined;
  const growing = unclaimedOffer
    ? deps.poolDemand?.(1).catch((err) => log.warn('could not grow the warm pool', { err }))
    : undefined;
  const session = await deps.stores.sessions.get(request.bot_id);
  await growing;
  if (!session) return 'ended';
  const life = new BotLife(stateOf(session), session.botId);
  if (finalStates.includes(life.state)) return 'ended';
  if (!claimed) return 'claimed';
  if (session.claimedBy !== coldClaimant) return 'ended';
  if (life.state === 'leaving') {
    // Asked to leave before any bot had it: no bot starts; it ends as the leave asked, never in the room, not charged.
    life.step('hand_over', {});
    await deps.outbox.send(sessionEnded(session.botId, 'force_leave', now.toISOString()));
    return 'left';
  }
  try {
    const { taskRef } = await deps.runner.start(session.botId);
    await deps.stores.sessions
      .writeStep(session.botId, life.step('record_task', { taskRef }))
      .catch((err) => log.warn('could not record the cold task', { err }));
    log.info(poolLogMessages.coldStart, {
      account_id: session.accountId,
      reason: request.reason,
      ...(request.claimant && { lost_claimant: request.claimant }),
    });
    return 'started';
  } catch (err) {
    if (err instanceof TaskCapacityError && !err.exhausted && (await requeue(deps, request, session, now))) {
      log.warn(poolLogMessages.requeued, { account_id: session.accountId, tries: (request.tries ?? 0) + 1 });
      return 'requeued';
    }
    // Ends loudly either way: the session fails (not charged) and bot_join_failed goes out; a start the platform
    // throttled or had no room for (after the runner's retries) says so with error_code capacity_unavailable.
    const { capacity, error, code } = launchFailureOf(err);
    log.error(capacity ? poolLogMessages.noCapacity : 'bot task could not be started', {
      err,
      account_id: session.accountId,
    });
    if (capacity) metrics.launchFailed('pool_fallback');
    const failed = await failNeverJoined(
      { ...deps.stores, config: deps.config, outbox: deps.outbox },
      session,
      { error, ...(code && { code }) },
      now,
    );
    return failed ? 'failed' : 'ended';
  }
}

/**
 * Sends the start back to the control queue, delayed, while the session is younger than START_GIVE_UP_MS: a storm
 * throttled past one retry budget is drained over the next ones instead of failing sessions. False once too late.
 */
async function requeue(
  deps: PoolFallbackDeps,
  request: StartColdRequest,
  session: { createdAt: string },
  now: Date,
): Promise<boolean> {
  const delaySeconds = requeueMinSeconds + Math.floor((deps.random ?? Math.random)() * requeueSpreadSeconds);
  const age = now.getTime() - Date.parse(session.createdAt);
  if (age + delaySeconds * 1000 > (deps.config.START_GIVE_UP_MS ?? 300_000)) return false;
  await deps.outbox.send({ ...request, claimed: true, tries: (request.tries ?? 0) + 1 }, { delaySeconds });
  return true;
}
