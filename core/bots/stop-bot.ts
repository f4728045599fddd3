// Use case: stop a bot — record the stop request on the session, then signal the task as a backstop.
import type { Caller } from '../accounts/authenticate';
import type { ServiceDeps } from '../deps';
import { ApiError, notFound } from '../errors';
import { sessionEnded } from '../results/messages';
import { findOwnSession } from './get-status';
import { can, stateOf } from './lifecycle';
import { awaitsDispatch } from './scheduled-joins';

export async function stopBot(deps: ServiceDeps, caller: Caller, rawBotId: string | undefined) {
  const session = await findOwnSession(deps, caller, rawBotId);
  // A repeat while leaving is harmless (the first request time wins); a bot that ended cannot be stopped.
  const outcome = can(stateOf(session), 'request_stop')
    ? await deps.sessions.requestStop(session.botId, deps.now())
    : 'not_running';
  if (outcome === 'not_found') throw notFound(session.botId);
  if (outcome === 'not_running') {
    throw new ApiError(
      'bot_not_running',
      `bot ${session.botId} has already ${session.status === 'failed' ? 'failed' : 'finished'}`,
    );
  }
  if (awaitsDispatch(session) && (await cancelScheduled(deps, session.botId))) {
    return {
      status: 'leave_requested' as const,
      bot_id: session.botId,
      message:
        'The scheduled bot is cancelled: it will not join; the session completes with force_leave, nothing charged.',
    };
  }
  // The bot watches its session record (ARCHITECTURE.md), so the request above is the durable signal; the
  // runner's signal only shortens the wait. Its failure is logged, not returned: the bot will still stop.
  try {
    await deps.runner.stop(session.botId, session.taskRef);
  } catch (err) {
    deps.log.warn('stop signal to the task failed; the bot will see the stop request', {
      bot_id: session.botId,
      account_id: caller.accountId,
      err,
    });
  }
  return {
    status: 'leave_requested' as const,
    bot_id: session.botId,
    message: 'The bot is leaving the room; results follow by webhook and e-mail where configured.',
  };
}

/**
 * A scheduled session no bot was given: once the stop is recorded no bot can be given it (the hand-out is
 * conditional on no stop request), so it ends here, as a leave before joining does: completed, force_leave, never in
 * the room, not charged. False when the scheduler handed it out first: the bot or the pool's fallback then ends it.
 */
async function cancelScheduled(deps: ServiceDeps, botId: string): Promise<boolean> {
  const now = deps.now();
  const current = await deps.sessions.get(botId);
  if (!current || !awaitsDispatch(current)) return false;
  await deps.outbox.send(sessionEnded(botId, 'force_leave', now.toISOString()));
  await deps.sessions
    .unlistScheduled({ botId, joinAt: current.joinAt! })
    .catch((err) => deps.log.warn('could not unlist a cancelled scheduled join', { bot_id: botId, err }));
  return true;
}
