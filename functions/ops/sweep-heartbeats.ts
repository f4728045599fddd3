// Lambda entry: scheduled sweeper (EventBridge schedule): stale heartbeats, orphaned holds, expired meeting content.
import { reconcileHolds, reconcileSettings } from '../../core/bots/reconcile-holds';
import { sweepSettings, sweepStaleSessions } from '../../core/bots/sweep-stale';
import { alarmLogMessages } from '../../core/bots/task-stopped';
import { finishPendingDeletions, sweepDeletionBudgetMs } from '../../core/data/delete-meeting-data';
import { sweepRetention } from '../../core/data/retention';
import { flushingMetrics, lambdaAdapters, lambdaEntry } from '../runtime';

export const handler = lambdaEntry(
  'sweeper',
  flushingMetrics(async () => {
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
