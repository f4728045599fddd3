// Lambda entry: scheduled heartbeat sweeper (EventBridge schedule).
import { dynamoDocumentClient, sqsClient } from '../../core/adapters/aws-clients';
import { SqsQueue } from '../../core/adapters/sqs/sqs-queue';
import { sweepSettings, sweepStaleSessions } from '../../core/bots/sweep-stale';
import { alarmLogMessages } from '../../core/bots/task-stopped';
import { loadConfig } from '../../core/config';
import { buildStores } from '../../core/deps';
import { createLogger } from '../../core/log';

export const handler = async () => {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, { component: 'sweeper' });
  const failed = await sweepStaleSessions(
    {
      stores: buildStores({ doc: dynamoDocumentClient(config), tableName: config.TABLE_NAME }, config),
      config,
      results: new SqsQueue(sqsClient(config), config.RESULTS_QUEUE_URL),
      log,
    },
    sweepSettings(config),
  );
  log.info(alarmLogMessages.sweepDone, { failed: failed.length });
  return { failed };
};
