// The warm pool's deployed shape against moto_server: the default template (botPoolSize 2) "deployed" into
// moto; the join function offers a session and schedules its cold-start fallback; the bot-task bundle, as the task role
// with the container's environment and no BOT_ID, is a pooled bot that claims it under its task ARN (read from a
// stand-in for the task metadata endpoint) and protects its task through a stand-in for the ECS agent; its task
// stops before it joined, and the task-stopped and results functions move the session to a cold task. Every call is
// judged by the IAM simulator against the template, and so are the calls no recording shows (the ECS agent's
// UpdateTaskProtection, the pool queue's wake-ups), for the roles that may make them and for those that may not.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coldClaimant } from '../../core/bots/session';
import { requires, skipReason } from '../support/requirements';
import { until } from '../support/until';
import { type DeployedLife, roleCalls, startDeployedLife } from './support/deployed-life';
import { denials, type IamRequest, iamRequestsOf, notRefused, simulate } from './support/iam-simulation';
import { motoAccountId, motoRegion } from './support/moto';

const skip = skipReason(requires.motoServer(), requires.chromium());

/** Stands in for the task's two local ECS endpoints: metadata v4 (`/v4/…/task`) and the agent (`/agent/…`). */
async function startEcsEndpoints(taskArn: string) {
  const protections: { ProtectionEnabled: boolean; ExpiresInMinutes?: number }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && req.url === '/v4/pooled/task') {
        res.end(JSON.stringify({ TaskARN: taskArn, Family: 'meeting-bot-dev-bot', LaunchType: 'FARGATE' }));
      } else if (req.method === 'PUT' && req.url === '/agent/task-protection/v1/state') {
        const asked = JSON.parse(body);
        protections.push(asked);
        res.end(JSON.stringify({ protection: { ...asked, TaskArn: taskArn } }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    protections,
    env: { ECS_CONTAINER_METADATA_URI_V4: `${base}/v4/pooled`, ECS_AGENT_URI: `${base}/agent` },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.skipIf(skip)(
  'the warm pool deployed against moto (pooled bot, task-stopped, IAM simulation)',
  () => {
    let life: DeployedLife;
    let endpoints: Awaited<ReturnType<typeof startEcsEndpoints>>;
    let clusterName: string;
    let taskArn: string;
    let botId: string;
    let pooled: ReturnType<DeployedLife['runBotTask']>;

    /** Until no message on the control queue is still delayed: every start_cold sent with a delay is due. */
    const dueOnControlQueue = () =>
      until(async () => {
        const { Attributes: a = {} } = await life.sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: life.stack.queues.control.url,
            AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
          }),
        );
        return a.ApproximateNumberOfMessagesDelayed === '0';
      }, 30_000);

    beforeAll(async () => {
      life = await startDeployedLife();
      clusterName = life.stack.clusterArn.split('/').pop()!;
      taskArn = `arn:aws:ecs:${motoRegion}:${motoAccountId}:task/${clusterName}/0123456789abcdef0123456789abcdef`;
      endpoints = await startEcsEndpoints(taskArn);
    }, 240_000);

    afterAll(async () => {
      pooled?.child.kill('SIGKILL');
      await endpoints?.close();
      await life?.close();
    });

    const poolQueueArn = () => {
      const [found] = life.stack.resolver
        .ofType('AWS::SQS::Queue')
        .filter(([q]) => q.startsWith('BotPoolQueue'));
      const id = found![0];
      return life.stack.resolver.resolve({ 'Fn::GetAtt': [id, 'Arn'] }) as string;
    };

    it('join with the pool on: the session is offered, its cold-start fallback delayed on the control queue, no RunTask', async () => {
      // A pooled bot waiting: the bundle as the task role, with the container's environment and no BOT_ID.
      pooled = life.runBotTask(endpoints.env);
      // It is idle once it long-polls the pool queue for a wake-up.
      await until(
        () =>
          life.proxy.calls.some(
            (c) => c.principal === life.stack.task.role && c.operation === 'ReceiveMessage',
          ),
        30_000,
      );
      const before = life.proxy.calls.length;
      const res = await life.api('POST', '/api/bot/join', { body: life.joinBody('/hooks/pooled') });
      expect(res.statusCode, res.body).toBe(201);
      botId = String(res.json.bot_id);
      expect(life.callsOf('RunTask', before)).toEqual([]);
      // (The wake-up on the pool queue, when the join sends one, is judged with every call in the IAM test below.)
      const fallback = life
        .callsOf('SendMessage', before)
        .find((c) => c.input.QueueUrl === life.stack.queues.control.url);
      // Nothing on the results queue: a join is not a result.
      expect(
        life.callsOf('SendMessage', before).filter((c) => c.input.QueueUrl === life.stack.queues.results.url),
      ).toEqual([]);
      expect(fallback?.principal).toBe(life.fn('ApiJoin').role);
      expect(fallback?.input).toMatchObject({ DelaySeconds: 2 });
      expect(JSON.parse(fallback!.input.MessageBody)).toMatchObject({ kind: 'start_cold', bot_id: botId });
    });

    it('the pooled bot claims the session under its task ARN and protects its task from scale-in', async () => {
      await until(
        async () => (await life.operator.stores.sessions.get(botId))?.claimedBy === taskArn,
        20_000,
      );
      expect(await life.operator.stores.sessions.get(botId)).toMatchObject({
        startPath: 'pool',
        claimedBy: taskArn,
      });
      // The claim's record under the task ARN is written after the session's conditional update (sessions-store.ts):
      // the session can say claimedBy a moment before the record is there.
      await until(
        async () => (await life.operator.stores.sessions.sessionClaimedBy(taskArn)) !== null,
        5_000,
      );
      expect(await life.operator.stores.sessions.sessionClaimedBy(taskArn)).toBe(botId);
      await until(() => endpoints.protections.length > 0, 10_000);
      // Its longest stay from the claim: the join timeout (60 s here), the waiting room's (600 s) and the default
      // max_duration_seconds (4 h) — 251 minutes — plus the 15-minute margin.
      expect(endpoints.protections).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 266 }]);
      // Lost before it got into the room (Daily is unreachable offline, so it never would).
      pooled.child.kill('SIGKILL');
      await pooled.exited;
      expect((await life.operator.stores.sessions.get(botId))?.joinedAt).toBeUndefined();
    });

    it('its task stopped: task-stopped finds the session by the task ARN, and the control function cold-starts it', async () => {
      const stopped = (arn: string, exitCode: number) => ({
        clusterArn: life.stack.clusterArn,
        taskArn: arn,
        lastStatus: 'STOPPED',
        // A task of the pool's service: started by its deployment, no RunTask overrides.
        startedBy: 'ecs-svc/1234567890123456789',
        stopCode: 'EssentialContainerExited',
        containers: [{ name: 'bot', exitCode }],
      });
      const idle = await life.throughRule('TaskStopped', [stopped(taskArn.replace(/0123/, 'ffff'), 0)]);
      expect(await life.host.invoke(life.fn('TaskStopped'), idle)).toEqual({ outcome: 'ignored' });
      const event = await life.throughRule('TaskStopped', [stopped(taskArn, 137)]);
      expect(await life.host.invoke(life.fn('TaskStopped'), event)).toEqual({ outcome: 'falling_back' });
      // The join's own fallback is due after 2 s: both start_cold requests are drained, one task starts.
      await dueOnControlQueue();
      const before = life.proxy.calls.length;
      expect(await life.control()).toBe(2);
      const runs = life.callsOf('RunTask', before);
      expect(runs).toHaveLength(1);
      expect(runs[0]!.principal).toBe(life.fn('ControlPlaneControl').role);
      expect(runs[0]!.input).toMatchObject({
        startedBy: botId,
        taskDefinition: life.stack.taskDefinitionArn,
      });
      expect(await life.operator.stores.sessions.get(botId)).toMatchObject({
        status: 'running',
        startPath: 'cold',
        claimedBy: 'cold',
      });
      expect((await life.api('POST', `/v1/bots/leave/${botId}`)).statusCode).toBe(202);
    });

    const throttling = { status: 400, type: 'ThrottlingException', message: 'Rate exceeded' };

    /** A join nobody in the pool claims (no pooled bot runs any more), once its cold-start fallback is due. */
    async function unclaimedJoin(hook: string): Promise<string> {
      const res = await life.api('POST', '/api/bot/join', { body: life.joinBody(hook) });
      expect(res.statusCode, res.body).toBe(201);
      await dueOnControlQueue();
      return String(res.json.bot_id);
    }

    it('the fallback’s RunTask throttled 5 times: the control function retries it and the cold task starts', async () => {
      const id = await unclaimedJoin('/hooks/pool-throttled');
      const before = life.proxy.calls.length;
      life.proxy.fail('RunTask', throttling, 5);
      expect(await life.control()).toBe(1);
      const runs = life.callsOf('RunTask', before);
      expect(runs.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 200]);
      expect(runs.every((r) => r.principal === life.fn('ControlPlaneControl').role)).toBe(true);
      expect(await life.operator.stores.sessions.get(id)).toMatchObject({
        status: 'running',
        startPath: 'cold',
      });
      expect((await life.api('POST', `/v1/bots/leave/${id}`)).statusCode).toBe(202);
    }, 60_000);

    it('the fallback’s RunTask throttled past the budget: the start goes back on the control queue (no 5xx, nothing failed or charged) and is served once RunTask answers', async () => {
      const id = await unclaimedJoin('/hooks/pool-capacity');
      const before = life.proxy.calls.length;
      life.proxy.fail('RunTask', throttling);
      try {
        // The fallback: RunTask throttled through the retry budget, then the start re-queued, delayed 5–15 s.
        expect(await life.control()).toBe(1);
      } finally {
        life.proxy.fail('RunTask', undefined);
      }
      expect(life.callsOf('RunTask', before).length).toBeGreaterThan(5);
      const waiting = await life.operator.stores.sessions.get(id);
      expect(waiting?.status).toBe('running');
      expect(waiting?.claimedBy).toBe(coldClaimant);
      expect(await life.botEvents()).toBe(0);
      // The re-queued start, once its delay passed: RunTask answers now, and the task is recorded on the session.
      const served = life.proxy.calls.length;
      await dueOnControlQueue();
      expect(await life.control()).toBe(1);
      expect(life.callsOf('RunTask', served).length).toBe(1);
      const session = await life.operator.stores.sessions.get(id);
      expect(session?.status).toBe('running');
      expect(session?.taskRef).toBeTruthy();
    }, 120_000);

    it('IAM: every call the join, the pooled bot, task-stopped and the control function made is allowed', async () => {
      const judged = roleCalls(life.proxy.calls, life.template);
      const byTask = judged.filter((c) => c.principal === life.stack.task.role).map((c) => c.operation);
      // The claim (a conditional update) and its record; no offer to read or withdraw.
      for (const op of ['UpdateItem', 'PutItem']) expect(byTask).toContain(op);
      expect(byTask).not.toContain('DeleteItem');
      const principals = new Set(judged.map((c) => c.principal));
      for (const fn of ['ApiJoin', 'TaskStopped', 'ControlPlaneControl'])
        expect(principals).toContain(life.fn(fn).role);
      const requests = judged.flatMap((c) => iamRequestsOf(c, life.stack));
      expect(denials(await simulate(life.template, life.stack.resolver, requests))).toEqual([]);
    });

    it('IAM: only the join and the control function (a scheduled session’s moment) send wake-ups, only the bot task takes them, and it protects only its own cluster’s tasks', async () => {
      const queue = poolQueueArn();
      const task = (cluster: string) =>
        `arn:aws:ecs:${motoRegion}:${motoAccountId}:task/${cluster}/0123456789abcdef0123456789abcdef`;
      const request = (principal: string, action: string, resource: string): IamRequest => ({
        principal,
        action,
        resource,
        context: { 'aws:SecureTransport': 'true' },
        // Not recorded: the wake-up code is the lead's (pool queue), and the agent calls ECS for the task.
        from: 'pool contract',
      });
      const taskRole = life.stack.task.role;
      const join = life.fn('ApiJoin').role;
      const control = life.fn('ControlPlaneControl').role;
      const others = ['ApiLeave', 'DeliveryResults', 'TaskStopped', 'Sweeper'].map((f) => life.fn(f).role);
      const allowed = [
        request(join, 'sqs:SendMessage', queue),
        request(control, 'sqs:SendMessage', queue),
        request(taskRole, 'sqs:ReceiveMessage', queue),
        request(taskRole, 'sqs:DeleteMessage', queue),
        request(taskRole, 'ecs:UpdateTaskProtection', task(clusterName)),
      ];
      expect(denials(await simulate(life.template, life.stack.resolver, allowed))).toEqual([]);
      const refused = [
        request(taskRole, 'sqs:SendMessage', queue),
        request(join, 'sqs:ReceiveMessage', queue),
        request(join, 'ecs:UpdateTaskProtection', task(clusterName)),
        request(control, 'sqs:ReceiveMessage', queue),
        request(control, 'ecs:UpdateTaskProtection', task(clusterName)),
        request(taskRole, 'ecs:UpdateTaskProtection', task('another-cluster')),
        request(taskRole, 'ecs:GetTaskProtection', task(clusterName)),
        ...others.flatMap((role) => [
          request(role, 'sqs:SendMessage', queue),
          request(role, 'sqs:ReceiveMessage', queue),
          request(role, 'ecs:UpdateTaskProtection', task(clusterName)),
        ]),
      ];
      const verdicts = await simulate(life.template, life.stack.resolver, refused);
      // Denied by the policies, not an error of the simulation.
      expect(notRefused(verdicts)).toEqual([]);
      expect(verdicts).toHaveLength(refused.length);
    });

    it('IAM: only the control function reads and resizes the pool service (its growth in a storm), and no other', async () => {
      const [serviceId] = life.stack.resolver.ofType('AWS::ECS::Service')[0]!;
      const serviceArn = String(life.stack.resolver.resolve({ Ref: serviceId }));
      expect(serviceArn).toMatch(/^arn:aws:ecs:/);
      const otherService = serviceArn.replace(/[^/]+$/, 'another-service');
      const request = (principal: string, action: string, resource: string): IamRequest => ({
        principal,
        action,
        resource,
        context: { 'aws:SecureTransport': 'true' },
        from: 'pool growth (core/adapters/ecs/ecs-pool-scaler.ts)',
      });
      const control = life.fn('ControlPlaneControl').role;
      const allowed = [
        request(control, 'ecs:DescribeServices', serviceArn),
        request(control, 'ecs:UpdateService', serviceArn),
      ];
      expect(denials(await simulate(life.template, life.stack.resolver, allowed))).toEqual([]);
      const refused = [
        request(control, 'ecs:UpdateService', otherService),
        request(control, 'ecs:DeleteService', serviceArn),
        ...['ApiJoin', 'ApiLeave', 'DeliveryResults', 'TaskStopped', 'Sweeper'].map((f) =>
          request(life.fn(f).role, 'ecs:UpdateService', serviceArn),
        ),
        request(life.stack.task.role, 'ecs:UpdateService', serviceArn),
      ];
      const verdicts = await simulate(life.template, life.stack.resolver, refused);
      expect(notRefused(verdicts)).toEqual([]);
      expect(verdicts).toHaveLength(refused.length);
    });
  },
);
