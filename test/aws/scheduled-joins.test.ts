// Scheduled joins in the deployed shape against moto_server: the default template (warm pool on) "deployed" into
// moto. A join with join_at lists the session and sends bot.scheduled; the scheduler function (the one-minute rule's
// target) finds a session due within its horizon, raises the pool service's desired count and queues its start,
// delayed; the control function hands it to the pool (offer + cold fallback); a leave before join_at cancels without
// any task. Every call is judged by the IAM simulator against the template, and the pool-sizing grant is refused to
// every other role and for any other service.

import { DescribeServicesCommand } from '@aws-sdk/client-ecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requires, skipReason } from '../support/requirements';
import { type DeployedLife, roleCalls, startDeployedLife } from './support/deployed-life';
import { denials, type IamRequest, iamRequestsOf, notRefused, simulate } from './support/iam-simulation';

const skip = skipReason(requires.motoServer(), requires.chromium());

describe.skipIf(skip)('scheduled joins deployed against moto (scheduler, pool sizing, cancel, IAM)', () => {
  let life: DeployedLife;
  let serviceArn: string;
  let clusterArn: string;

  beforeAll(async () => {
    life = await startDeployedLife();
    const [[serviceId]] = life.stack.resolver.ofType('AWS::ECS::Service') as [[string, unknown]];
    serviceArn = String(life.stack.resolver.resolve({ Ref: serviceId }));
    clusterArn = life.stack.clusterArn;
  }, 240_000);
  afterAll(() => life?.close());

  const desiredCount = async () => {
    const { services } = await life.ecs.send(
      new DescribeServicesCommand({ cluster: clusterArn, services: [serviceArn] }),
    );
    return services?.[0]?.desiredCount;
  };
  const schedule = (joinAt: Date, hook: string) =>
    life.api('POST', '/api/bot/join', {
      body: { ...life.joinBody(hook), join_at: joinAt.toISOString(), webhook_events: ['bot.scheduled'] },
    });

  it('a join 10 minutes ahead: 201 started, listed for the scheduler, bot.scheduled sent, no task, no start queued', async () => {
    const before = life.proxy.calls.length;
    const res = await schedule(new Date(Date.now() + 10 * 60_000), '/hooks/scheduled');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json.status).toBe('started');
    const botId = String(res.json.bot_id);
    expect(life.callsOf('RunTask', before)).toEqual([]);
    const sent = life.callsOf('SendMessage', before);
    expect(sent.filter((c) => c.input.QueueUrl === life.stack.queues.control.url)).toEqual([]);
    const events = sent.filter((c) => c.input.QueueUrl === life.stack.queues.botEvents.url);
    expect(events.map((c) => JSON.parse(c.input.MessageBody).event)).toEqual(['bot.scheduled']);
    const session = await life.operator.stores.sessions.get(botId);
    expect(session).toMatchObject({ status: 'running', startedAt: null });
    expect(session?.poolOfferedAt).toBeUndefined();
    const listed = await life.operator.stores.sessions.listScheduled(
      new Date().toISOString(),
      new Date(Date.now() + 11 * 60_000).toISOString(),
    );
    expect(listed.map((e) => e.botId)).toContain(botId);

    // A leave before join_at cancels: the session ends through the results stage, no task, nothing charged.
    const left = await life.api('POST', `/v1/bots/leave/${botId}`);
    expect(left.statusCode, left.body).toBe(202);
    expect(await life.results()).toBeGreaterThanOrEqual(1);
    expect(await life.operator.stores.sessions.get(botId)).toMatchObject({
      status: 'completed',
      exitReason: 'force_leave',
    });
    expect(life.callsOf('RunTask', before)).toEqual([]);
    expect(life.callsOf('StopTask', before)).toEqual([]);
  }, 60_000);

  it('the scheduler: a session due within its horizon raises the pool by one and its start is queued, delayed', async () => {
    // As a join scheduled earlier left it: listed, due in 3 minutes (past the join's own horizon at the time).
    const res = await schedule(new Date(Date.now() + 10 * 60_000), '/hooks/due');
    const botId = String(res.json.bot_id);
    const session = await life.operator.stores.sessions.get(botId);
    const [entry] = (
      await life.operator.stores.sessions.listScheduled(
        new Date().toISOString(),
        new Date(Date.now() + 11 * 60_000).toISOString(),
      )
    ).filter((e) => e.botId === botId);
    await life.operator.stores.sessions.unlistScheduled(entry!);
    const joinAt = new Date(Date.now() + 100_000).toISOString();
    await life.operator.stores.sessions.create({ ...session!, joinAt });

    const pool = await desiredCount();
    const before = life.proxy.calls.length;
    expect(await life.host.invoke(life.fn('OperationsScheduler'), {})).toEqual({ queued: 1 });
    expect(await desiredCount()).toBe((pool ?? 0) + 1);
    const scheduler = life.fn('OperationsScheduler').role;
    const starts = life
      .callsOf('SendMessage', before)
      .filter((c) => c.input.QueueUrl === life.stack.queues.control.url);
    expect(starts).toHaveLength(1);
    expect(starts[0]!.principal).toBe(scheduler);
    expect(JSON.parse(starts[0]!.input.MessageBody)).toEqual({ kind: 'start_scheduled', bot_id: botId });
    // join_at − SCHEDULE_POOL_LEAD_MS (10 s) from now: about 90 s.
    expect(starts[0]!.input.DelaySeconds).toBeGreaterThan(80);
    expect(starts[0]!.input.DelaySeconds).toBeLessThanOrEqual(90);
    expect(life.callsOf('UpdateService', before).map((c) => [c.principal, c.input.desiredCount])).toEqual([
      [scheduler, (pool ?? 0) + 1],
    ]);
    // Taken off the list: a second run queues nothing and raises nothing.
    expect(await life.host.invoke(life.fn('OperationsScheduler'), {})).toEqual({ queued: 0 });
    expect(await desiredCount()).toBe((pool ?? 0) + 1);
    expect((await life.api('POST', `/v1/bots/leave/${botId}`)).statusCode).toBe(202);
    await life.results();
  }, 60_000);

  it('IAM: every call of the join, leave, scheduler, control and results functions is allowed; pool sizing is the scheduler’s and the control function’s (storm growth) alone', async () => {
    const judged = roleCalls(life.proxy.calls, life.template);
    const principals = new Set(judged.map((c) => c.principal));
    for (const fn of ['ApiJoin', 'ApiLeave', 'OperationsScheduler'])
      expect(principals).toContain(life.fn(fn).role);
    const requests = judged.flatMap((c) => iamRequestsOf(c, life.stack));
    expect(denials(await simulate(life.template, life.stack.resolver, requests))).toEqual([]);

    const request = (principal: string, action: string, resource: string): IamRequest => ({
      principal,
      action,
      resource,
      context: { 'aws:SecureTransport': 'true' },
      from: 'scheduled joins contract',
    });
    const scheduler = life.fn('OperationsScheduler').role;
    const other = serviceArn.replace(/[^/]+$/, 'another-service');
    const refused = [
      request(scheduler, 'ecs:UpdateService', other),
      request(scheduler, 'ecs:RunTask', life.stack.taskDefinitionArn),
      request(
        scheduler,
        'sqs:SendMessage',
        `arn:aws:sqs:${serviceArn.split(':')[3]}:${serviceArn.split(':')[4]}:x`,
      ),
      // The control function grows the pool in a storm (offers not claimed): it may size the pool service too.
      ...['ApiJoin', 'ApiLeave', 'Sweeper', 'TaskStopped'].map((f) =>
        request(life.fn(f).role, 'ecs:UpdateService', serviceArn),
      ),
      request(life.stack.task.role, 'ecs:UpdateService', serviceArn),
    ];
    const verdicts = await simulate(life.template, life.stack.resolver, refused);
    expect(notRefused(verdicts)).toEqual([]);
    expect(verdicts).toHaveLength(refused.length);
  });
});
