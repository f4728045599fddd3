// Use case: a bot's task ended (ECS task-state event, a local child exit, or a stale heartbeat). A bot that was in the
// room is replaced while replacements are left (replace-bot.ts); otherwise a session still running is failed,
// keeping its partial transcript, with bot_failed (bot_join_failed when the bot never got into the room).
import { correlated } from '../correlation';
import { metrics } from '../metrics';
import { sessionEnded } from '../results/messages';
import { failNeverJoined } from './finish-session';
import { BotLife, beforeRoom, finalStates, stateOf } from './lifecycle';
import { poolLogMessages, startColdRequest } from './pool-fallback';
import { canReplace, failLostBot, lostError, type ReplaceDeps, replaceRequest } from './replace-bot';
import { currentAttempt } from './session';

/** Log lines the runbook's log queries look for (docs/operations.md): renaming one must change both. */
export const alarmLogMessages = {
  taskDied: 'bot task died before finishing',
  /** A bot that was in the room was lost and its replacement asked for (replace-bot.ts starts it). */
  taskLost: 'bot task lost; replacement requested',
  sweepDone: 'sweep done',
} as const;

export interface TaskStopped {
  botId: string;
  /** What the runner knows about the end, for the session's error text. */
  reason: string;
  /** The process exited 0: the bot ran its own exit pipeline, nothing to repair. */
  clean: boolean;
  /**
   * Which task of the session stopped (its BOT_ATTEMPT), when the runner knows; the stop of a task already
   * replaced changes nothing. Unknown (the sweeper): the task serving the session now.
   */
  attempt?: number;
  /**
   * The pooled bot that stopped, when it had claimed (or was claiming) this session: a stop of a pooled bot
   * that does not hold the session changes nothing; one that holds it but never got in falls back to a cold start.
   */
  claimant?: string;
}

/** What a replacement needs, less the runner: task-stopped only asks for the replacement. */
export type TaskStoppedDeps = Omit<ReplaceDeps, 'runner'>;

export async function onTaskStopped(
  given: TaskStoppedDeps,
  stopped: TaskStopped,
  now = new Date(),
): Promise<'failed' | 'replacing' | 'falling_back' | 'superseded' | 'already_ended' | 'unknown'> {
  const session = await given.stores.sessions.get(stopped.botId);
  if (!session) return 'unknown';
  const deps = correlated(given, session.correlationId);
  const life = new BotLife(stateOf(session), session.botId);
  if (finalStates.includes(life.state)) return 'already_ended';
  const attempt = currentAttempt(session);
  // A task that was replaced (it handed over, or was lost and reported already) ends nothing.
  if (stopped.attempt !== undefined && stopped.attempt < attempt) return 'superseded';
  // A pooled bot that tried for this session and lost the race to another bot (or to the fallback) never served it.
  if (stopped.claimant !== undefined && session.claimedBy !== stopped.claimant) return 'superseded';
  if (stopped.clean) return 'already_ended';
  if (life.state === 'leaving') {
    life.step('hand_over', {});
    // It left the room but died around the hand-over: hand over again (processing is idempotent). Or it was asked
    // to leave and is gone: that is a force_leave, even if it went before it could say so.
    await deps.outbox.send(
      session.leftAt && session.exitReason
        ? sessionEnded(session.botId, session.exitReason, session.leftAt)
        : sessionEnded(session.botId, 'force_leave', now.toISOString()),
    );
    return 'already_ended';
  }
  if (session.startPath === 'pool' && beforeRoom(life.state) && session.claimedBy) {
    // A pooled bot lost after claiming, before it got into the room: the session falls back to a cold start, as if
    // no pooled bot had claimed it; nothing is lost. The fallback moves the claim only from this bot.
    await deps.outbox.send(startColdRequest(session.botId, stopped.reason, session.claimedBy));
    deps.log.warn(poolLogMessages.claimantLost, { bot_id: stopped.botId, reason: stopped.reason });
    return 'falling_back';
  }
  if (canReplace(session, deps.config)) {
    // A bot that was in the room is replaced, not failed: the control plane starts the new task (replace-bot.ts).
    await deps.outbox.send(
      replaceRequest(session.botId, { attempt, reason: stopped.reason, alive: false }, now),
    );
    deps.log.warn(alarmLogMessages.taskLost, { bot_id: stopped.botId, reason: stopped.reason, attempt });
    return 'replacing';
  }
  const joined = !beforeRoom(life.state);
  // A bot that never got into the room failed to join, whatever ended its task, and is not charged.
  const failed = joined
    ? await failLostBot(deps, session, lostError(stopped.reason, attempt), now)
    : await failNeverJoined(
        { ...deps.stores, config: deps.config, outbox: deps.outbox },
        session,
        { error: `the bot stopped before it joined the room: ${stopped.reason}` },
        now,
      );
  if (!failed) return 'already_ended';
  deps.log.warn(alarmLogMessages.taskDied, { bot_id: stopped.botId, reason: stopped.reason, joined });
  metrics.botTaskFailed();
  return 'failed';
}
