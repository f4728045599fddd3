// The heartbeat writes `heartbeatAt`, and the `admit` step until it is written: a bot in the room is always charged.
import { stepWrite } from '../core/bots/lifecycle';
import type { Logger } from '../core/log';
import type { SessionsStore } from '../core/ports/sessions-store';

/** When each bot got into the room, while the session does not hold it yet. */
export class JoinTimes {
  private readonly unwritten = new Map<string, string>();
  private readonly written = new Set<string>();

  /** The first call wins. */
  joined(botId: string, at: string): void {
    if (!this.written.has(botId) && !this.unwritten.has(botId)) this.unwritten.set(botId, at);
  }

  pending(botId: string): string | undefined {
    return this.unwritten.get(botId);
  }

  recorded(botId: string, at: string): void {
    if (this.unwritten.get(botId) !== at) return;
    this.unwritten.delete(botId);
    this.written.add(botId);
  }
}

/** The process's join times: the bot records its own on joining, the heartbeat writes it until it is written. */
export const joinTimes = new JoinTimes();

/** One beat; never throws. False when someone else ended the session (the bot then leaves as if asked to). */
export async function beat(
  deps: { sessions: Pick<SessionsStore, 'updateRunning' | 'writeStep'>; log: Logger; joinTimes: JoinTimes },
  botId: string,
  now = new Date(),
): Promise<boolean> {
  const joinedAt = deps.joinTimes.pending(botId);
  const heartbeatAt = now.toISOString();
  try {
    if (joinedAt) {
      const admit = stepWrite('admit', { joinedAt });
      const admitted = await deps.sessions.writeStep(botId, {
        ...admit,
        changes: { ...admit.changes, heartbeatAt },
      });
      // Refused: the session left the states admit leaves (its write landed after all, the bot was asked to stop, or
      // the session ended), so the join time is not carried again; the beat alone says whether it still runs.
      deps.joinTimes.recorded(botId, joinedAt);
      if (admitted) return true;
    }
    return await deps.sessions.updateRunning(botId, { heartbeatAt });
  } catch (err) {
    const retried = joinedAt ? '; the join time is retried on the next beat' : '';
    deps.log.warn(`heartbeat failed${retried}`, { err });
    return true;
  }
}
