// Use cases that end a session: completed (with results) or failed; both settle the credit hold exactly once.
import { usageCharge } from '../accounts/pricing';
import type { Config } from '../config';
import { joinFailed } from '../control/messages';
import type { Outbox } from '../control/outbox';
import { listForRetention } from '../data/retention';
import type { Stores } from '../deps';
import { metrics } from '../metrics';
import type { SessionErrorCode } from '../schemas/api';
import type { JoinErrorCode } from '../schemas/webhooks';
import { can, finalStates, plan, stateOf, type TransitionInputs } from './lifecycle';
import { type BotSession, secondsSinceStart } from './session';

/**
 * What completing a session records (the transcript is not among it: its segments are its only copy), and `endedAt`:
 * when the bot left the room, usage being charged up to there, not up to when results were ready.
 */
export type Completion = Omit<TransitionInputs['complete'], 'completedAt'> & { endedAt?: string };

type Deps = Pick<Stores, 'sessions' | 'ledger' | 'accounts' | 'retention'> & {
  config: Pick<Config, 'CREDITS_PER_MINUTE' | 'RETENTION_DAYS'>;
};

/**
 * Marks a running session completed and charges its started minutes; false when it had already ended. A bot
 * that never got into the room (stopped while joining) is not charged, as with a failed join.
 */
export async function completeSession(
  deps: Deps,
  botId: string,
  result: Completion,
  now = new Date(),
): Promise<boolean> {
  const session = await deps.sessions.get(botId);
  if (!session) return false;
  const from = stateOf(session);
  if (finalStates.includes(from)) return false;
  const completedAt = now.toISOString();
  // A completion is a leave, then the completion: the bot records its leave as it goes, and if that write failed the
  // results message still carried when it left (a completion that does not say, such as the admin's, writes no time).
  const left =
    from === 'leaving'
      ? undefined
      : plan(from, 'leave', { exitReason: result.exitReason, leftAt: result.endedAt ?? completedAt }, botId);
  const completion = plan(left?.to ?? from, 'complete', { completedAt, ...result }, botId);
  await settle(deps, session, session.joinedAt ? (result.endedAt ?? completedAt) : undefined, now);
  const completed = await deps.sessions.writeStep(botId, {
    leaves: (left ?? completion).leaves,
    changes: { ...(!session.leftAt && result.endedAt && { leftAt: result.endedAt }), ...completion.changes },
  });
  if (completed)
    metrics.sessionEnded(result.exitReason, minutesInRoom(session.joinedAt, result.endedAt ?? completedAt));
  return completed;
}

/** Minutes between joining the room and leaving it (0 for a bot that never got in), for the BotMinutes metric. */
function minutesInRoom(joinedAt: string | undefined, leftAt: string): number {
  return joinedAt ? Math.max(0, Date.parse(leftAt) - Date.parse(joinedAt)) / 60_000 : 0;
}

/**
 * Marks a running session failed. A bot that never got into the room is not charged; one that died mid-session
 * pays for the minutes it ran (`chargeUsage`).
 */
export async function failSession(
  deps: Deps,
  botId: string,
  failure: { error: string; chargeUsage: boolean; errorCode?: SessionErrorCode },
  now = new Date(),
): Promise<boolean> {
  const session = await deps.sessions.get(botId);
  if (!session || !can(stateOf(session), 'fail')) return false;
  const completedAt = now.toISOString();
  const step = plan(stateOf(session), 'fail', { completedAt, ...failure }, botId);
  await settle(deps, session, failure.chargeUsage ? completedAt : undefined, now);
  return deps.sessions.writeStep(botId, step);
}

/**
 * Before an end's final write: the credit hold settled, with the minutes up to `chargedUntil` (none: nothing charged),
 * and the retention sweep's entry, due at this end plus the account's retention. Both are repeatable (a retry's later
 * time adds an entry that the sweep folds into the first), so a crash after them is repaired by the retry that ends the
 * session. Every end of a session comes through here, so no session with content escapes its retention.
 */
async function settle(
  deps: Deps,
  session: Pick<BotSession, 'botId' | 'accountId' | 'startedAt' | 'createdAt'>,
  chargedUntil: string | undefined,
  now: Date,
): Promise<void> {
  const charge = chargedUntil
    ? usageCharge(session.startedAt ?? session.createdAt, chargedUntil, deps.config.CREDITS_PER_MINUTE)
    : 0;
  await Promise.all([
    deps.ledger.settle(session.accountId, session.botId, charge, now),
    listForRetention({ stores: deps, config: deps.config }, session, now.toISOString()),
  ]);
}

/**
 * Ends a session whose bot never got into the room: failed, not charged, and bot_join_failed (error_type
 * unknown) with `error` as its message. False, sending nothing, when the session had already ended.
 */
export async function failNeverJoined(
  deps: Deps & { outbox: Outbox },
  session: Pick<BotSession, 'botId' | 'roomUrl' | 'startedAt' | 'createdAt'>,
  failure: { error: string; code?: JoinErrorCode },
  now = new Date(),
): Promise<boolean> {
  const { code, ...rest } = failure;
  const failed = await failSession(
    deps,
    session.botId,
    { ...rest, chargeUsage: false, ...(code && { errorCode: code }) },
    now,
  );
  if (!failed) return false;
  await deps.outbox.send(
    joinFailed(
      session,
      {
        type: 'unknown',
        message: failure.error,
        durationSeconds: secondsSinceStart(session, now),
        ...(code && { code }),
      },
      now,
    ),
  );
  return true;
}
