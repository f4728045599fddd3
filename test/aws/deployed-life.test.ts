// The deployed shape against moto_server: the synthesized stack is "deployed" into moto, the esbuild bundles CDK
// staged for every Lambda run with their template environment and their own role's credentials, and the bot-task
// bundle runs as the task role. A whole bot life goes through them; every AWS call made is recorded and judged by
// an IAM policy simulator against the caller's policies in the template (any implicit deny fails the test).

import { DescribeTasksCommand, ListTasksCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { CreateEmailIdentityCommand, DeleteEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionEnded } from '../../core/results/messages';
import type { DeliveriesView } from '../../core/schemas/list-views';
import type { TemplateJson } from '../infra/synth-stack';
import { requires, skipReason } from '../support/requirements';
import { until } from '../support/until';
import { type DeployedLife, roleCalls, startDeployedLife } from './support/deployed-life';
import { clientConfig } from './support/deployed-stack';
import { denials, iamRequestsOf, simulate } from './support/iam-simulation';
import { motoRegion } from './support/moto';

const skip = skipReason(requires.motoServer(), requires.chromium());

describe.skipIf(skip)(
  'the deployed stack against moto (bundles, template environment, IAM simulation)',
  () => {
    let life: DeployedLife;
    let moto: DeployedLife['moto'];
    let proxy: DeployedLife['proxy'];
    let stack: DeployedLife['stack'];
    let template: TemplateJson;
    let host: DeployedLife['host'];
    let receiver: DeployedLife['receiver'];
    let operator: DeployedLife['operator'];
    let ecs: DeployedLife['ecs'];
    let sqs: DeployedLife['sqs'];
    let account: DeployedLife['account'];

    beforeAll(async () => {
      // The cold path: every join starts its own task, as with the warm pool off (pool-life.test.ts has the pool).
      life = await startDeployedLife({ botPoolSize: 0 });
      ({ moto, proxy, stack, template, host, receiver, operator, ecs, sqs, account } = life);
    }, 240_000);

    afterAll(async () => {
      await life?.close();
    });

    const fn: DeployedLife['fn'] = (part) => life.fn(part);
    const api: DeployedLife['api'] = (...args) => life.api(...args);
    const results = () => life.results();
    const botEvents = () => life.botEvents();
    const deliveries = () => life.deliveries();
    const joinBody = (path: string) => life.joinBody(path);
    const callsOf: DeployedLife['callsOf'] = (...args) => life.callsOf(...args);
    const runBotTask = (botId: string) => life.runBotTask({ BOT_ID: botId });
    const throughRule: DeployedLife['throughRule'] = (...args) => life.throughRule(...args);

    let botId: string;
    let taskArn: string;

    it('join: RunTask of the template’s task definition with the bot id, its tag and the Spot strategy (201)', async () => {
      const before = proxy.calls.length;
      const res = await api('POST', '/api/bot/join', {
        body: joinBody('/hooks/life'),
        headers: { 'idempotency-key': 'life-1' },
      });
      expect(res.statusCode, `${res.body}\n${moto.log().slice(-3000)}`).toBe(201);
      botId = String(res.json.bot_id);
      const [run] = callsOf('RunTask', before);
      expect(run?.input).toMatchObject({
        cluster: stack.clusterArn,
        taskDefinition: stack.taskDefinitionArn,
        startedBy: botId,
        tags: [{ key: 'bot_id', value: botId }],
        capacityProviderStrategy: [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
        overrides: { containerOverrides: [{ name: 'bot', environment: [{ name: 'BOT_ID', value: botId }] }] },
        networkConfiguration: { awsvpcConfiguration: { assignPublicIp: 'ENABLED' } },
      });
      taskArn = run!.output.tasks[0].taskArn;
      const listed = await ecs.send(new ListTasksCommand({ cluster: stack.clusterArn, startedBy: botId }));
      expect(listed.taskArns).toEqual([taskArn]);
      expect((await operator.stores.accounts.get(account.accountId))?.balance).toBe(99);
    });

    it('the same Idempotency-Key and body replays the first answer: no second task, no second hold', async () => {
      const before = proxy.calls.length;
      const res = await api('POST', '/api/bot/join', {
        body: joinBody('/hooks/life'),
        headers: { 'idempotency-key': 'life-1' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json.bot_id).toBe(botId);
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(callsOf('RunTask', before)).toEqual([]);
      expect((await operator.stores.accounts.get(account.accountId))?.balance).toBe(99);
    });

    it('status: running', async () => {
      const res = await api('GET', `/api/bot/${botId}/status`);
      expect(res.statusCode).toBe(200);
      expect(res.json).toMatchObject({
        status: 'running',
        bot_id: botId,
        room_url: 'https://acme.daily.co/standup',
      });
    });

    it('leave: 202, the stop recorded, and the backstop finds the task (ListTasks) and stops it (StopTask)', async () => {
      const before = proxy.calls.length;
      const res = await api('POST', `/v1/bots/leave/${botId}`);
      expect(res.statusCode, res.body).toBe(202);
      const [list] = callsOf('ListTasks', before);
      expect(list?.input).toMatchObject({ cluster: stack.clusterArn, startedBy: botId });
      const [stop] = callsOf('StopTask', before);
      expect(stop?.input).toMatchObject({ cluster: stack.clusterArn, task: taskArn });
      const described = await ecs.send(
        new DescribeTasksCommand({ cluster: stack.clusterArn, tasks: [taskArn] }),
      );
      expect(described.tasks?.[0]?.lastStatus).toBe('STOPPED');
    });

    it('the bot-task bundle, as the task role, sees the stop while joining and hands over force_leave', async () => {
      const bot = runBotTask(botId);
      const code = await Promise.race([
        bot.exited,
        new Promise((r) => setTimeout(() => r('timeout'), 45_000)),
      ]);
      expect(code, bot.output()).toBe(0);
      expect(bot.output()).toContain('force_leave');
      const session = await operator.stores.sessions.get(botId);
      expect(session?.exitReason).toBe('force_leave');
    });

    it('results function: the session completes; delivery function: a signed webhook and an SES e-mail', async () => {
      const before = proxy.calls.length;
      // Its bot.joining and bot.left steps (recorded as status_changes; no webhook asked), from the bot-events queue;
      // the bot's hand-over; then bot.done and session_complete, which the results stage handed to the bot's events.
      expect(await botEvents(), JSON.stringify(callsOf('ReceiveMessage', before).map((c) => c.output))).toBe(
        2,
      );
      expect(await results()).toBe(1);
      expect(await botEvents()).toBe(1);
      expect((await api('GET', `/api/bot/${botId}/status`)).json.status_changes).toMatchObject([
        { code: 'joining' },
        { code: 'left', detail: 'force_leave' },
        { code: 'done' },
      ]);
      const status = await api('GET', `/api/bot/${botId}/status`);
      expect(status.json).toMatchObject({ status: 'completed', exit_reason: 'force_leave' });
      const sentBefore = (await sesSent()).length;
      expect(await deliveries()).toBe(2);
      const hook = receiver.received.find((r) => r.path === '/hooks/life');
      expect(hook).toBeDefined();
      const payload = new Webhook(account.webhookSecret).verify(hook!.body, hook!.headers) as Record<
        string,
        unknown
      >;
      expect(payload).toMatchObject({ event: 'session_complete', bot_id: botId, exit_reason: 'force_leave' });
      expect(callsOf('SendEmail')).toHaveLength(1);
      expect(callsOf('SendEmail')[0]!.input).toMatchObject({
        Destination: { ToAddresses: ['team@acme.example'] },
      });
      const sent = await sesSent();
      expect(sent).toHaveLength(sentBefore + 1);
      expect(sent.at(-1)).toMatchObject({ destinations: { ToAddresses: ['team@acme.example'] } });
      // Nothing charged: the bot never got into the room.
      expect((await operator.stores.accounts.get(account.accountId))?.balance).toBe(100);
    });

    const throttling = { status: 400, type: 'ThrottlingException', message: 'Rate exceeded' };

    /** The e-mails moto's SES accepted (its state API: https://docs.getmoto.org/en/latest/docs/services/ses.html). */
    async function sesSent(): Promise<{ destinations: { ToAddresses: string[] }; subject: string }[]> {
      const data = (await (await moto.motoApi('data.json')).json()) as { ses?: { Message?: [] } };
      return data.ses?.Message ?? [];
    }

    it('the bot-task bundle told to leave while joining (the leave endpoint, then its StopTask’s SIGTERM) ends force_leave and sends session_ended', async () => {
      const res = await api('POST', '/api/bot/join', {
        body: { ...joinBody('/hooks/sigterm'), email: undefined },
      });
      const stopped = String(res.json.bot_id);
      const bot = runBotTask(stopped);
      // Started and launching Chromium for the join (Daily's hosts would keep it joining for seconds offline).
      await until(() => bot.output().includes('bot task started'), 20_000);
      // The leave records the stop on the session, then asks ECS to stop the task, which SIGTERMs it (moto's StopTask
      // reaches no process, so the test delivers the signal). A SIGTERM nobody asked for is the platform's: that bot
      // ends bot_join_failed (test/integration/waiting-room.test.ts).
      expect((await api('POST', `/v1/bots/leave/${stopped}`)).statusCode).toBe(202);
      bot.child.kill('SIGTERM');
      const code = await Promise.race([
        bot.exited,
        new Promise((r) => setTimeout(() => r('timeout'), 45_000)),
      ]);
      expect(code, bot.output()).toBe(0);
      expect(bot.output()).toContain('asked to stop while joining');
      const sent = proxy.calls.filter(
        (c) =>
          c.operation === 'SendMessage' &&
          c.principal === stack.task.role &&
          c.input.MessageBody.includes(stopped),
      );
      expect(sent.map((c) => JSON.parse(c.input.MessageBody).kind).sort()).toEqual([
        'bot_event',
        'bot_event',
        'session_ended',
      ]);
      // Each to its own queue: the steps to the bot-events queue (FIFO, grouped by the bot), the hand-over to results.
      expect(sent.map((c) => c.input.QueueUrl).sort()).toEqual(
        [stack.queues.botEvents.url, stack.queues.botEvents.url, stack.queues.results.url].sort(),
      );
      expect(
        sent
          .filter((c) => c.input.QueueUrl === stack.queues.botEvents.url)
          .map((c) => c.input.MessageGroupId),
      ).toEqual([stopped, stopped]);
      expect(
        sent.map((c) => JSON.parse(c.input.MessageBody)).find((m) => m.kind === 'session_ended'),
      ).toMatchObject({
        kind: 'session_ended',
        bot_id: stopped,
        exit_reason: 'force_leave',
      });
      expect(await botEvents()).toBe(2);
      expect(await results()).toBe(1);
      expect(await botEvents()).toBe(1);
      expect((await api('GET', `/api/bot/${stopped}/status`)).json).toMatchObject({
        status: 'completed',
        exit_reason: 'force_leave',
      });
      expect(await deliveries()).toBe(1);
    });

    it('RunTask throttled (ThrottlingException, "Rate exceeded") 5 times: the join retries and answers 201', async () => {
      const before = proxy.calls.length;
      proxy.fail('RunTask', throttling, 5);
      const res = await api('POST', '/api/bot/join', { body: joinBody('/hooks/throttled') });
      expect(res.statusCode, res.body).toBe(201);
      const runs = callsOf('RunTask', before);
      expect(runs.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 200]);
      // One task, whatever the retries: every call carried the bot's client token.
      expect(new Set(runs.map((r) => r.input.clientToken)).size).toBe(1);
      const botOfRun = String(res.json.bot_id);
      const listed = await ecs.send(new ListTasksCommand({ cluster: stack.clusterArn, startedBy: botOfRun }));
      expect(listed.taskArns).toHaveLength(1);
      expect((await api('POST', `/v1/bots/leave/${botOfRun}`)).statusCode).toBe(202);
    }, 60_000);

    it('RunTask throttled past the join’s retry budget: 201, never 5xx; the start goes to the control plane, which serves it once RunTask answers', async () => {
      const before = proxy.calls.length;
      proxy.fail('RunTask', throttling);
      const started = Date.now();
      const first = await api('POST', '/api/bot/join', {
        body: joinBody('/hooks/throttled-out'),
        headers: { 'idempotency-key': 'throttled-1' },
      });
      proxy.fail('RunTask', undefined);
      // A storm is ours to absorb: the join answers 201 and hands the start to the control queue (paced, retried).
      expect(first.statusCode, first.body).toBe(201);
      // It kept trying for the budget (RUN_TASK_RETRY_BUDGET_MS, 15 s by default), inside the join's 29 s.
      expect(callsOf('RunTask', before).length).toBeGreaterThan(5);
      expect(Date.now() - started).toBeLessThan(29_000);
      const id = first.json.bot_id as string;
      expect((await operator.stores.sessions.get(id))?.status).toBe('running');
      // The control function takes the handed-over start: one RunTask, which answers now, as its own role.
      const served = proxy.calls.length;
      expect(await life.control()).toBe(1);
      const runs = callsOf('RunTask', served);
      expect(runs).toHaveLength(1);
      expect(runs[0]?.principal).toBe(fn('ControlPlaneControl').role);
      expect((await operator.stores.sessions.get(id))?.taskRef).toBeTruthy();
      expect((await api('POST', `/v1/bots/leave/${id}`)).statusCode).toBe(202);
    }, 60_000);

    it('a RunTask failure no retry fixes (AccessDenied) answers 500, returns the hold and frees the Idempotency-Key', async () => {
      proxy.fail('RunTask', {
        status: 400,
        type: 'AccessDeniedException',
        message: 'User is not authorized to perform: ecs:RunTask (injected by the test)',
      });
      const balance = (await operator.stores.accounts.get(account.accountId))?.balance;
      const first = await api('POST', '/api/bot/join', {
        body: joinBody('/hooks/retry'),
        headers: { 'idempotency-key': 'retry-1' },
      });
      proxy.fail('RunTask', undefined);
      expect(first.statusCode).toBe(500);
      expect(first.json.error).toBe('server_error');
      expect((await operator.stores.accounts.get(account.accountId))?.balance).toBe(balance);
      const retry = await api('POST', '/api/bot/join', {
        body: joinBody('/hooks/retry'),
        headers: { 'idempotency-key': 'retry-1' },
      });
      expect(retry.statusCode, retry.body).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    });

    it('a task that stopped without finishing (ECS Task State Change) fails its session and sends the failure', async () => {
      const res = await api('POST', '/api/bot/join', { body: joinBody('/hooks/crash') });
      const crashed = String(res.json.bot_id);
      const [task] = (await ecs.send(new ListTasksCommand({ cluster: stack.clusterArn, startedBy: crashed })))
        .taskArns!;
      await ecs.send(new StopTaskCommand({ cluster: stack.clusterArn, task, reason: 'OutOfMemoryError' }));
      const { tasks } = await ecs.send(
        new DescribeTasksCommand({ cluster: stack.clusterArn, tasks: [task!] }),
      );
      const t = tasks![0]!;
      // The event ECS sends goes through moto's EventBridge with the template's rule (its pattern, resolved): what
      // the rule delivers is what the function gets, and a stopped task of another cluster is not delivered.
      const detail = {
        clusterArn: t.clusterArn,
        taskArn: t.taskArn,
        lastStatus: 'STOPPED',
        startedBy: t.startedBy,
        stoppedReason: t.stoppedReason,
        stopCode: 'EssentialContainerExited',
        containers: [{ name: 'bot', exitCode: 137, reason: 'OutOfMemoryError: container killed' }],
      };
      const event = await throughRule('TaskStopped', [
        { ...detail, clusterArn: `${t.clusterArn}-other` },
        detail,
      ]);
      expect(event.detail).toEqual(detail);
      const out = await host.invoke<{ outcome: string }>(fn('TaskStopped'), event);
      expect(out.outcome).toBe('failed');
      expect(await botEvents()).toBe(1);
      expect(await deliveries()).toBe(1);
      const hook = receiver.received.find((r) => r.path === '/hooks/crash');
      const payload = new Webhook(account.webhookSecret).verify(hook!.body, hook!.headers) as Record<
        string,
        unknown
      >;
      expect(payload).toMatchObject({ bot_id: crashed });
      expect((await api('GET', `/api/bot/${crashed}/status`)).json.status).toBe('failed');
    });

    it('a Spot interruption and then a crash of a bot that was in the room each start an on-demand replacement with the same BOT_ID', async () => {
      const res = await api('POST', '/api/bot/join', { body: joinBody('/hooks/replaced') });
      const lostBot = String(res.json.bot_id);
      await operator.stores.sessions.updateRunning(lostBot, { joinedAt: new Date().toISOString() });
      const stopped = async (task: string, stopCode: string, exitCode: number) => {
        await ecs.send(new StopTaskCommand({ cluster: stack.clusterArn, task, reason: stopCode }));
        const t = (await ecs.send(new DescribeTasksCommand({ cluster: stack.clusterArn, tasks: [task] })))
          .tasks![0]!;
        // As ECS sends it: the task's RunTask overrides (BOT_ATTEMPT among them) are in the event.
        return throughRule('TaskStopped', [
          {
            clusterArn: t.clusterArn,
            taskArn: t.taskArn,
            lastStatus: 'STOPPED',
            startedBy: t.startedBy,
            stoppedReason: t.stoppedReason,
            stopCode,
            containers: [{ name: 'bot', exitCode }],
            overrides: t.overrides,
          },
        ]);
      };
      let [task] = (await ecs.send(new ListTasksCommand({ cluster: stack.clusterArn, startedBy: lostBot })))
        .taskArns!;
      for (const [attempt, stopCode, exitCode] of [
        [1, 'SpotInterruption', 143],
        [2, 'EssentialContainerExited', 137],
      ] as const) {
        const event = await stopped(task!, stopCode, exitCode);
        const out = await host.invoke<{ outcome: string }>(fn('TaskStopped'), event);
        expect(out.outcome).toBe('replacing');
        const before = proxy.calls.length;
        // The control function (its role, its template environment) starts the replacement.
        expect(await life.control()).toBe(1);
        const [run] = callsOf('RunTask', before);
        expect(run?.principal).toBe(fn('ControlPlaneControl').role);
        expect(run?.input).toMatchObject({
          cluster: stack.clusterArn,
          taskDefinition: stack.taskDefinitionArn,
          startedBy: lostBot,
          capacityProviderStrategy: [{ capacityProvider: 'FARGATE', weight: 1 }],
          overrides: {
            containerOverrides: [
              {
                name: 'bot',
                environment: [
                  { name: 'BOT_ID', value: lostBot },
                  { name: 'BOT_ATTEMPT', value: String(attempt) },
                ],
              },
            ],
          },
        });
        task = run!.output.tasks[0].taskArn;
        const session = await operator.stores.sessions.get(lostBot);
        expect(session?.status).toBe('running');
        expect(session?.replacements).toHaveLength(attempt);
        expect(session?.replacements?.at(-1)).toMatchObject({
          reason: expect.stringContaining(stopCode),
          taskRef: task,
        });
      }
      const status = (await api('GET', `/api/bot/${lostBot}/status`)).json;
      expect(status.replacements).toEqual([
        { at: expect.any(String), reason: expect.stringContaining('SpotInterruption') },
        { at: expect.any(String), reason: expect.stringContaining('EssentialContainerExited') },
      ]);
      // The stop of a task already replaced changes nothing.
      const again = await host.invoke<{ outcome: string }>(
        fn('TaskStopped'),
        await throughRule('TaskStopped', [
          {
            clusterArn: stack.clusterArn,
            taskArn: `${task}-old`,
            lastStatus: 'STOPPED',
            startedBy: lostBot,
            stopCode: 'SpotInterruption',
            containers: [{ name: 'bot', exitCode: 143 }],
            overrides: {
              containerOverrides: [{ name: 'bot', environment: [{ name: 'BOT_ATTEMPT', value: '1' }] }],
            },
          },
        ]),
      );
      expect(again.outcome).toBe('superseded');
      await api('POST', `/v1/bots/leave/${lostBot}`);
    });

    it('the heartbeat sweep fails a running bot whose heartbeat went stale', async () => {
      const res = await api('POST', '/api/bot/join', { body: joinBody('/hooks/stale') });
      const stale = String(res.json.bot_id);
      await operator.stores.sessions.updateRunning(stale, {
        heartbeatAt: new Date(Date.now() - 3_600_000).toISOString(),
      });
      const out = await host.invoke<{ failed: string[] }>(fn('Sweeper'), {});
      expect(out.failed).toContain(stale);
      expect(await botEvents()).toBeGreaterThanOrEqual(1);
      expect((await api('GET', `/api/bot/${stale}/status`)).json.status).toBe('failed');
      expect(await deliveries()).toBe(1);
    });

    it('a webhook retry due past the 12-hour visibility budget is re-queued as a fresh message', async () => {
      // A failing subscriber; the job's first receipt is made to look nearly 12 hours old, so the next attempt cannot
      // wait in this message's visibility and the function sends a copy to its own queue.
      receiver.answer('/hooks/down', 503);
      const res = await api('POST', '/api/bot/join', {
        body: { ...joinBody('/hooks/down'), email: undefined },
      });
      const down = String(res.json.bot_id);
      await api('POST', `/v1/bots/leave/${down}`);
      await operator.resultsQueue.send({
        kind: 'session_ended',
        bot_id: down,
        exit_reason: 'force_leave',
        left_at: new Date().toISOString(),
      });
      expect(await results()).toBe(1);
      expect(await botEvents()).toBe(1);
      const deliver = fn('DeliveryDeliver');
      const asRole = new SQSClient(clientConfig(proxy.endpoint, deliver.role));
      try {
        const { Messages = [] } = await asRole.send(
          new ReceiveMessageCommand({
            QueueUrl: stack.queues.delivery.url,
            MaxNumberOfMessages: 1,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        expect(Messages).toHaveLength(1);
        const m = Messages[0]!;
        const before = proxy.calls.length;
        const event: SQSEvent = {
          Records: [
            {
              messageId: m.MessageId!,
              receiptHandle: m.ReceiptHandle!,
              body: m.Body!,
              attributes: {
                ApproximateReceiveCount: '9',
                SentTimestamp: String(Date.now() - 43_190_000),
                SenderId: 'results',
                ApproximateFirstReceiveTimestamp: String(Date.now() - 43_190_000),
              },
              messageAttributes: {},
              md5OfBody: m.MD5OfBody!,
              eventSource: 'aws:sqs',
              eventSourceARN: stack.queues.delivery.arn,
              awsRegion: motoRegion,
            },
          ],
        };
        const out = await host.invoke<SQSBatchResponse>(deliver, event);
        expect(out.batchItemFailures, host.logs(deliver)).toEqual([]);
        const sends = callsOf('SendMessage', before).filter(
          (c) => c.input.QueueUrl === stack.queues.delivery.url,
        );
        expect(sends, host.logs(deliver)).toHaveLength(1);
        expect(sends[0]!.status).toBe(200);
        expect(JSON.parse(sends[0]!.input.MessageBody)).toEqual(JSON.parse(m.Body!));
      } finally {
        asRole.destroy();
      }
      const attrs = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: stack.queues.delivery.url,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
        }),
      );
      const a = attrs.Attributes ?? {};
      expect(
        Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesDelayed),
      ).toBeGreaterThan(0);
    });

    it('transcript pages come from the status function, whose role reads the saved segments', async () => {
      // A bot of its own, running: the first bot's ended transcript is final, and the warm status function keeps it.
      const joined = await api('POST', '/api/bot/join', { body: joinBody('/hooks/pages') });
      expect(joined.statusCode, joined.body).toBe(201);
      const botId = String(joined.json.bot_id);
      const lines = ['One.', 'Two.', 'Three.'].map((text, i) => ({
        speaker: 'Ada',
        participant_id: 'p-ada',
        text,
        started_at: new Date(Date.UTC(2026, 0, 1, 9, 0, i)).toISOString(),
      }));
      await operator.stores.transcripts.saveSegment(botId, 1, lines.slice(0, 2));
      await operator.stores.transcripts.saveSegment(botId, 2, lines.slice(2));
      const first = await api('GET', `/api/bot/${botId}/transcript?limit=2`);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json).toMatchObject({
        bot_id: botId,
        status: 'running',
        next_after_seq: 2,
        last_seq: 3,
      });
      const rest = await api('GET', `/api/bot/${botId}/transcript?after_seq=2`);
      expect(rest.json).toMatchObject({
        utterances: [{ text: 'Three.', seq: 3, is_bot: false }],
        next_after_seq: null,
      });
      expect((await api('GET', `/api/bot/${botId}/transcript?limit=0`)).statusCode).toBe(400);
      expect((await api('GET', `/api/bot/${botId}/status`)).json.status).toBe('running');
    });

    it('the other routes answer through their own functions (list, deliveries, OpenAPI, 404)', async () => {
      expect((await api('GET', '/api/bots')).statusCode).toBe(200);
      expect((await api('GET', `/api/bot/${botId}/deliveries`)).statusCode).toBe(200);
      expect((await api('GET', '/openapi.json')).statusCode).toBe(200);
      const unknown = await api('GET', '/api/nothing-here');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json.error).toBe('not_found');
    });

    /** A session whose bot left without getting in (its hand-over on the results queue, as the bot would send it). */
    async function endedSession(hook: string): Promise<string> {
      const res = await api('POST', '/api/bot/join', { body: joinBody(hook) });
      const id = String(res.json.bot_id);
      const ended = sessionEnded(id, 'force_leave', new Date().toISOString());
      await sqs.send(
        new SendMessageCommand({ QueueUrl: stack.queues.results.url, MessageBody: JSON.stringify(ended) }),
      );
      expect(await results()).toBe(1);
      expect(await botEvents()).toBe(1);
      return id;
    }

    const emailDelivery = async (id: string) => {
      const view = await api('GET', `/api/bot/${id}/deliveries`);
      expect(view.statusCode).toBe(200);
      return (view.json as unknown as DeliveriesView).deliveries.find((d) => d.channel === 'email');
    };

    it('an e-mail SES refuses for good (the sender not a verified identity, as in the sandbox) is recorded failed once with SES’s reason', async () => {
      const ses = new SESv2Client(clientConfig(moto.endpoint));
      // moto 5.2.1's SendEmail refuses a sender that is not a verified identity: MessageRejected, "Email address not
      // verified …" (what SES answers in the sandbox for an unverified sender or recipient).
      await ses.send(new DeleteEmailIdentityCommand({ EmailIdentity: stack.sesIdentity }));
      try {
        const refused = await endedSession('/hooks/refused');
        const before = proxy.calls.length;
        expect(await deliveries()).toBe(2);
        const sends = callsOf('SendEmail', before);
        // One attempt, refused (moto answers 400 MessageRejected), and no second one.
        expect(sends.map((c) => c.status)).toEqual([400]);
        const email = await emailDelivery(refused);
        expect(email).toMatchObject({ status: 'failed', next_attempt_at: null });
        expect(email!.attempts).toHaveLength(1);
        expect(email!.attempts[0]!.error).toMatch(
          /^SES refused the message: MessageRejected: Email address not verified .*sandbox/,
        );
        // Parked in the delivery DLQ with the reason, not retried: nothing comes back to the delivery queue.
        const parked = callsOf('SendMessage', before).filter(
          (c) => c.input.QueueUrl === stack.queues.deliveryDlq.url,
        );
        expect(parked).toHaveLength(1);
        expect(parked[0]!.input.MessageAttributes.reason.StringValue).toMatch(/MessageRejected/);
        expect(await deliveries()).toBe(0);
        // The session itself completed: only the e-mail failed, and the webhook went out.
        expect((await api('GET', `/api/bot/${refused}/status`)).json.status).toBe('completed');
        expect(receiver.received.some((r) => r.path === '/hooks/refused')).toBe(true);
      } finally {
        await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: stack.sesIdentity }));
        ses.destroy();
      }
    });

    it('an e-mail SES refuses for now (TooManyRequestsException) stays pending, its next attempt scheduled', async () => {
      proxy.fail('SendEmail', {
        status: 429,
        type: 'TooManyRequestsException',
        message: 'Too many requests',
      });
      try {
        const throttled = await endedSession('/hooks/ses-throttled');
        expect(await deliveries()).toBe(2);
        const email = await emailDelivery(throttled);
        expect(email?.status).toBe('pending');
        expect(email!.attempts.length).toBeGreaterThanOrEqual(1);
        expect(email!.attempts.at(-1)!.error).toMatch(/TooManyRequestsException/);
        expect(Date.parse(email!.next_attempt_at!)).toBeGreaterThan(Date.now());
      } finally {
        proxy.fail('SendEmail', undefined);
      }
    });

    it("DELETE /api/bot/{bot_id}/data deletes an ended bot's content and keeps its tombstone", async () => {
      const id = await endedSession('/hooks/erase');
      const res = await api('DELETE', `/api/bot/${id}/data`);
      expect(res.statusCode).toBe(200);
      expect(res.json).toMatchObject({ bot_id: id, status: 'data_deleted' });
      const view = (await api('GET', `/api/bot/${id}/status`)).json;
      expect(view).toMatchObject({
        status: 'completed',
        data_deleted_at: res.json.data_deleted_at,
        transcript: null,
      });
      expect((await api('DELETE', `/api/bot/${id}/data`)).json.data_deleted_at).toBe(
        res.json.data_deleted_at,
      );

      // A live transcript's delivery job queued before the deletion (its body inline): the delivery function's
      // TransactWriteItems (session check + put) is cancelled, so nothing is stored or sent.
      const before = proxy.calls.length;
      const heard = receiver.received.filter((r) => r.path === '/hooks/erase').length;
      const job = {
        bot_id: id,
        channel: 'webhook',
        event: 'transcript.data#1',
        record: {
          account_id: account.accountId,
          target: receiver.url('/hooks/erase'),
          payload: JSON.stringify({ event: 'transcript.data', bot_id: id, data: { utterances: [] } }),
          message_id: 'msg_queued_before_deletion',
          created_at: new Date().toISOString(),
          seq: 9,
          meeting_content: true,
        },
      };
      await sqs.send(
        new SendMessageCommand({ QueueUrl: stack.queues.delivery.url, MessageBody: JSON.stringify(job) }),
      );
      // (With the ended session's own jobs still queued: their stored bodies are gone, so they send nothing either.)
      expect(await deliveries()).toBeGreaterThanOrEqual(1);
      expect(callsOf('TransactWriteItems', before)).toHaveLength(1);
      expect(await operator.stores.deliveries.get(id, 'webhook', 'transcript.data#1')).toBeNull();
      expect(receiver.received.filter((r) => r.path === '/hooks/erase')).toHaveLength(heard);
    });

    it('IAM: every call any principal made is allowed by its policies in the synthesized template', async () => {
      const judged = roleCalls(proxy.calls, template);
      const principals = new Set(judged.map((c) => c.principal));
      // Every function that ran and the bot's task role made calls.
      expect(principals).toContain(stack.task.role);
      expect(principals).toContain(fn('ApiJoin').role);
      expect(principals).toContain(fn('ApiLeave').role);
      expect(principals).toContain(fn('ApiData').role);
      expect(principals).toContain(fn('Sweeper').role);
      expect(principals).toContain(fn('DeliveryDeliver').role);
      const requests = judged.flatMap((c) => iamRequestsOf(c, stack));
      const verdicts = await simulate(template, stack.resolver, requests);
      expect(denials(verdicts)).toEqual([]);
      expect(verdicts.length).toBeGreaterThan(50);
    });

    it('IAM: every function may write its X-Ray segments (sent by the daemon, so no recorded call shows them)', async () => {
      const roles = [...new Set([...stack.functions.values()].map((f) => f.role))];
      expect(roles.length).toBeGreaterThanOrEqual(8);
      const requests = roles.flatMap((principal) =>
        ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'].map((action) => ({
          principal,
          action,
          resource: '*',
          context: { 'aws:SecureTransport': 'true' },
          from: 'active tracing',
        })),
      );
      expect(denials(await simulate(template, stack.resolver, requests))).toEqual([]);
      // The bot task is not traced, and its role says so.
      const task = [{ ...requests[0]!, principal: stack.task.role }];
      expect(denials(await simulate(template, stack.resolver, task))).toHaveLength(1);
    });

    it('IAM: the simulation fails when one grant is taken out of the template', async () => {
      const judged = roleCalls(proxy.calls, template);
      const requests = judged.flatMap((c) => iamRequestsOf(c, stack));
      const leaveRole = fn('ApiLeave').role;
      const without = withoutGrant(template, leaveRole, 'ecs:StopTask');
      const denied = denials(await simulate(without, stack.resolver, requests));
      expect(denied.length).toBeGreaterThan(0);
      expect(denied.every((d) => d.includes(`${leaveRole} ecs:StopTask`))).toBe(true);
    });
  },
);

/** A copy of the template where `action` is removed from every statement of the role's policies. */
function withoutGrant(template: TemplateJson, role: string, action: string): TemplateJson {
  const copy = structuredClone(template);
  for (const r of Object.values(copy.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy' || !r.Properties!.Roles.some((x: { Ref?: string }) => x.Ref === role))
      continue;
    for (const s of r.Properties!.PolicyDocument.Statement) {
      const actions = [s.Action].flat().filter((a: string) => a !== action);
      s.Action = actions.length ? actions : 'none:None';
    }
  }
  return copy;
}
