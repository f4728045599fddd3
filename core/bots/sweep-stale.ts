// The heartbeat sweeper: a running session whose bot stopped beating is treated like a task that died (replaced
// when it was in the room and replacements are left, failed otherwise).
import type { Config } from '../config';
import { metrics } from '../metrics';
import { backoffMs } from '../retry';
import { plan, stateOf } from './lifecycle';
import { onTaskStopped, type TaskStoppedDeps } from './task-stopped';

export interface SweepSettings {
  /** A heartbeat older than this means the bot is gone. */
  staleMs: number;
  /** A bot that never beat is given this long to start (image pull, Chromium start). */
  startupGraceMs: number;
}

export function sweepSettings(config: Pick<Config, 'HEARTBEAT_STALE_MS'>): SweepSettings {
  return {
    staleMs: config.HEARTBEAT_STALE_MS,
    startupGraceMs: Math.max(config.HEARTBEAT_STALE_MS, 10 * 60_000),
  };
}

/** How long after the bot left its results may take before the sweeper hands them over again. */
const resultsGraceMs = 30 * 60_000;
/** The spacing of the hand-overs of one stuck session: doubling from the grace, a day at the longest. */
const resendSpacing = { baseMs: resultsGraceMs, maxMs: 24 * 3600_000, jitter: 'none' } as const;

/**
 * How long after its `resends`-th hand-over the sweeper waits before the next one: 30 min, 1 h, 2 h, … up to a
 * day. Results still stuck after a re-send are stuck for a reason (a poisoned message, a vendor down); sending
 * them again on every run would only flood the results queue.
 */
export function resendSpacingMs(resends: number): number {
  return backoffMs(Math.max(0, resends - 1), resendSpacing);
}

/** Returns the ids of the sessions it failed. */
export async function sweepStaleSessions(
  deps: TaskStoppedDeps,
  settings: SweepSettings,
  now = new Date(),
): Promise<string[]> {
  const failed: string[] = [];
  const running = await deps.stores.sessions.listRunning();
  metrics.runningBots(running.length);
  for (const botId of running) {
    const session = await deps.stores.sessions.get(botId);
    if (!session) continue;
    const state = stateOf(session);
    if (state === 'done' || state === 'failed') continue;
    // A bot that left and handed over stops beating; its results may still be in progress (insights retries).
    if (session.leftAt && now.getTime() - Date.parse(session.leftAt) < resultsGraceMs) continue;
    // A session whose bot left (or was asked to) is handed over again, not failed: with exponential spacing.
    const handsOver = state === 'leaving';
    const resends = session.handoverResends ?? 0;
    if (
      handsOver &&
      session.handoverResentAt &&
      now.getTime() - Date.parse(session.handoverResentAt) < resendSpacingMs(resends)
    )
      continue;
    // A replacement not yet in the room is starting (image pull, Chromium start; the bot it replaces may still be
    // beating while it hands over): it gets the startup grace from when it was asked for.
    const replacement = session.replacements?.at(-1);
    const starting = !session.heartbeatAt || Boolean(replacement && !replacement.joinedAt);
    // A scheduled bot is due at join_at: its startup grace counts from then, not from when it was scheduled.
    const last = starting
      ? (replacement?.at ?? session.joinAt ?? session.createdAt)
      : (session.heartbeatAt as string);
    const allowed = starting ? settings.startupGraceMs : settings.staleMs;
    if (now.getTime() - Date.parse(last) <= allowed) continue;
    const reason = !starting
      ? `no heartbeat since ${session.heartbeatAt}`
      : replacement
        ? 'the replacement never got into the room'
        : 'the bot never started';
    const outcome = await onTaskStopped(deps, { botId, reason, clean: false }, now);
    if (outcome === 'failed') failed.push(botId);
    else if (handsOver && outcome === 'already_ended') {
      const step = plan(state, 'resend_handover', { at: now.toISOString(), resends: resends + 1 }, botId);
      await deps.stores.sessions
        .writeStep(botId, step)
        .catch((err) => deps.log.warn('could not record the hand-over', { bot_id: botId, err }));
    }
  }
  return failed;
}
