// The Lambda composition root: builds the AWS adapters once per cold start from the environment.
import { ECSClient } from '@aws-sdk/client-ecs';
import { dynamoDocumentClient } from '../core/adapters/aws-clients';
import { EcsTaskRunner } from '../core/adapters/ecs/ecs-task-runner';
import { loadConfig } from '../core/config';
import { buildServiceDeps, type ServiceDeps } from '../core/deps';
import { createLogger } from '../core/log';

let cached: Promise<ServiceDeps> | undefined;

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function lambdaDeps(): Promise<ServiceDeps> {
  cached ??= (async () => {
    const config = loadConfig();
    const env = process.env;
    const runner = new EcsTaskRunner(new ECSClient({ region: config.AWS_REGION }), {
      cluster: env.BOT_CLUSTER_ARN ?? '',
      taskDefinition: env.BOT_TASK_DEFINITION_ARN ?? '',
      containerName: env.BOT_CONTAINER_NAME ?? 'bot',
      subnets: list(env.BOT_SUBNET_IDS),
      securityGroups: list(env.BOT_SECURITY_GROUP_IDS),
      assignPublicIp: env.BOT_ASSIGN_PUBLIC_IP !== 'false',
      capacityProviders: list(env.BOT_CAPACITY_PROVIDERS ?? 'FARGATE_SPOT,FARGATE'),
    });
    return buildServiceDeps({ doc: dynamoDocumentClient(config), tableName: config.TABLE_NAME }, config, {
      runner,
      log: createLogger(config.LOG_LEVEL),
    });
  })();
  return cached;
}
