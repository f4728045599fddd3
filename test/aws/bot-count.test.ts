// The ECS adapter's count of the bot cluster's tasks (MAX_BOTS) against moto's ECS: the DescribeClusters request and
// its answer as the SDK parses it (a new cluster runs none; a cluster that is not there is an error, not zero).
// moto's RunTask on Fargate answers an error page here, so the sum of running and pending tasks is checked with the
// SDK mocked (test/unit/bot-maximum.test.ts).
import { CreateClusterCommand, ECSClient } from '@aws-sdk/client-ecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EcsTaskRunner } from '../../core/adapters/ecs/ecs-task-runner';
import { requires, skipReason } from '../support/requirements';
import { clientConfig } from './support/deployed-stack';
import { type Moto, startMoto } from './support/moto';

const skip = skipReason(requires.motoServer());

describe.skipIf(skip)('EcsTaskRunner.botCount against moto', () => {
  let moto: Moto;
  let ecs: ECSClient;

  beforeAll(async () => {
    moto = await startMoto();
    ecs = new ECSClient(clientConfig(moto.endpoint));
  }, 60_000);
  afterAll(async () => {
    ecs?.destroy();
    await moto?.stop();
  });

  const runner = (cluster: string) =>
    new EcsTaskRunner(ecs, {
      cluster,
      taskDefinition: 'bot',
      containerName: 'bot',
      subnets: [],
      securityGroups: [],
      assignPublicIp: false,
      capacityProviders: [],
    });

  it('a new cluster runs no bots; a missing cluster is an error, not a count of zero', async () => {
    const { cluster } = await ecs.send(new CreateClusterCommand({ clusterName: 'bots' }));
    expect(await runner(cluster!.clusterArn!).botCount()).toBe(0);
    await expect(runner('arn:aws:ecs:us-east-1:123456789012:cluster/none').botCount()).rejects.toThrow();
  });
});
