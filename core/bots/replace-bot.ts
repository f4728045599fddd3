// Use case: a bot that was in the room is lost — its process crashed, the platform stopped its machine, or it lost
// its connection for good — and a new task takes over the same session (same bot_id, room and bot_config): it
// rejoins, continues the saved transcript and the conversation where they stand. At most
// MAX_REPLACEMENTS times; after that, or when no replacement can start, the session fails with its partial
// transcript and bot_failed, as a lost bot did before.
import type { Config } from '../config';
import { type BotEventMessage, type ControlMessage, lifecycleEvent } from '../control/messages';
import type { Outbox } from '../control/outbox';
import { correlated } from '../correlation';
import type { Stores } from '../deps';
import type { Logger } from '../log';
import { metrics } from '../metrics';
import { TaskCapacityError, type TaskRunner } from '../ports/task-runner';
import { sessionEnded, sessionFailed } from '../results/messages';
import type { BotFailedErrorCode } from '../schemas/webhooks';
import { failSession } from './finish-session';
import { BotLife, finalStates, stateOf } from './lifecycle';
import { type BotSession, currentAttempt, recordsAudio, secondsSinceStart } from './session';

export type ReplaceRequest = Extract<ControlMessage, { kind: 'replace_bot' }>;

export interface ReplaceDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts' | 'accounts' | 'retention'>;
  config: Pick<Config, 'CREDITS_PER_MINUTE' | 'MAX_REPLACEMENTS' | 'RETENTION_DAYS'>;
  runner: TaskRunner;
  outbox: Outbox;
  log: Logger;
}

/** Whether a session whose bot was lost gets a replacement: only a bot that was in the room, while any are left. */
export function canReplace(
  session: Pick<BotSession, 'joinedAt' | 'replacements'>,
  config: Pick<Config, 'MAX_REPLACEMENTS'>,
): boolean {
  return Boolean(session.joinedAt) && currentAttempt(session) < config.MAX_REPLACEMENTS;
}

/** The request that asks the control plane to replace a lost bot. */
export function replaceRequest(
  botId: string,
  lost: { attempt: number; reason: string; alive: boolean },
  now = new Date(),
): ReplaceRequest {
  return {
    kind: 'replace_bot',
    bot_id: botId,
    attempt: lost.attempt,
    reason: lost.reason.slice(0, 1000),
    lost_at: now.toISOString(),
    alive: lost.alive,
  };
}

export async function replaceBot(
  given: ReplaceDeps,
  request: ReplaceRequest,
  now = new Date(),
): Promise<'replaced' | 'superseded' | 'ended' | 'failed'> {
  const session = await given.stores.sessions.get(request.bot_id);
  if (!session || finalStates.includes(stateOf(session))) return 'ended';
  const deps = correlated(given, session.correlationId);
  const log = deps.log.child({ bot_id: request.bot_id });
  const life = new BotLife(stateOf(session), session.botId);
  const attempt = currentAttempt(session);
  // Another report of the same loss (the task-stopped event, the sweeper, the bot itself) came first.
  if (request.attempt < attempt) return 'superseded';
  if (life.state === 'leaving') {
    // Left, or asked to leave while its bot was lost: nothing to replace. A bot still in the room ends it itself
    // (its stop watcher); for a lost one that never left, the session ends here as the leave asked.
    if (!session.leftAt && !request.alive) {
      life.step('hand_over', {});
      await deps.outbox.send(sessionEnded(session.botId, 'force_leave', request.lost_at));
    }
    return 'ended';
  }
  if (!canReplace(session, deps.config) || !life.can('lose')) {
    await failLostBot(deps, session, lostError(request.reason, attempt), now);
    return 'failed';
  }
  const lose = life.step('lose', { attempt, at: request.lost_at, reason: request.reason });
  const recorded = await deps.stores.sessions.addReplacement(session.botId, attempt, {
    at: request.lost_at,
    reason: request.reason,
    ...lose.replacement?.set,
  });
  if (!recorded) return 'superseded';
  try {
    const { taskRef } = await deps.runner.start(session.botId, { attempt: attempt + 1, onDemand: true });
    const task = life.step('record_task', { taskRef, replacement: attempt });
    await deps.stores.sessions
      .updateReplacement(session.botId, attempt, { taskRef, ...task.replacement?.set })
      .catch((err) => log.warn('could not record the replacement task', { err }));
    // docs/lost-bots.md names this line for operators: renaming it must change both.
    log.warn('bot replaced', {
      account_id: session.accountId,
      attempt: attempt + 1,
      reason: request.reason,
      task_ref: taskRef,
    });
    metrics.replaced();
    // After the start: a retry of this request finds the replacement recorded (superseded) and would not send it.
    await deps.outbox
      .send(
        lifecycleEvent(session, {
          event: 'bot.replaced',
          key: String(attempt + 1),
          detail: request.reason,
          data: { reason: request.reason, lost_at: request.lost_at, attempt: attempt + 1 },
        }),
      )
      .catch((err) => log.warn('could not send bot.replaced', { err }));
    return 'replaced';
  } catch (err) {
    log.error('could not start a replacement', { err });
    if (err instanceof TaskCapacityError) metrics.launchFailed('replacement');
    const message = err instanceof Error ? err.message : String(err);
    await failLostBot(
      deps,
      session,
      `${lostError(request.reason, attempt)}; no replacement could start: ${message}`,
      now,
    );
    return 'failed';
  }
}

/** The session's error for a bot lost after `replacements` replacements. */
export function lostError(reason: string, replacements: number): string {
  const after = replacements > 0 ? ` (after ${replacements} replacement${replacements > 1 ? 's' : ''})` : '';
  return `the bot stopped unexpectedly${after}: ${reason}`;
}

/**
 * Ends a session whose bot was in the room and cannot go on: failed with the partial transcript, charged for its
 * minutes, and a bot_failed event. False when the session had already ended.
 */
export function failLostBot(
  deps: Pick<ReplaceDeps, 'stores' | 'config' | 'outbox'>,
  session: Pick<BotSession, 'botId' | 'roomUrl' | 'startedAt' | 'createdAt' | 'recording'>,
  error: string,
  now = new Date(),
): Promise<boolean> {
  return failBotInRoom(deps, session, { error, chargeUsage: true }, now);
}

/**
 * Ends a session whose bot was in the room: failed with the partial transcript and a bot_failed event (with
 * `code` as its error_code), and, when it records, its recording's pieces handed to the results stage to become one
 * file. `chargeUsage` false: a bot that could hear nobody (its transcription unavailable) costs the customer nothing.
 * False when the session had already ended.
 */
export async function failBotInRoom(
  deps: Pick<ReplaceDeps, 'stores' | 'config' | 'outbox'>,
  session: Pick<BotSession, 'botId' | 'roomUrl' | 'startedAt' | 'createdAt' | 'recording'>,
  failure: { error: string; chargeUsage: boolean; code?: BotFailedErrorCode },
  now = new Date(),
): Promise<boolean> {
  // The partial transcript stays in its segments: the results stage reads them into bot_failed.
  const failed = await failSession(
    { ...deps.stores, config: deps.config },
    session.botId,
    { error: failure.error, chargeUsage: failure.chargeUsage, errorCode: failure.code },
    now,
  );
  if (!failed) return false;
  await deps.outbox.send({
    kind: 'bot_failed',
    bot_id: session.botId,
    event: {
      event_type: 'bot_failed',
      bot_id: session.botId,
      room_url: session.roomUrl,
      error_message: failure.error,
      ...(failure.code && { error_code: failure.code }),
      timestamp: now.toISOString(),
      duration_seconds: secondsSinceStart(session, now),
    },
  } satisfies BotEventMessage);
  // Every bot of the session is gone by now (a failing bot sends this after its recorder's last upload).
  if (recordsAudio(session)) await deps.outbox.send(sessionFailed(session.botId));
  return true;
}
