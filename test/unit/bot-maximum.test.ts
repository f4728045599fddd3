// The deployment's maximum of bots (MAX_BOTS): the join's refusal (503 capacity_exhausted, Retry-After) and the ECS
// adapter's count of the cluster's tasks, one DescribeClusters per process every few seconds.
import { DescribeClustersCommand, ECSClient } from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { botCountTtlMs, EcsTaskRunner } from '../../core/adapters/ecs/ecs-task-runner';
import { refuseBeyondBotMaximum } from '../../core/bots/bot-maximum';
import { ApiError } from '../../core/errors';
import { createLogger } from '../../core/log';

const log = createLogger('silent');
const config = (MAX_BOTS: number) => ({ MAX_BOTS });

describe('refuseBeyondBotMaximum', () => {
  it('lets a join by under the maximum, and asks nothing without one', async () => {
    let asked = 0;
    const runner = {
      botCount: async () => {
        asked++;
        return 4;
      },
    };
    await refuseBeyondBotMaximum({ runner, config: config(5), log });
    await refuseBeyondBotMaximum({ runner, config: config(0), log });
    expect(asked).toBe(1);
  });

  it('refuses a join at the maximum: 503 capacity_exhausted with Retry-After', async () => {
    const err = await refuseBeyondBotMaximum({
      runner: { botCount: async () => 5 },
      config: config(5),
      log,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'capacity_exhausted', status: 503, extras: { retryAfter: 60 } });
  });

  it('a count it cannot read does not stop the join (the platform quota still does)', async () => {
    const runner = {
      botCount: async (): Promise<number> => {
        throw new Error('AccessDenied');
      },
    };
    await expect(refuseBeyondBotMaximum({ runner, config: config(1), log })).resolves.toBeUndefined();
  });
});

describe('EcsTaskRunner.botCount', () => {
  const ecs = mockClient(ECSClient);
  let now = 0;
  const runner = () =>
    new EcsTaskRunner(
      new ECSClient({ region: 'us-east-1' }),
      {
        cluster: 'arn:aws:ecs:us-east-1:111122223333:cluster/bots',
        taskDefinition: 'bot:1',
        containerName: 'bot',
        subnets: [],
        securityGroups: [],
        assignPublicIp: true,
        capacityProviders: ['FARGATE'],
      },
      { now: () => now },
    );
  beforeEach(() => {
    ecs.reset();
    now = 0;
  });

  it('counts running and pending tasks from one DescribeClusters, reused for a few seconds', async () => {
    ecs.on(DescribeClustersCommand).resolves({ clusters: [{ runningTasksCount: 7, pendingTasksCount: 3 }] });
    const r = runner();
    expect(await Promise.all([r.botCount(), r.botCount()])).toEqual([10, 10]);
    now = botCountTtlMs - 1;
    await r.botCount();
    expect(ecs.commandCalls(DescribeClustersCommand)).toHaveLength(1);
    expect(ecs.commandCalls(DescribeClustersCommand)[0]!.args[0].input).toEqual({
      clusters: ['arn:aws:ecs:us-east-1:111122223333:cluster/bots'],
    });
    ecs.on(DescribeClustersCommand).resolves({ clusters: [{ runningTasksCount: 12, pendingTasksCount: 0 }] });
    now = botCountTtlMs;
    expect(await r.botCount()).toBe(12);
    expect(ecs.commandCalls(DescribeClustersCommand)).toHaveLength(2);
  });

  it('does not keep a failed count: the next join asks again', async () => {
    ecs
      .on(DescribeClustersCommand)
      .rejectsOnce(new Error('ThrottlingException'))
      .resolves({
        clusters: [{ runningTasksCount: 1, pendingTasksCount: 0 }],
      });
    const r = runner();
    await expect(r.botCount()).rejects.toThrow('ThrottlingException');
    expect(await r.botCount()).toBe(1);
  });
});
