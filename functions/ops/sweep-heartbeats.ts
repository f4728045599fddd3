// Lambda entry: scheduled heartbeat sweeper (EventBridge schedule).
import { reconcileHolds, reconcileSettings } from '../../core/bots/reconcile-holds';
import { sweepSettings, sweepStaleSessions } from '../../core/bots/sweep-stale';
import { alarmLogMessages } from '../../core/bots/task-stopped';
import { flushingMetrics, lambdaAdapters, lambdaEntry } from '../runtime';

export const handler = lambdaEntry(
  'sweeper',
  flushingMetrics(async () => {
    const { stores, config, outbox, log } = lambdaAdapters('sweeper');
    const failed = await sweepStaleSessions({ stores, config, outbox, log }, sweepSettings(config));
    log.info(alarmLogMessages.sweepDone, { failed: failed.length });
    // Holds whose session was never written (a join that died half-way) go back to their accounts.
    const released = await reconcileHolds({ stores, log }, reconcileSettings(config));
    return { failed, releasedHolds: released.length };
  }),
);
