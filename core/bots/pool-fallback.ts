// Use case: the warm pool's fallback — a session no pooled bot claimed within POOL_CLAIM_TIMEOUT_MS, or
// whose pooled bot was lost before it got into the room, gets a fresh (cold) task, as every join did before the pool.
// The fallback takes the session's claim itself with a conditional write first, so a pooled bot that comes late
// cannot take it too, and a pooled bot that won the race keeps it.

import type { ControlMessage } from '../control/messages';
import type { Outbox } from '../control/outbox';
import type { Stores } from '../deps';
import type { Logger } from '../log';
import { metrics } from '../metrics';
import type { TaskRunner } from '../ports/task-runner';
import { sessionEnded } from '../results/messages';
import { failNeverJoined } from './finish-session';
import { launchFailureOf } from './launch-failure';
import { BotLife, finalStates, plan, stateOf } from './lifecycle';
import { coldClaimant } from './session';

/** Log lines of the pool's fallbacks (dashboards count them: how often the pool was empty or lost a bot). */
export const poolLogMessages = {
  coldStart: 'pool fallback: cold start',
  claimantLost: 'pooled bot lost before joining; cold start requested',
  noCapacity: 'pool fallback: no bot could be launched within the retry budget; session failed',
} as const;

export type StartColdRequest = Extract<ControlMessage, { kind: 'start_cold' }>;

export interface PoolFallbackDeps {
  stores: Pick<Stores, 'sessions' | 'ledger'>;
  config: { CREDITS_PER_MINUTE: number };
  runner: TaskRunner;
  outbox: Outbox;
  log: Logger;
}

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
): Promise<'started' | 'claimed' | 'ended' | 'left' | 'failed'> {
  const log = deps.log.child({ bot_id: request.bot_id });
  // The claim's write is conditional (unclaimed, or held by the lost claimant): the store refuses it after a join.
  const claim = {
    by: coldClaimant,
    path: 'cold',
    at: now.toISOString(),
    ...(request.claimant !== undefined && { from: request.claimant }),
  } as const;
  plan('joining', 'claim', claim, request.bot_id);
  const claimed = await deps.stores.sessions.claim(request.bot_id, claim);
  const session = await deps.stores.sessions.get(request.bot_id);
  if (!session) return 'ended';
  const life = new BotLife(stateOf(session), session.botId);
  if (finalStates.includes(life.state)) return 'ended';
  if (!claimed) return 'claimed';
  if (life.state === 'leaving') {
    // Asked to leave before any bot had it: no bot starts; it ends as the leave asked, never in the room, not charged.
    life.step('hand_over', {});
    await deps.outbox.send(sessionEnded(session.botId, 'force_leave', now.toISOString()));
    return 'left';
  }
  try {
    const { taskRef } = await deps.runner.start(session.botId);
    await deps.stores.sessions
      .updateRunning(session.botId, life.step('record_task', { taskRef }).changes)
      .catch((err) => log.warn('could not record the cold task', { err }));
    log.info(poolLogMessages.coldStart, {
      account_id: session.accountId,
      reason: request.reason,
      ...(request.claimant && { lost_claimant: request.claimant }),
    });
    return 'started';
  } catch (err) {
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
