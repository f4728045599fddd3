// Use case: a bot's task ended (ECS task-state event or a local child exit); a session still running is failed.

import type { Config } from '../config';
import type { Stores } from '../deps';
import type { Logger } from '../log';
import { failSession } from './finish-session';

export interface TaskStopped {
  botId: string;
  /** What the runner knows about the end, for the session's error text. */
  reason: string;
}

export async function onTaskStopped(
  deps: Pick<Stores, 'sessions' | 'ledger'> & { config: Pick<Config, 'CREDITS_PER_MINUTE'>; log: Logger },
  stopped: TaskStopped,
  now = new Date(),
): Promise<'failed' | 'already_ended' | 'unknown'> {
  const session = await deps.sessions.get(stopped.botId);
  if (!session) return 'unknown';
  if (session.status !== 'running') return 'already_ended';
  const failed = await failSession(
    deps,
    stopped.botId,
    {
      error: `the bot stopped unexpectedly: ${stopped.reason}`,
      chargeUsage: true,
      transcript: session.transcript,
    },
    now,
  );
  if (failed)
    deps.log.warn('bot task died before finishing', { bot_id: stopped.botId, reason: stopped.reason });
  return failed ? 'failed' : 'already_ended';
}
