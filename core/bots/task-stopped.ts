// Use case: a bot's task ended (ECS task-state event, a local child exit, or a stale heartbeat); a session still
// running is failed, keeping its partial transcript, and a bot_failed event is queued (bot_join_failed when the bot
// never got into the room).
import type { Config } from '../config';
import type { Stores } from '../deps';
import type { Logger } from '../log';
import type { MessageQueue } from '../ports/queue';
import type { ResultsMessage } from '../results/messages';
import { failSession } from './finish-session';
import { transcriptText } from './transcript';

/** Log lines the operations alarms count (infra/constructs/operations.ts): renaming one must change both. */
export const alarmLogMessages = {
  taskDied: 'bot task died before finishing',
  sweepDone: 'sweep done',
} as const;

export interface TaskStopped {
  botId: string;
  /** What the runner knows about the end, for the session's error text. */
  reason: string;
  /** The process exited 0: the bot ran its own exit pipeline, nothing to repair. */
  clean: boolean;
}

export interface TaskStoppedDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts'>;
  config: Pick<Config, 'CREDITS_PER_MINUTE'>;
  results: MessageQueue;
  log: Logger;
}

export async function onTaskStopped(
  deps: TaskStoppedDeps,
  stopped: TaskStopped,
  now = new Date(),
): Promise<'failed' | 'already_ended' | 'unknown'> {
  const session = await deps.stores.sessions.get(stopped.botId);
  if (!session) return 'unknown';
  if (session.status !== 'running') return 'already_ended';
  if (stopped.clean) return 'already_ended';
  if (session.leftAt && session.exitReason) {
    // It left the room but died around the hand-over: hand over again (processing is idempotent).
    await deps.results.send({
      kind: 'session_ended',
      bot_id: session.botId,
      exit_reason: session.exitReason,
      left_at: session.leftAt,
    } satisfies ResultsMessage);
    return 'already_ended';
  }
  if (session.stopRequestedAt) {
    // It was asked to leave and is gone: that is a force_leave, even if it went before it could say so.
    await deps.results.send({
      kind: 'session_ended',
      bot_id: session.botId,
      exit_reason: 'force_leave',
      left_at: now.toISOString(),
    } satisfies ResultsMessage);
    return 'already_ended';
  }
  const transcript = transcriptText(await deps.stores.transcripts.load(stopped.botId));
  const joined = Boolean(session.joinedAt);
  const error = joined
    ? `the bot stopped unexpectedly: ${stopped.reason}`
    : `the bot stopped before it joined the room: ${stopped.reason}`;
  // Only a bot that got into the room pays for its minutes.
  const failed = await failSession(
    { ...deps.stores, config: deps.config },
    stopped.botId,
    { error, chargeUsage: joined, transcript },
    now,
  );
  if (!failed) return 'already_ended';
  deps.log.warn(alarmLogMessages.taskDied, { bot_id: stopped.botId, reason: stopped.reason, joined });
  const started = Date.parse(session.startedAt ?? session.createdAt);
  const timestamp = now.toISOString();
  const durationSeconds = Math.max(0, (now.getTime() - started) / 1000);
  // A bot that never got into the room failed to join (spec §6.2), whatever ended its task; bot_failed (with the
  // partial transcript) is for a bot that died after joining (ARCHITECTURE.md §4).
  const message: ResultsMessage = joined
    ? {
        kind: 'bot_failed',
        bot_id: stopped.botId,
        event: {
          event_type: 'bot_failed',
          bot_id: stopped.botId,
          room_url: session.roomUrl,
          error_message: error,
          timestamp,
          duration_seconds: durationSeconds,
        },
      }
    : {
        kind: 'bot_join_failed',
        bot_id: stopped.botId,
        event: {
          event_type: 'bot_join_failed',
          bot_id: stopped.botId,
          workflow_thread_id: stopped.botId,
          room_url: session.roomUrl,
          error_type: 'unknown',
          error_message: error,
          timestamp,
          duration_seconds: durationSeconds,
        },
      };
  await deps.results.send(message);
  return 'failed';
}
