// Lambda entry: the scheduler of scheduled joins (EventBridge, every minute): queues the starts due soon and raises
// the warm pool for them (core/bots/scheduled-joins.ts).
import { runScheduler } from '../../core/bots/scheduled-joins';
import { flushingMetrics, lambdaAdapters, lambdaEntry } from '../runtime';

export const handler = lambdaEntry(
  'scheduler',
  flushingMetrics(async () => {
    const adapters = lambdaAdapters('scheduler');
    const { stores, config, outbox, log, poolScaler } = adapters;
    const queued = await runScheduler(
      { stores, config, outbox, log, ...(poolScaler && { poolScaler }) },
      new Date(),
    );
    return { queued };
  }),
);
