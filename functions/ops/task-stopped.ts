// Lambda entry: EventBridge "ECS Task State Change" (lastStatus STOPPED) → a bot that died is failed.
import type { EventBridgeEvent } from 'aws-lambda';
import { dynamoDocumentClient, sqsClient } from '../../core/adapters/aws-clients';
import { SqsQueue } from '../../core/adapters/sqs/sqs-queue';
import { onTaskStopped, type TaskStoppedDeps } from '../../core/bots/task-stopped';
import { loadConfig } from '../../core/config';
import { buildStores } from '../../core/deps';
import { createLogger } from '../../core/log';

export interface EcsTaskStateDetail {
  taskArn: string;
  lastStatus: string;
  startedBy?: string;
  stoppedReason?: string;
  stopCode?: string;
  containers?: { name: string; exitCode?: number; reason?: string }[];
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function makeTaskStoppedHandler(deps: TaskStoppedDeps, containerName: string) {
  return async (event: EventBridgeEvent<'ECS Task State Change', EcsTaskStateDetail>) => {
    const d = event.detail;
    const botId = d.startedBy;
    if (d.lastStatus !== 'STOPPED' || !botId || !uuid.test(botId)) return { outcome: 'ignored' as const };
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
    return { outcome: await onTaskStopped(deps, { botId, reason: reason || 'the task stopped', clean }) };
  };
}

let instance: ReturnType<typeof makeTaskStoppedHandler> | undefined;

export const handler = (event: EventBridgeEvent<'ECS Task State Change', EcsTaskStateDetail>) => {
  if (!instance) {
    const config = loadConfig();
    instance = makeTaskStoppedHandler(
      {
        stores: buildStores({ doc: dynamoDocumentClient(config), tableName: config.TABLE_NAME }, config),
        config,
        results: new SqsQueue(sqsClient(config), config.RESULTS_QUEUE_URL),
        log: createLogger(config.LOG_LEVEL, { component: 'task-stopped' }),
      },
      process.env.BOT_CONTAINER_NAME ?? 'bot',
    );
  }
  return instance(event);
};
