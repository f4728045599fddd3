// Lambda entry: scheduled heartbeat sweeper (EventBridge schedule).
import { sweepSettings, sweepStaleSessions } from '../../core/bots/sweep-stale';
import { alarmLogMessages } from '../../core/bots/task-stopped';
import { lambdaAdapters } from '../runtime';

export const handler = async () => {
  const { stores, config, resultsQueue: results, log } = lambdaAdapters('sweeper');
  const failed = await sweepStaleSessions({ stores, config, results, log }, sweepSettings(config));
  log.info(alarmLogMessages.sweepDone, { failed: failed.length });
  return { failed };
};
