// The ECS side of the bot runtime with the AWS SDK mocked (aws-sdk-client-mock): the EcsTaskRunner's RunTask and
// StopTask calls, the join and leave Lambdas built by functions/runtime.ts from the environment the CDK stack sets,
// and the task-stopped Lambda on ECS task-state events.

import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandInput,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  ECSClient,
  ECSServiceException,
  ListTasksCommand,
  RunTaskCommand,
  StopTaskCommand,
} from '@aws-sdk/client-ecs';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, EventBridgeEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { hashApiKey } from '../../core/accounts/secrets';
import { type EcsRunnerSettings, EcsTaskRunner } from '../../core/adapters/ecs/ecs-task-runner';
import { MemoryMetrics } from '../../core/adapters/metrics/memory-metrics';
import { metricNames, useMetricsSink } from '../../core/metrics';
import { TaskCapacityError } from '../../core/ports/task-runner';

const ecs = mockClient(ECSClient);
const ddb = mockClient(DynamoDBClient);

// The table as plain values: the fakes below see and return items the way the stores write and read them.
type Item = Record<string, unknown>;
const plain = (m: Record<string, AttributeValue> | undefined) => (m ? unmarshall(m) : undefined);
const wire = (item: Item | undefined) => (item ? marshall(item, { removeUndefinedValues: true }) : undefined);
const fakeGet =
  (read: (key: Item) => Item | undefined) => (input: { Key?: Record<string, AttributeValue> }) => ({
    Item: wire(read(plain(input.Key) ?? {})),
  });
/** The UpdateItem requests sent, with plain keys and values. */
const updates = () =>
  ddb.commandCalls(UpdateItemCommand).map((c) => {
    const input = c.args[0].input;
    return {
      ...input,
      Key: plain(input.Key),
      ExpressionAttributeValues: plain(input.ExpressionAttributeValues),
    };
  });
const sqs = mockClient(SQSClient);
afterAll(() => {
  ecs.restore();
  ddb.restore();
  sqs.restore();
});

const cluster = 'arn:aws:ecs:eu-west-1:111122223333:cluster/meeting-bot-test';
const controlQueueUrl = 'https://sqs.eu-west-1.amazonaws.com/111122223333/control';
const taskDefinition = 'arn:aws:ecs:eu-west-1:111122223333:task-definition/meeting-bot-test-bot:7';
const botId = '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
const taskArn = (id = 'abc123') => `arn:aws:ecs:eu-west-1:111122223333:task/meeting-bot-test/${id}`;
const capacityFailure = { reason: 'Capacity is unavailable at this time. Please try again later.' };
/** An ECS error as the SDK builds it from the wire (name, $fault, $metadata, message). */
const sdkError = (name: string, httpStatusCode: number, message: string) =>
  new ECSServiceException({
    name,
    message,
    $fault: httpStatusCode >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode },
  });
/** What ECS answers past 20 RunTask calls a second (request-throttling.html: ThrottlingException, "Rate exceeded"). */
const throttling = () => sdkError('ThrottlingException', 400, 'Rate exceeded');

const settings: EcsRunnerSettings = {
  cluster,
  taskDefinition,
  containerName: 'bot',
  subnets: ['subnet-a', 'subnet-b'],
  securityGroups: ['sg-1'],
  assignPublicIp: true,
  capacityProviders: ['FARGATE_SPOT', 'FARGATE'],
};

describe('EcsTaskRunner', () => {
  const sleeps: number[] = [];
  // A virtual clock: each sleep moves it on, so the retry budget runs out without waiting for it.
  let clockMs = 0;
  let random = () => 1;
  const runner = (more: Partial<EcsRunnerSettings> = {}) =>
    new EcsTaskRunner(
      new ECSClient({ region: 'eu-west-1' }),
      { ...settings, ...more },
      {
        now: () => clockMs,
        sleep: async (ms) => {
          sleeps.push(ms);
          clockMs += ms;
        },
        random: () => random(),
      },
    );
  beforeEach(() => {
    ecs.reset();
    sleeps.length = 0;
    clockMs = 0;
    random = () => 1;
  });

  it('starts one task per bot: idempotent by bot id, Spot first, public IP, only BOT_ID in the overrides', async () => {
    ecs.on(RunTaskCommand).resolves({ tasks: [{ taskArn: taskArn() }], failures: [] });
    expect(await runner().start(botId)).toEqual({ taskRef: taskArn() });
    const calls = ecs.commandCalls(RunTaskCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input).toMatchObject({
      cluster,
      taskDefinition,
      count: 1,
      startedBy: botId,
      tags: [{ key: 'bot_id', value: botId }],
      capacityProviderStrategy: [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
      networkConfiguration: {
        awsvpcConfiguration: {
          subnets: ['subnet-a', 'subnet-b'],
          securityGroups: ['sg-1'],
          assignPublicIp: 'ENABLED',
        },
      },
    });
    // The client token is the bot id (per capacity provider: ECS refuses one token with other parameters), so a
    // retried join never starts a second task; ECS allows at most 64 characters.
    expect(input.clientToken).toBe(`${botId}-FARGATE_SPOT`);
    expect(input.clientToken!.length).toBeLessThanOrEqual(64);
    // No launch type next to a capacity provider strategy (ECS rejects both), and no secret in the overrides.
    expect(input.launchType).toBeUndefined();
    expect(input.overrides).toEqual({
      containerOverrides: [{ name: 'bot', environment: [{ name: 'BOT_ID', value: botId }] }],
    });
  });

  it('starts a replacement on on-demand FARGATE only, with BOT_ATTEMPT and a client token of its own', async () => {
    ecs.on(RunTaskCommand).resolves({ tasks: [{ taskArn: taskArn('r2') }], failures: [] });
    expect(await runner().start(botId, { attempt: 2, onDemand: true })).toEqual({ taskRef: taskArn('r2') });
    const input = ecs.commandCalls(RunTaskCommand)[0]!.args[0].input;
    expect(input.capacityProviderStrategy).toEqual([{ capacityProvider: 'FARGATE', weight: 1 }]);
    expect(input.startedBy).toBe(botId);
    expect(input.clientToken).toBe(`${botId}-r2-FARGATE`);
    expect(input.clientToken!.length).toBeLessThanOrEqual(64);
    expect(input.overrides).toEqual({
      containerOverrides: [
        {
          name: 'bot',
          environment: [
            { name: 'BOT_ID', value: botId },
            { name: 'BOT_ATTEMPT', value: '2' },
          ],
        },
      ],
    });
  });

  it('retries a capacity failure, then falls back from FARGATE_SPOT to FARGATE', async () => {
    ecs
      .on(RunTaskCommand)
      .resolvesOnce({ tasks: [], failures: [capacityFailure] })
      .resolvesOnce({ tasks: [], failures: [{ reason: 'RESOURCE:FARGATE' }] })
      .resolves({ tasks: [{ taskArn: taskArn('ondemand') }], failures: [] });
    expect(await runner().start(botId)).toEqual({ taskRef: taskArn('ondemand') });
    const strategies = ecs.commandCalls(RunTaskCommand).map((c) => c.args[0].input.capacityProviderStrategy);
    expect(strategies).toEqual([
      [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
      [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
      [{ capacityProvider: 'FARGATE', weight: 1 }],
    ]);
    expect(ecs.commandCalls(RunTaskCommand).map((c) => c.args[0].input.clientToken)).toEqual([
      `${botId}-FARGATE_SPOT`,
      `${botId}-FARGATE_SPOT`,
      `${botId}-FARGATE`,
    ]);
    // A retry on the same provider waits; the next provider is tried at once (its capacity is its own).
    expect(sleeps).toEqual([200]);
  });

  it('gives up with a TaskCapacityError naming the reasons when no capacity provider has capacity', async () => {
    ecs.on(RunTaskCommand).resolves({ tasks: [], failures: [capacityFailure] });
    const err = await runner({ retryAfterSeconds: 7 })
      .start(botId)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskCapacityError);
    expect((err as TaskCapacityError).message).toMatch(/FARGATE: Capacity is unavailable/);
    expect((err as TaskCapacityError).retryAfterSeconds).toBe(7);
    expect(ecs.commandCalls(RunTaskCommand)).toHaveLength(4);
  });

  it('retries throttling with jittered exponential backoff on the same provider, then starts the task', async () => {
    ecs
      .on(RunTaskCommand)
      .rejectsOnce(throttling())
      .rejectsOnce(throttling())
      .rejectsOnce(throttling())
      .resolves({ tasks: [{ taskArn: taskArn('after-throttling') }], failures: [] });
    random = () => 0.5;
    expect(await runner({ retryBaseMs: 100 }).start(botId)).toEqual({ taskRef: taskArn('after-throttling') });
    const runs = ecs.commandCalls(RunTaskCommand).map((c) => c.args[0].input);
    expect(runs.map((r) => r.capacityProviderStrategy![0]!.capacityProvider)).toEqual(
      Array(4).fill('FARGATE_SPOT'),
    );
    // The same client token each time: a call ECS did take before answering with an error starts no second task.
    expect(new Set(runs.map((r) => r.clientToken))).toEqual(new Set([`${botId}-FARGATE_SPOT`]));
    // Equal jitter: half of 100, 200, 400 fixed and half random (0.5 here).
    expect(sleeps).toEqual([75, 150, 300]);
  });

  it('spreads the waits of bots throttled together (the random half), never below half the backoff', async () => {
    const waits = async (r: number) => {
      ecs.reset();
      sleeps.length = 0;
      random = () => r;
      ecs
        .on(RunTaskCommand)
        .rejectsOnce(throttling())
        .resolves({ tasks: [{ taskArn: taskArn() }] });
      await runner({ retryBaseMs: 1000 }).start(botId);
      return sleeps[0];
    };
    expect(await waits(0)).toBe(500);
    expect(await waits(0.5)).toBe(750);
  });

  it('gives up with a TaskCapacityError once the retry budget is spent, waiting at most 5 s at a time', async () => {
    ecs.on(RunTaskCommand).rejects(throttling());
    const err = await runner({ retryBudgetMs: 20_000 })
      .start(botId)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskCapacityError);
    expect((err as Error).message).toMatch(/within 20 s .*ThrottlingException: Rate exceeded/);
    expect(clockMs).toBeLessThanOrEqual(20_000);
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(5_000);
    expect(ecs.commandCalls(RunTaskCommand).length).toBe(sleeps.length + 1);
    expect(ecs.commandCalls(RunTaskCommand).length).toBeGreaterThan(5);
  });

  it('retries every limit and server fault RunTask answers with, by name, status or message', async () => {
    for (const refusal of [
      throttling(),
      sdkError('ClientException', 400, 'Rate exceeded'),
      sdkError('LimitExceededException', 400, 'The limit was exceeded'),
      sdkError(
        'InvalidParameterException',
        400,
        'Error retrieving security group information: Request limit exceeded.',
      ),
      sdkError(
        'ClientException',
        400,
        "You've reached the limit on the number of tasks you can run concurrently",
      ),
      sdkError(
        'ClientException',
        400,
        "You've reached the limit on the number of vCPUs you can run concurrently",
      ),
      sdkError('ServerException', 500, 'Service Unavailable. Please try again later.'),
      sdkError('UnknownError', 503, ''),
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    ]) {
      ecs.reset();
      ecs
        .on(RunTaskCommand)
        .rejectsOnce(refusal)
        .resolves({ tasks: [{ taskArn: taskArn() }] });
      expect(await runner().start(botId), refusal.message).toEqual({ taskRef: taskArn() });
      expect(ecs.commandCalls(RunTaskCommand), refusal.message).toHaveLength(2);
    }
  });

  it('does not retry an error no wait can fix (access, a missing cluster, an invalid parameter)', async () => {
    for (const refusal of [
      sdkError('AccessDeniedException', 400, 'User is not authorized to perform: ecs:RunTask'),
      sdkError('ClusterNotFoundException', 400, 'Cluster not found.'),
      sdkError('InvalidParameterException', 400, 'TaskDefinition is inactive'),
      sdkError('ClientException', 400, 'Unable to assume the service linked role.'),
    ]) {
      ecs.reset();
      ecs.on(RunTaskCommand).rejects(refusal);
      const err = await runner()
        .start(botId)
        .catch((e: unknown) => e);
      expect(err, refusal.message).toBe(refusal);
      expect(err).not.toBeInstanceOf(TaskCapacityError);
      expect(ecs.commandCalls(RunTaskCommand)).toHaveLength(1);
    }
  });

  it('does not retry a failure that is not about capacity', async () => {
    ecs
      .on(RunTaskCommand)
      .resolves({ tasks: [], failures: [{ reason: 'MISSING', detail: 'task definition' }] });
    await expect(runner().start(botId)).rejects.toThrow('RunTask failed: MISSING (task definition)');
    expect(ecs.commandCalls(RunTaskCommand)).toHaveLength(1);
  });

  it('stops the bot task on leave: the known task, or the one startedBy the bot id; none left, nothing to stop', async () => {
    ecs.on(StopTaskCommand).resolves({});
    await runner().stop(botId, taskArn());
    expect(ecs.commandCalls(StopTaskCommand).map((c) => c.args[0].input)).toEqual([
      { cluster, task: taskArn(), reason: `leave requested for bot ${botId}` },
    ]);
    expect(ecs.commandCalls(ListTasksCommand)).toHaveLength(0);

    ecs.on(ListTasksCommand, { cluster, startedBy: botId }).resolves({ taskArns: [taskArn('found')] });
    await runner().stop(botId, undefined);
    expect(ecs.commandCalls(StopTaskCommand).map((c) => c.args[0].input.task)).toEqual([
      taskArn(),
      taskArn('found'),
    ]);

    ecs.on(ListTasksCommand, { cluster, startedBy: botId }).resolves({ taskArns: [] });
    await runner().stop(botId, undefined);
    expect(ecs.commandCalls(StopTaskCommand)).toHaveLength(2);
  });
});

// The Lambdas as deployed: the environment below is what infra/constructs/bot-runtime.ts gives join and leave.
describe('join and leave Lambdas on ECS', () => {
  const apiKey = `mbk_${'A'.repeat(43)}`;
  const accountId = 'acct_test';
  const items = new Map<string, Record<string, unknown>>();
  const keyOf = (k: { pk?: unknown; sk?: unknown } | undefined) => `${k?.pk}|${k?.sk}`;
  let join: (e: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
  let leave: (e: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

  beforeAll(async () => {
    Object.assign(process.env, {
      AWS_REGION: 'eu-west-1',
      TABLE_NAME: 'meeting-bot-test',
      BOT_RUNTIME: JSON.stringify({
        BOT_CLUSTER_ARN: cluster,
        BOT_TASK_DEFINITION_ARN: taskDefinition,
        BOT_CONTAINER_NAME: 'bot',
        BOT_SUBNET_IDS: 'subnet-a,subnet-b',
        BOT_SECURITY_GROUP_IDS: 'sg-1',
        BOT_ASSIGN_PUBLIC_IP: 'true',
        BOT_CAPACITY_PROVIDERS: 'FARGATE_SPOT,FARGATE',
      }),
      MEETING_BOT_TEST_TUNABLES: JSON.stringify({
        KEY_CACHE_TTL_MS: 0,
        RUN_TASK_RETRY_BUDGET_MS: 1000,
        RUN_TASK_RETRY_BASE_MS: 50,
        CAPACITY_RETRY_AFTER_SECONDS: 3,
      }),
    });
    ({ handler: join } = await import('../../functions/http/join'));
    // The Lambda's adapters first (they set the process's metrics sink), so a test can put its own in after.
    (await import('../../functions/runtime')).lambdaAdapters();
    ({ handler: leave } = await import('../../functions/http/leave'));
  });

  beforeEach(() => {
    ecs.reset();
    ddb.reset();
    items.clear();
    items.set(`APIKEY#${hashApiKey(apiKey)}|APIKEY`, {
      key_id: 'key_test',
      account_id: accountId,
      hash: hashApiKey(apiKey),
    });
    // A small table: reads and writes of whole items; the account always holds one credit for each session.
    ddb.on(GetItemCommand).callsFake(
      fakeGet((key) => {
        if (keyOf(key).startsWith('ACCOUNT#')) {
          const holds = Object.fromEntries(
            [...items.values()].filter((i) => i.type === 'session').map((i) => [i.bot_id, 1]),
          );
          return { balance: 10, holds };
        }
        return items.get(keyOf(key));
      }),
    );
    const store = (item: Item | undefined) => item && items.set(keyOf(item), item);
    ddb.on(PutItemCommand).callsFake((input) => {
      store(plain(input.Item));
      return {};
    });
    ddb.on(BatchWriteItemCommand).callsFake((input: BatchWriteItemCommandInput) => {
      for (const r of Object.values(input.RequestItems ?? {}).flat()) store(plain(r.PutRequest?.Item));
      return { UnprocessedItems: {} };
    });
    ddb.on(UpdateItemCommand).resolves({});
    ddb.on(DeleteItemCommand).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [] });
  });

  const request = (path: string, body?: unknown, pathParameters?: Record<string, string>) =>
    ({
      rawPath: path,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      isBase64Encoded: false,
      pathParameters,
      requestContext: { requestId: 'req-1' },
    }) as unknown as APIGatewayProxyEventV2;

  /** The control-queue messages the join sent (its hand-over of a start ECS would not make now). */
  const controlMessages = () =>
    sqs.commandCalls(SendMessageCommand).map((c) => JSON.parse(c.args[0].input.MessageBody!));

  it('join: no capacity anywhere within the budget → 201, the start handed to the control plane, still held', async () => {
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    ecs.on(RunTaskCommand).resolves({ tasks: [], failures: [capacityFailure] });
    const res = await join(request('/api/bot/join', { room_url: 'https://acme.daily.co/standup' }));
    expect(res.statusCode).toBe(201);

    const runs = ecs.commandCalls(RunTaskCommand).map((c) => c.args[0].input);
    expect(runs.map((r) => r.capacityProviderStrategy![0]!.capacityProvider)).toEqual([
      'FARGATE_SPOT',
      'FARGATE_SPOT',
      'FARGATE',
      'FARGATE',
    ]);
    const id = runs[0]!.startedBy!;
    expect(JSON.parse(res.body!)).toMatchObject({ status: 'started', bot_id: id });
    expect(runs.every((r) => r.startedBy === id && r.clientToken!.startsWith(id))).toBe(true);
    expect(items.get(`BOT#${id}|SESSION`)).toMatchObject({ status: 'running', account_id: accountId });
    // The control plane starts it (already claimed cold: no claim race), paced, retrying for minutes.
    expect(controlMessages()).toEqual([
      expect.objectContaining({ kind: 'start_cold', bot_id: id, claimed: true, tries: 1 }),
    ]);
    // Nothing failed, nothing settled: the hold stays until the session ends.
    expect(updates().some((u) => Object.values(u.ExpressionAttributeValues ?? {}).includes('failed'))).toBe(
      false,
    );
  }, 10_000);

  it('join: RunTask throttled past the retry budget → 201 and handed over, never a 5xx', async () => {
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    ecs.on(RunTaskCommand).rejects(throttling());
    const sink = new MemoryMetrics();
    useMetricsSink(sink);
    const started = Date.now();
    const res = await join(request('/api/bot/join', { room_url: 'https://acme.daily.co/standup' }));
    useMetricsSink(undefined);
    expect(res.statusCode).toBe(201);
    // Counted: each refusal; the launch was not given up, so no launch failure.
    expect(sink.named(metricNames.runTaskRefusals, { refusal: 'throttled' }).length).toBe(
      ecs.commandCalls(RunTaskCommand).length,
    );
    expect(sink.named(metricNames.launchFailures, { stage: 'join' })).toHaveLength(0);
    // RUN_TASK_RETRY_BUDGET_MS is 1 s here: the join retried within it, and no longer.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(ecs.commandCalls(RunTaskCommand).length).toBeGreaterThan(2);
    expect(controlMessages()).toEqual([expect.objectContaining({ kind: 'start_cold', claimed: true })]);
  }, 10_000);

  it('join: throttled and the hand-over cannot be sent → 503 capacity_unavailable, the hold returned', async () => {
    sqs.reset();
    sqs.on(SendMessageCommand).rejects(new Error('SQS is down'));
    ecs.on(RunTaskCommand).rejects(throttling());
    const sink = new MemoryMetrics();
    useMetricsSink(sink);
    const res = await join(request('/api/bot/join', { room_url: 'https://acme.daily.co/standup' }));
    useMetricsSink(undefined);
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['retry-after']).toBe('3');
    expect(JSON.parse(res.body!)).toMatchObject({
      error: 'capacity_unavailable',
      detail: expect.stringMatching(/nothing was started or charged/),
    });
    expect(sink.named(metricNames.launchFailures, { stage: 'join' })).toHaveLength(1);
    expect(sink.named(metricNames.joins, { outcome: 'capacity_unavailable' })).toHaveLength(1);
    const settle = updates().find(
      (u) => String(u.Key?.pk).startsWith('ACCOUNT#') && u.UpdateExpression?.includes('REMOVE holds'),
    );
    expect(settle?.ExpressionAttributeValues).toMatchObject({ ':net': 1, ':hold': 1 });
  }, 10_000);

  it("join: the account's Fargate quota reached → 503 capacity_exhausted with Retry-After, nothing held", async () => {
    sqs.reset();
    ecs
      .on(RunTaskCommand)
      .rejects(
        sdkError(
          'ClientException',
          400,
          "You've reached the limit on the number of vCPUs you can run concurrently",
        ),
      );
    const res = await join(request('/api/bot/join', { room_url: 'https://acme.daily.co/standup' }));
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['retry-after']).toBe('60');
    expect(JSON.parse(res.body!)).toMatchObject({ error: 'capacity_exhausted' });
    expect(controlMessages()).toEqual([]);
    const id = ecs.commandCalls(RunTaskCommand)[0]!.args[0].input.startedBy!;
    const failed = updates().find(
      (u) => u.Key?.pk === `BOT#${id}` && Object.values(u.ExpressionAttributeValues ?? {}).includes('failed'),
    );
    expect(Object.values(failed!.ExpressionAttributeValues!)).toContain('capacity_exhausted');
    const settle = updates().find(
      (u) => String(u.Key?.pk).startsWith('ACCOUNT#') && u.UpdateExpression?.includes('REMOVE holds'),
    );
    expect(settle?.ExpressionAttributeValues).toMatchObject({ ':net': 1, ':hold': 1 });
  }, 10_000);

  it('join: RunTask throttled twice, then launched → 201', async () => {
    ecs
      .on(RunTaskCommand)
      .rejectsOnce(throttling())
      .rejectsOnce(sdkError('ServerException', 500, 'Service Unavailable'))
      .resolves({ tasks: [{ taskArn: taskArn() }], failures: [] });
    const res = await join(request('/api/bot/join', { room_url: 'https://acme.daily.co/standup' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(ecs.commandCalls(RunTaskCommand)).toHaveLength(3);
  });

  it('join: a RunTask error no retry fixes (access denied) is still a 500 server_error, nothing charged', async () => {
    ecs
      .on(RunTaskCommand)
      .rejects(sdkError('AccessDeniedException', 400, 'not authorized to perform ecs:RunTask'));
    const res = await join(request('/api/bot/join', { room_url: 'https://acme.daily.co/standup' }));
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body!)).toMatchObject({ error: 'server_error' });
    expect(ecs.commandCalls(RunTaskCommand)).toHaveLength(1);
  });

  it('leave: records the stop request, then StopTask on the bot task of this cluster → 202', async () => {
    items.set(`BOT#${botId}|SESSION`, {
      pk: `BOT#${botId}`,
      sk: 'SESSION',
      type: 'session',
      bot_id: botId,
      account_id: accountId,
      status: 'running',
      provider: 'daily',
      room_url: 'https://acme.daily.co/standup',
      room_name: 'standup',
      bot_config: {},
      hold_credits: 1,
      created_at: new Date().toISOString(),
      started_at: new Date().toISOString(),
      task_ref: taskArn('running'),
    });
    ecs.on(StopTaskCommand).resolves({});
    const res = await leave(request(`/v1/bots/leave/${botId}`, undefined, { bot_id: botId }));
    expect(res.statusCode).toBe(202);
    expect(ecs.commandCalls(StopTaskCommand).map((c) => c.args[0].input)).toEqual([
      { cluster, task: taskArn('running'), reason: `leave requested for bot ${botId}` },
    ]);
    const stopRequest = updates().find((u) => u.UpdateExpression?.includes('stop_requested_at'));
    expect(stopRequest?.Key).toEqual({ pk: `BOT#${botId}`, sk: 'SESSION' });
  });
});

describe('task-stopped Lambda (EventBridge "ECS Task State Change")', () => {
  type Detail = import('../../functions/ops/task-stopped').EcsTaskStateDetail;
  let handler: (e: EventBridgeEvent<'ECS Task State Change', Detail>) => Promise<{ outcome: string }>;
  const died = '11111111-2222-4333-8444-555555555555';
  const finished = '22222222-3333-4444-8555-666666666666';
  const unknown = '33333333-4444-4555-8666-777777777777';
  const neverJoined = '44444444-5555-4666-8777-888888888888';
  /** Replaced twice already (MAX_REPLACEMENTS, 2 by default): its next loss fails the session. */
  const exhausted = '55555555-6666-4777-8888-999999999999';
  /** The RunTask overrides as the event carries them: BOT_ATTEMPT says which task of the session this was. */
  const overridesOf = (id: string, attempt: number) => ({
    containerOverrides: [
      {
        name: 'bot',
        environment: [
          { name: 'BOT_ID', value: id },
          { name: 'BOT_ATTEMPT', value: String(attempt) },
        ],
      },
    ],
  });
  const lost = (reason: string) => ({ at: new Date(Date.now() - 60_000).toISOString(), reason });

  const session = (id: string) => ({
    pk: `BOT#${id}`,
    sk: 'SESSION',
    bot_id: id,
    account_id: 'acct_test',
    status: 'running',
    provider: 'daily',
    room_url: 'https://acme.daily.co/standup',
    room_name: 'standup',
    bot_config: {},
    hold_credits: 1,
    created_at: new Date(Date.now() - 5 * 60_000).toISOString(),
    started_at: new Date(Date.now() - 5 * 60_000).toISOString(),
    // These bots got into the room (bot_failed when they die); `neverJoined` did not (bot_join_failed).
    ...(id !== neverJoined && { joined_at: new Date(Date.now() - 4 * 60_000).toISOString() }),
    ...(id === exhausted && { replacements: [lost('killed by SIGKILL'), lost('exit code 137')] }),
  });

  beforeAll(async () => {
    Object.assign(process.env, {
      AWS_REGION: 'eu-west-1',
      TABLE_NAME: 'meeting-bot-test',
      QUEUE_URLS: JSON.stringify({
        RESULTS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/results',
        CONTROL_QUEUE_URL: controlQueueUrl,
        BOT_EVENTS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/bot-events.fifo',
      }),
    });
    // Each Lambda is its own process: a fresh module graph, so the function builds its adapters from this env.
    vi.resetModules();
    ({ handler } = await import('../../functions/ops/task-stopped'));
  });

  beforeEach(() => {
    ddb.reset();
    sqs.reset();
    ddb.on(GetItemCommand).callsFake(
      fakeGet((key) => {
        const pk = String(key.pk);
        if ([died, finished, neverJoined, exhausted].some((id) => pk === `BOT#${id}`))
          return session(pk.slice(4));
        if (pk.startsWith('ACCOUNT#'))
          return { balance: 10, holds: { [died]: 1, [finished]: 1, [neverJoined]: 1, [exhausted]: 1 } };
        return undefined;
      }),
    );
    ddb.on(QueryCommand).resolves({
      Items: [
        wire({
          utterances: [
            {
              speaker: 'Ann',
              participant_id: 'p1',
              started_at: '2026-01-01T00:00:00Z',
              text: 'half a thought',
            },
          ],
        })!,
      ],
    });
    ddb.on(UpdateItemCommand).resolves({});
    ddb.on(PutItemCommand).resolves({});
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
  });

  const event = (detail: Partial<Detail>) =>
    ({
      source: 'aws.ecs',
      'detail-type': 'ECS Task State Change',
      detail: { taskArn: taskArn(), clusterArn: cluster, lastStatus: 'STOPPED', ...detail },
    }) as unknown as EventBridgeEvent<'ECS Task State Change', Detail>;

  it('asks for an on-demand replacement of a bot that was in the room when its Spot task is interrupted', async () => {
    const out = await handler(
      event({
        startedBy: died,
        stopCode: 'SpotInterruption',
        stoppedReason: 'Your Spot Task was interrupted.',
        containers: [{ name: 'bot', exitCode: 137 }],
      }),
    );
    expect(out).toEqual({ outcome: 'replacing' });
    // Nothing is ended: the session keeps running for its replacement.
    expect(updates().filter((u) => u.Key?.pk === `BOT#${died}`)).toEqual([]);
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent).toHaveLength(1);
    // A decision about the task: the control queue, not results.
    expect(sent[0]!.QueueUrl).toBe(controlQueueUrl);
    expect(JSON.parse(sent[0]!.MessageBody!)).toMatchObject({
      kind: 'replace_bot',
      bot_id: died,
      attempt: 0,
      alive: false,
      reason: expect.stringMatching(/SpotInterruption.*interrupted.*exit code 137/),
    });
  });

  it('ignores the stop of a task that was already replaced (its BOT_ATTEMPT is behind the session)', async () => {
    const out = await handler(
      event({
        startedBy: exhausted,
        stopCode: 'SpotInterruption',
        containers: [{ name: 'bot', exitCode: 137 }],
        overrides: overridesOf(exhausted, 1),
      }),
    );
    expect(out).toEqual({ outcome: 'superseded' });
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
    expect(updates()).toEqual([]);
  });

  it('fails the session, keeping its partial transcript, with bot_failed when no replacement is left', async () => {
    const out = await handler(
      event({
        startedBy: exhausted,
        stopCode: 'SpotInterruption',
        stoppedReason: 'Your Spot Task was interrupted.',
        containers: [{ name: 'bot', exitCode: 137 }],
        overrides: overridesOf(exhausted, 2),
      }),
    );
    expect(out).toEqual({ outcome: 'failed' });
    const update = updates().find((u) => u.Key?.pk === `BOT#${exhausted}`)!;
    const values = Object.values(update.ExpressionAttributeValues!);
    expect(values).toContain('failed');
    expect(values).toContainEqual(
      expect.stringMatching(/after 2 replacements.*SpotInterruption.*exit code 137/),
    );
    // The partial transcript stays in its segments, the only copy: failing the session copies nothing onto it.
    expect(JSON.stringify(values)).not.toContain('half a thought');
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.MessageBody!)).toMatchObject({
      kind: 'bot_failed',
      bot_id: exhausted,
      event: { event_type: 'bot_failed' },
    });
    // Nor is it in the queue message (size limits): the control stage reads the segments.
    expect(JSON.parse(sent[0]!.MessageBody!).event).not.toHaveProperty('transcript_text');
  });

  it('queues bot_join_failed (spec §6.2), not bot_failed, for a task that died before its bot joined', async () => {
    const out = await handler(
      event({
        startedBy: neverJoined,
        stopCode: 'EssentialContainerExited',
        containers: [{ name: 'bot', exitCode: 1, reason: 'Chromium crashed' }],
      }),
    );
    expect(out).toEqual({ outcome: 'failed' });
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.MessageBody!)).toMatchObject({
      kind: 'bot_join_failed',
      bot_id: neverJoined,
      event: {
        event_type: 'bot_join_failed',
        workflow_thread_id: neverJoined,
        room_url: 'https://acme.daily.co/standup',
        error_type: 'unknown',
        error_message: expect.stringMatching(/Chromium crashed/),
      },
    });
  });

  it('leaves a task that finished (exit 0) alone: the bot ran its own exit pipeline', async () => {
    const out = await handler(event({ startedBy: finished, containers: [{ name: 'bot', exitCode: 0 }] }));
    expect(out).toEqual({ outcome: 'already_ended' });
    expect(ddb.commandCalls(UpdateItemCommand)).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });

  it('ignores a task we do not know, one not started by a bot, and events that are not STOPPED', async () => {
    expect(await handler(event({ startedBy: unknown, containers: [{ name: 'bot', exitCode: 1 }] }))).toEqual({
      outcome: 'unknown',
    });
    expect(await handler(event({ startedBy: 'ecs-svc/1234567890' }))).toEqual({ outcome: 'ignored' });
    expect(await handler(event({ startedBy: died, lastStatus: 'RUNNING' }))).toEqual({ outcome: 'ignored' });
    expect(ddb.commandCalls(UpdateItemCommand)).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });
});
