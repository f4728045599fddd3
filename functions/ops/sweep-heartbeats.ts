// Lambda entry: scheduled sweeper (EventBridge schedule): stale heartbeats, orphaned holds, expired meeting content.
import type { Context } from 'aws-lambda';
import { reconcileHolds, reconcileSettings } from '../../core/bots/reconcile-holds';
import { sweepSettings, sweepStaleSessions } from '../../core/bots/sweep-stale';
import { alarmLogMessages } from '../../core/bots/task-stopped';
import { finishPendingDeletions, sweepDeletionBudgetMs } from '../../core/data/delete-meeting-data';
import { retentionDeadline, sweepRetention } from '../../core/data/retention';
import { flushingMetrics, lambdaAdapters, lambdaEntry } from '../runtime';

export const handler = lambdaEntry(
  'sweeper',
  flushingMetrics(async (_event: unknown, context?: Context) => {
    const adapters = lambdaAdapters('sweeper');
    const { stores, config, outbox, log } = adapters;
    const failed = await sweepStaleSessions({ stores, config, outbox, log }, sweepSettings(config));
    log.info(alarmLogMessages.sweepDone, { failed: failed.length });
    // Holds whose session was never written (a join that died half-way) go back to their accounts.
    const released = await reconcileHolds({ stores, log }, reconcileSettings(config));
    // Deletions cut off half-way (the data function's deadline or timeout, a crash) are finished, within a budget.
    const deletions = await finishPendingDeletions({
      stores,
      recordings: adapters.recordings,
      log,
      now: () => new Date(),
      deadline: new Date(Date.now() + sweepDeletionBudgetMs),
    });
    // Content past its account's retention is deleted exactly as a customer's deletion does; the tombstone stays.
    const retention = await sweepRetention({
      stores,
      config,
      recordings: adapters.recordings,
      outbox,
      log,
      now: () => new Date(),
      // What is left of the function's 60 s after the steps above, less a margin (core/data/retention.ts).
      deadline: retentionDeadline(new Date(), context?.getRemainingTimeInMillis?.()),
    });
    if (retention.failed.length > 0) log.error('retention sweep left bots due', { failed: retention.failed });
    if (deletions.failed.length > 0)
      log.error('pending deletions left unfinished', { failed: deletions.failed });
    return {
      failed,
      releasedHolds: released.length,
      deletionsFinished: deletions.finished.length,
      retentionDeleted: retention.deleted.length,
    };
  }),
);
