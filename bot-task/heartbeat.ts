// The bot task's heartbeat: every beat writes `heartbeatAt`, and until the join time is written it carries
// `joinedAt` too, so a bot that was in the room is always charged even when the write at join failed.
import type { Logger } from '../core/log';
import type { SessionsStore } from '../core/ports/sessions-store';

/** When each bot got into the room, while the session does not hold it yet. */
export class JoinTimes {
  private readonly unwritten = new Map<string, string>();
  private readonly written = new Set<string>();

  /** The bot is in the room (the first call wins). */
  joined(botId: string, at: string): void {
    if (!this.written.has(botId) && !this.unwritten.has(botId)) this.unwritten.set(botId, at);
  }

  /** The bot's join time while it is not yet written. */
  pending(botId: string): string | undefined {
    return this.unwritten.get(botId);
  }

  /** The session holds `at`. */
  recorded(botId: string, at: string): void {
    if (this.unwritten.get(botId) !== at) return;
    this.unwritten.delete(botId);
    this.written.add(botId);
  }
}

/** The process's join times: the bot records its own on joining, the heartbeat writes it until it is written. */
export const joinTimes = new JoinTimes();

/**
 * One beat: the heartbeat, with the join time while it is not yet written. Never throws. Returns false when the
 * session is no longer running (someone else ended it: the bot then leaves as if asked to), true otherwise.
 */
export async function beat(
  deps: { sessions: Pick<SessionsStore, 'updateRunning'>; log: Logger; joinTimes: JoinTimes },
  botId: string,
  now = new Date(),
): Promise<boolean> {
  const joinedAt = deps.joinTimes.pending(botId);
  try {
    const running = await deps.sessions.updateRunning(botId, { heartbeatAt: now.toISOString(), joinedAt });
    if (running && joinedAt) deps.joinTimes.recorded(botId, joinedAt);
    return running;
  } catch (err) {
    deps.log.warn(
      joinedAt ? 'heartbeat failed; the join time is retried on the next beat' : 'heartbeat failed',
      {
        err,
      },
    );
    return true;
  }
}
