// The heartbeat sweeper: a running session whose bot stopped beating is failed like a task that died.
import type { Config } from '../config';
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

/** Returns the ids of the sessions it failed. */
export async function sweepStaleSessions(
  deps: TaskStoppedDeps,
  settings: SweepSettings,
  now = new Date(),
): Promise<string[]> {
  const failed: string[] = [];
  for (const botId of await deps.stores.sessions.listRunning()) {
    const session = await deps.stores.sessions.get(botId);
    if (session?.status !== 'running') continue;
    // A bot that left and handed over stops beating; its results may still be in progress (insights retries).
    if (session.leftAt && now.getTime() - Date.parse(session.leftAt) < resultsGraceMs) continue;
    const last = session.heartbeatAt ?? session.createdAt;
    const allowed = session.heartbeatAt ? settings.staleMs : settings.startupGraceMs;
    if (now.getTime() - Date.parse(last) <= allowed) continue;
    const reason = session.heartbeatAt
      ? `no heartbeat since ${session.heartbeatAt}`
      : 'the bot never started';
    if ((await onTaskStopped(deps, { botId, reason, clean: false }, now)) === 'failed') failed.push(botId);
  }
  return failed;
}
