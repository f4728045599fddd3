// Lambda entry: EventBridge "ECS Task State Change" (lastStatus STOPPED) → a bot that died is replaced or failed (or,
// a pooled bot lost before it joined, its session falls back to a cold start).
import type { EventBridgeEvent } from 'aws-lambda';
import { onTaskStopped, type TaskStoppedDeps } from '../../core/bots/task-stopped';
import { builtEntry } from '../runtime';

export interface EcsTaskStateDetail {
  taskArn: string;
  lastStatus: string;
  startedBy?: string;
  stoppedReason?: string;
  stopCode?: string;
  containers?: { name: string; exitCode?: number; reason?: string }[];
  /** The RunTask overrides, as the event carries them: the bot's BOT_ATTEMPT is among the environment. */
  overrides?: {
    containerOverrides?: { name?: string; environment?: { name?: string; value?: string }[] }[];
  };
}

/** Which task of the session stopped: BOT_ATTEMPT from the RunTask overrides (absent: the first, 0). */
export function attemptOf(detail: EcsTaskStateDetail, containerName: string): number {
  const container = detail.overrides?.containerOverrides?.find((c) => c.name === containerName);
  const value = container?.environment?.find((e) => e.name === 'BOT_ATTEMPT')?.value;
  const attempt = Number(value ?? 0);
  return Number.isSafeInteger(attempt) && attempt >= 0 ? attempt : 0;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function makeTaskStoppedHandler(deps: TaskStoppedDeps, containerName: string) {
  return async (event: EventBridgeEvent<'ECS Task State Change', EcsTaskStateDetail>) => {
    const d = event.detail;
    if (d.lastStatus !== 'STOPPED') return { outcome: 'ignored' as const };
    // A task RunTask started for a bot names it (startedBy); a pooled task, started by the pool's service
    // with no BOT_ID, serves the session it claimed under its task ARN, if it claimed one at all.
    const started = d.startedBy && uuid.test(d.startedBy) ? d.startedBy : undefined;
    const botId = started ?? (await deps.stores.sessions.sessionClaimedBy(d.taskArn));
    if (!botId) return { outcome: 'ignored' as const };
    const container = d.containers?.find((c) => c.name === containerName);
    const clean = container?.exitCode === 0;
    const reason = [
      d.stopCode,
      d.stoppedReason,
      container?.reason,
      container?.exitCode !== undefined ? `exit code ${container.exitCode}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const attempt = attemptOf(d, containerName);
    return {
      outcome: await onTaskStopped(deps, {
        botId,
        reason: reason || 'the task stopped',
        clean,
        attempt,
        ...(!started && { claimant: d.taskArn }),
      }),
    };
  };
}

export const handler = builtEntry(
  'task-stopped',
  (a) =>
    makeTaskStoppedHandler(
      { stores: a.stores, config: a.config, outbox: a.outbox, log: a.log },
      a.config.BOT_CONTAINER_NAME,
    ),
  (event) => event.detail.startedBy,
);
