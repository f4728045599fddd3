// A RunTask call that never answers is given up within the join's retry budget (a 503 then, not the join Lambda's
// timeout): the real ECS client against a local endpoint that accepts the request and never replies.
import { ECSClient } from '@aws-sdk/client-ecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EcsTaskRunner } from '../../core/adapters/ecs/ecs-task-runner';
import { TaskCapacityError } from '../../core/ports/task-runner';
import { type SilentServer, silentServer } from '../support/silent-server';

let server: SilentServer;
beforeAll(async () => {
  server = await silentServer();
});
afterAll(async () => {
  await server?.close();
});

/** The real ECS client against the local endpoint that never replies. */
const runnerAgainstSilentServer = (settings: { retryBudgetMs?: number } = {}) =>
  new EcsTaskRunner(
    new ECSClient({
      region: 'eu-west-1',
      endpoint: server.endpoint,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    }),
    {
      cluster: 'bots',
      taskDefinition: 'bot:1',
      containerName: 'bot',
      subnets: ['subnet-a'],
      securityGroups: ['sg-1'],
      assignPublicIp: true,
      capacityProviders: ['FARGATE'],
      ...settings,
    },
  );

describe('EcsTaskRunner with a RunTask call that hangs', () => {
  it('gives up within the retry budget with a TaskCapacityError', async () => {
    const runner = runnerAgainstSilentServer({ retryBudgetMs: 1_500 });
    const started = Date.now();
    await expect(runner.start('5b0c2d8e-4f1a-4c3b-9d2e-7a6f5e4d3c2b')).rejects.toBeInstanceOf(
      TaskCapacityError,
    );
    // The SDK's own request timeout is 10 s per try: only the budget's abort ends it this soon.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests()).toBeGreaterThanOrEqual(1);
  }, 20_000);

  it('sends the call with a fractional time left (a clock of fractional milliseconds), and still gives up in time', async () => {
    const runner = runnerAgainstSilentServer();
    const before = server.requests();
    // AbortSignal.timeout refuses 300.5: the call must still be made, and ended by its deadline.
    const tried = await runner.tryLaunch('5b0c2d8e-4f1a-4c3b-9d2e-7a6f5e4d3c2b', 'FARGATE', {}, 300.5);
    expect(tried).toMatchObject({ refused: 'unavailable' });
    expect(server.requests()).toBe(before + 1);
  }, 20_000);
});
