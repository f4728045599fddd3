// Use cases of scheduled joins (start request `join_at`): the scheduler that queues each session's start for its
// moment and sizes the warm pool ahead of it, the start itself (offer to the pool or a task, a little before
// join_at), and the cancel of a session no bot was given yet. The bot waits for join_at itself (bot-task/bot.ts).
import type { Config } from '../config';
import type { ControlMessage } from '../control/messages';
import type { Outbox } from '../control/outbox';
import type { Stores } from '../deps';
import type { Logger } from '../log';
import type { PoolQueue } from '../ports/pool-queue';
import type { PoolScaler } from '../ports/pool-scaler';
import type { ScheduledJoin } from '../ports/sessions-store';
import type { TaskRunner } from '../ports/task-runner';
import { startColdIfUnclaimed, startColdRequest } from './pool-fallback';
import type { BotSession } from './session';

export type ScheduleConfig = Pick<
  Config,
  | 'BOT_POOL_SIZE'
  | 'POOL_CLAIM_TIMEOUT_MS'
  | 'SCHEDULE_POOL_LEAD_MS'
  | 'SCHEDULE_COLD_LEAD_MS'
  | 'SCHEDULE_HORIZON_MS'
  | 'CREDITS_PER_MINUTE'
  | 'RETENTION_DAYS'
>;

export type StartScheduledRequest = Extract<ControlMessage, { kind: 'start_scheduled' }>;

/** A queue message is delayed at most 15 minutes (SQS DelaySeconds). */
const maxDelaySeconds = 900;
/** Sessions whose start was not queued in time (a scheduler run lost) are still found this long after join_at. */
const catchUpMs = 10 * 60_000;

/** How long before join_at a bot is given the session: a pooled bot is ready; a fresh task must start first. */
export function scheduleLeadMs(
  config: Pick<ScheduleConfig, 'BOT_POOL_SIZE' | 'SCHEDULE_POOL_LEAD_MS' | 'SCHEDULE_COLD_LEAD_MS'>,
) {
  return config.BOT_POOL_SIZE > 0 ? config.SCHEDULE_POOL_LEAD_MS : config.SCHEDULE_COLD_LEAD_MS;
}

/** Whether the join itself queues the session's start: it is due before the scheduler's next look would find it. */
export function dueWithinHorizon(joinAt: string, config: ScheduleConfig, now: Date): boolean {
  return Date.parse(joinAt) - scheduleLeadMs(config) - now.getTime() < config.SCHEDULE_HORIZON_MS;
}

/**
 * Queues the session's start, delayed to join_at minus the lead, then takes it off the scheduler's list. Sent before
 * the entry goes, so a failure in between costs a second message (the start is conditional, done once), never a start.
 */
export async function queueScheduledStart(
  deps: { stores: Pick<Stores, 'sessions'>; outbox: Outbox; config: ScheduleConfig },
  entry: ScheduledJoin,
  now: Date,
): Promise<void> {
  const dueMs = Date.parse(entry.joinAt) - scheduleLeadMs(deps.config) - now.getTime();
  const delaySeconds = Math.min(maxDelaySeconds, Math.max(0, Math.floor(dueMs / 1000)));
  await deps.outbox.send({ kind: 'start_scheduled', bot_id: entry.botId }, { delaySeconds });
  await deps.stores.sessions.unlistScheduled(entry);
}

export interface SchedulerDeps {
  stores: Pick<Stores, 'sessions'>;
  outbox: Outbox;
  config: ScheduleConfig;
  /** The warm pool's size; absent without a warm pool. */
  poolScaler?: PoolScaler;
  log: Logger;
}

/**
 * One run of the scheduler (every minute on AWS, every SCHEDULE_TICK_MS locally): queues the start of every session
 * due within SCHEDULE_HORIZON_MS, each delayed to its own moment, and asks the pool for idle bots for them first.
 * Returns how many starts it queued.
 */
export async function runScheduler(deps: SchedulerDeps, now: Date): Promise<number> {
  const lead = scheduleLeadMs(deps.config);
  const from = new Date(now.getTime() - catchUpMs).toISOString();
  const to = new Date(now.getTime() + deps.config.SCHEDULE_HORIZON_MS + lead).toISOString();
  const due = await deps.stores.sessions.listScheduled(from, to);
  if (due.length === 0) return 0;
  if (deps.poolScaler) {
    // Raised now, minutes ahead, rather than by the pool's per-minute idle metric after the sessions went unserved.
    // Each session counts once: its entry goes once its start is queued below.
    await raisePoolFor(deps, due.length);
  }
  let queued = 0;
  for (const entry of due) {
    try {
      await queueScheduledStart(deps, entry, now);
      queued++;
    } catch (err) {
      // The entry stays listed: the next run queues it (a late start is found up to 10 min after join_at).
      deps.log.error('scheduler: could not queue a scheduled start', { bot_id: entry.botId, err });
    }
  }
  deps.log.info('scheduler run', { due: due.length, queued });
  return queued;
}

/** Adds idle bots for `upcoming` scheduled sessions; a failure is logged (they would start cold), never thrown. */
async function raisePoolFor(deps: SchedulerDeps, upcoming: number): Promise<void> {
  try {
    const { desired, max } = await deps.poolScaler!.grow(upcoming);
    if (desired >= max)
      deps.log.warn('warm pool at its maximum: scheduled sessions beyond it start cold', {
        max,
        wanted: upcoming,
      });
    else deps.log.info('warm pool raised for scheduled sessions', { to: desired });
  } catch (err) {
    deps.log.error('scheduler: could not raise the warm pool', { err, upcoming });
  }
}

export interface StartScheduledDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'accounts' | 'retention'>;
  config: ScheduleConfig;
  runner: TaskRunner;
  outbox: Outbox;
  /** The pool's wake-up (POOL_QUEUE_URL); without it the fallback serves the session cold. */
  poolQueue?: PoolQueue;
  log: Logger;
}

/**
 * A scheduled session's moment: with the pool, it is offered from now (a pooled bot claims it and waits for join_at
 * in the room's page) and the usual cold fallback follows POOL_CLAIM_TIMEOUT_MS later; without it, its task starts now.
 * Nothing happens to a session cancelled, ended or handed out already (a repeated message).
 */
export async function startScheduled(
  deps: StartScheduledDeps,
  request: StartScheduledRequest,
  now: Date,
): Promise<'offered' | 'started' | 'skipped' | 'claimed' | 'ended' | 'left' | 'failed' | 'requeued'> {
  const pooled = deps.config.BOT_POOL_SIZE > 0;
  if (!(await deps.stores.sessions.dispatchScheduled(request.bot_id, now.toISOString(), pooled)))
    return 'skipped';
  const reason = pooled ? 'no pooled bot claimed the scheduled session in time' : 'scheduled join';
  if (!pooled) return startColdIfUnclaimed(deps, startColdRequest(request.bot_id, reason), now);
  await deps.outbox.send(startColdRequest(request.bot_id, reason), {
    delaySeconds: Math.ceil(deps.config.POOL_CLAIM_TIMEOUT_MS / 1000),
  });
  // Wakes one idle pooled bot now, as the join does. A lost wake-up costs time, not the session (the fallback).
  await deps.poolQueue?.offer(request.bot_id).catch((err) =>
    deps.log.warn('could not wake the pool; the fallback will start the bot', {
      bot_id: request.bot_id,
      err,
    }),
  );
  return 'offered';
}

/** A scheduled session no bot was given yet: a leave cancels it (no task ever starts, nothing is charged). */
export function awaitsDispatch(s: Pick<BotSession, 'joinAt' | 'dispatchedAt'>): boolean {
  return Boolean(s.joinAt && !s.dispatchedAt);
}
