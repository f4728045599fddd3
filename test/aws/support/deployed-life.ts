// One synthesized stack "deployed" into moto, with what the life tests drive it by: the route functions through API
// Gateway events, the SQS event source mappings played as the consuming function's role, the bot-task bundle run as
// the task role, ECS task-state events through the template's EventBridge rule. Shared by the cold-start life
// (deployed-life.test.ts) and the warm pool's (pool-life.test.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ECSClient } from '@aws-sdk/client-ecs';
import {
  EventBridgeClient,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyStructuredResultV2, SQSBatchResponse } from 'aws-lambda';
import { expect } from 'vitest';
import { type Adapters, wireAdapters } from '../../../core/adapters/wiring';
import { loadConfig } from '../../../core/config';
import { createLogger } from '../../../core/log';
import type { SettingsInput } from '../../../infra/settings';
import { QueuePoller } from '../../../local/queue-poller';
import { buildBotTaskBundle } from '../../../scripts/bundles';
import { synthStack, type TemplateJson } from '../../infra/synth-stack';
import { chromiumPath } from '../../support/requirements';
import { clientConfig, type DeployedFunction, type DeployedStack, deployToMoto } from './deployed-stack';
import { awsProcessEnv, LambdaHost } from './lambda-host';
import { type Moto, motoRegion, startMoto } from './moto';
import { type AwsCall, type RecordingProxy, startRecordingProxy } from './recording-proxy';
import { startWebhookReceiver } from './webhook-receiver';

export type HttpResult = APIGatewayProxyStructuredResultV2 & { headers: Record<string, string> };

export interface DeployedLife {
  moto: Moto;
  proxy: RecordingProxy;
  stack: DeployedStack;
  template: TemplateJson;
  host: LambdaHost;
  receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  /** The operator's own view of the table (accounts, credits, checks), through the same composition root. */
  operator: Adapters;
  ecs: ECSClient;
  sqs: SQSClient;
  account: { accountId: string; apiKey: string; webhookSecret: string };
  /** The deployed function whose logical id contains `logicalIdPart`. */
  fn(logicalIdPart: string): DeployedFunction;
  api(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<HttpResult & { json: Record<string, unknown> }>;
  /** Plays the SQS event source mapping of a function once, receiving and deleting as that function's role. */
  drain(queueUrl: string, consumer: DeployedFunction, batchSize: number): Promise<number>;
  results(): Promise<number>;
  /** The control function on the control queue (cold starts, replacements). */
  control(): Promise<number>;
  /** The control function on the bot-events queue (a bot's events, in order). */
  botEvents(): Promise<number>;
  deliveries(): Promise<number>;
  joinBody(path: string): Record<string, unknown>;
  callsOf(operation: string, since?: number): AwsCall[];
  /** Runs the bot-task bundle as the container would: the task role, the container's environment, plus `env`. */
  runBotTask(env: Record<string, string>): {
    child: ReturnType<typeof spawn>;
    exited: Promise<number | null>;
    output: () => string;
  };
  /**
   * Puts ECS events on moto's default bus with the template's rule (pattern resolved) targeting a probe queue, and
   * returns the one event the rule delivered.
   */
  throughRule(
    ruleIdPart: string,
    details: Record<string, unknown>[],
  ): Promise<{ detail: Record<string, unknown> } & Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startDeployedLife(settings: SettingsInput = {}): Promise<DeployedLife> {
  const synth = synthStack(settings);
  const template = synth.json;
  const moto = await startMoto();
  const proxy = await startRecordingProxy(moto.endpoint);
  const stack = await deployToMoto(template, synth.outdir, moto.endpoint, proxy.endpoint);
  const receiver = await startWebhookReceiver();
  const host = new LambdaHost(
    proxy.endpoint,
    (fn): Record<string, string> =>
      // The receiver is on loopback over http, which only ALLOW_INSECURE_WEBHOOKS admits (a public https host
      // cannot be reached offline); join validates the URL and delivery posts to it.
      /Join|Deliver/.test(fn.logicalId)
        ? { LOCAL_STACK: JSON.stringify({ ALLOW_INSECURE_WEBHOOKS: true }) }
        : {},
  );
  const ecs = new ECSClient(clientConfig(moto.endpoint));
  const sqs = new SQSClient(clientConfig(moto.endpoint));
  const operator = wireAdapters(
    loadConfig(
      { AWS_REGION: motoRegion, TABLE_NAME: stack.tableName },
      {
        DYNAMODB_ENDPOINT: moto.endpoint,
        SQS_ENDPOINT: moto.endpoint,
        RESULTS_QUEUE_URL: stack.queues.results.url,
        CONTROL_QUEUE_URL: stack.queues.control.url,
        BOT_EVENTS_QUEUE_URL: stack.queues.botEvents.url,
      },
    ),
    createLogger('silent'),
  );
  const { account: a, apiKey } = await operator.stores.accounts.create('Acme');
  await operator.stores.ledger.grant(a.accountId, 100, 'moto test');
  const account = { accountId: a.accountId, apiKey, webhookSecret: a.webhookSecret };
  const botTaskDir = mkdtempSync(
    join(fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url)), 'bot-task-'),
  );
  await buildBotTaskBundle(botTaskDir);

  const fn = (logicalIdPart: string): DeployedFunction => {
    const found = [...stack.functions.values()].find((f) => f.logicalId.includes(logicalIdPart));
    if (!found) throw new Error(`no function ${logicalIdPart}`);
    return found;
  };

  const api: DeployedLife['api'] = async (method, path, options = {}) => {
    const [rawPath, rawQueryString = ''] = path.split('?') as [string, string?];
    const route = routeKeyOf(method, rawPath);
    const headers = { authorization: `Bearer ${account.apiKey}`, ...options.headers };
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const now = Date.now();
    const result = await host.invoke<HttpResult>(stack.routeFunction(route.key), {
      version: '2.0',
      routeKey: route.key,
      rawPath,
      rawQueryString,
      headers: { 'content-type': 'application/json', ...headers },
      ...(rawQueryString
        ? { queryStringParameters: Object.fromEntries(new URLSearchParams(rawQueryString)) }
        : {}),
      pathParameters: route.params,
      body,
      isBase64Encoded: false,
      requestContext: {
        accountId: '123456789012',
        apiId: 'moto',
        domainName: 'api.example.com',
        domainPrefix: 'api',
        http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'test' },
        requestId: `req-${now}`,
        routeKey: route.key,
        stage: '$default',
        time: new Date(now).toISOString(),
        timeEpoch: now,
      },
    });
    return { ...result, json: result.body ? JSON.parse(result.body) : {} };
  };

  const queueArnOf = (url: string): string => {
    const found = Object.values(stack.queues).find((q) => q.url === url);
    if (!found) throw new Error(`no queue of the stack at ${url}`);
    return found.arn;
  };

  const drain: DeployedLife['drain'] = async (queueUrl, consumer, batchSize) => {
    const asRole = new SQSClient(clientConfig(proxy.endpoint, consumer.role));
    try {
      const poller = new QueuePoller(
        asRole,
        queueUrl,
        (event) => host.invoke<SQSBatchResponse>(consumer, event),
        // The queue's ARN as Lambda puts it in each record (the control function orders a FIFO batch by it).
        { queueArn: queueArnOf(queueUrl), region: motoRegion, batchSize, waitSeconds: 0 },
        createLogger('silent'),
      );
      let total = 0;
      for (let n = await poller.pollOnce(); n > 0; n = await poller.pollOnce()) total += n;
      return total;
    } finally {
      asRole.destroy();
    }
  };

  const runBotTask: DeployedLife['runBotTask'] = (env) => {
    const child = spawn(process.execPath, [join(botTaskDir, 'main.mjs')], {
      env: {
        ...awsProcessEnv(stack.task.role, proxy.endpoint, stack.task.environment),
        CHROMIUM_PATH: chromiumPath,
        // Daily's hosts do not answer offline: the bot would wait up to this long to join (an internal tunable).
        MEETING_BOT_TEST_TUNABLES: JSON.stringify({ JOIN_TIMEOUT_MS: 60_000 }),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr!.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    return { child, exited, output: () => output };
  };

  const throughRule: DeployedLife['throughRule'] = async (ruleIdPart, details) => {
    const [found] = stack.resolver.ofType('AWS::Events::Rule').filter(([id]) => id.includes(ruleIdPart));
    const events = new EventBridgeClient(clientConfig(moto.endpoint));
    try {
      const name = `probe-${ruleIdPart}-${Date.now()}`;
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
      await events.send(
        new PutRuleCommand({
          Name: name,
          EventPattern: JSON.stringify(stack.resolver.resolve(found![1].Properties!.EventPattern)),
        }),
      );
      await events.send(
        new PutTargetsCommand({
          Rule: name,
          Targets: [{ Id: 'probe', Arn: `arn:aws:sqs:${motoRegion}:123456789012:${name}` }],
        }),
      );
      await events.send(
        new PutEventsCommand({
          Entries: details.map((d) => ({
            Source: 'aws.ecs',
            DetailType: 'ECS Task State Change',
            Detail: JSON.stringify(d),
            Resources: [String(d.taskArn)],
          })),
        }),
      );
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      expect(Messages).toHaveLength(1);
      return JSON.parse(Messages[0]!.Body!);
    } finally {
      events.destroy();
    }
  };

  return {
    moto,
    proxy,
    stack,
    template,
    host,
    receiver,
    operator,
    ecs,
    sqs,
    account,
    fn,
    api,
    drain,
    results: () => drain(stack.queues.results.url, fn('DeliveryResults'), 1),
    control: () => drain(stack.queues.control.url, fn('ControlPlaneControl'), 10),
    botEvents: () => drain(stack.queues.botEvents.url, fn('ControlPlaneControl'), 10),
    deliveries: () => drain(stack.queues.delivery.url, fn('DeliveryDeliver'), 5),
    joinBody: (path) => ({
      room_url: 'https://acme.daily.co/standup',
      email: 'team@acme.example',
      webhook_callback_url: receiver.url(path),
      bot_config: { name: 'Scribe' },
    }),
    callsOf: (operation, since = 0) => proxy.calls.slice(since).filter((c) => c.operation === operation),
    runBotTask,
    throughRule,
    async close() {
      await host.close();
      operator.destroy();
      ecs.destroy();
      sqs.destroy();
      await receiver.close();
      await proxy.close();
      await moto.stop();
      rmSync(botTaskDir, { recursive: true, force: true });
      rmSync(synth.outdir, { recursive: true, force: true });
    },
  };
}

/** The calls made as one of the template's roles (the test's own setup and checks are the operator's). */
export function roleCalls(calls: AwsCall[], template: TemplateJson): AwsCall[] {
  return calls.filter((c) => template.Resources[c.principal]?.Type === 'AWS::IAM::Role' && c.status < 500);
}

function routeKeyOf(method: string, path: string): { key: string; params: Record<string, string> } {
  const patterns = [
    '/api/bot/join',
    '/v1/bots/leave/{bot_id}',
    '/v1/bot/{bot_id}/stop',
    '/api/bot/{bot_id}/status',
    '/api/bot/{bot_id}/transcript',
    '/api/bot/{bot_id}/deliveries',
    '/api/bot/{bot_id}/data',
    '/api/bots',
    '/openapi.json',
  ];
  for (const p of patterns) {
    const re = new RegExp(`^${p.replace('{bot_id}', '(?<bot_id>[^/]+)')}$`);
    const m = re.exec(path);
    if (m) return { key: `${method} ${p}`, params: m.groups ? { ...m.groups } : {} };
  }
  return { key: '$default', params: {} };
}
