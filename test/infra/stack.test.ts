// The synthesized template of the default (dev) stack: its resources, routes, permissions and alarms, checked without
// an AWS account or Docker. One synthesis (with real esbuild bundling) is shared by every test in this file.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningIndex, ttlAttribute } from '../../core/adapters/dynamodb/table';
import { metricNames, metricsService } from '../../core/metrics';
import { routeTable } from '../../functions/http/route-table';
import { botContainerName } from '../../infra/constructs/bot-runtime';
import { dashboardWidgets } from '../../infra/constructs/dashboard';
import { queueLimits } from '../../infra/limits';
import {
  asArray,
  type CfnResource,
  envOf,
  refTarget,
  resourcesOfType,
  type Synthesized,
  synthStack,
} from './synth-stack';

let s: Synthesized;
let R: Record<string, CfnResource>;

beforeAll(() => {
  s = synthStack();
  R = s.json.Resources;
});
afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

const logicalId = (construct: IConstruct) => s.stack.getLogicalId(construct.node.defaultChild as never);
const fnId = (fn: { function: IConstruct }) => logicalId(fn.function);
const props = (id: string) => R[id]!.Properties!;

/** Every Allow statement attached to a role: its default policy and inline policies. */
function statementsOfRole(roleId: string): { Action: string[]; Resource: unknown[]; Condition?: unknown }[] {
  const out: { Action: string[]; Resource: unknown[]; Condition?: unknown }[] = [];
  const add = (doc: { Statement: Record<string, unknown>[] }) => {
    for (const st of doc.Statement) {
      if (st.Effect !== 'Allow') continue;
      out.push({
        Action: asArray(st.Action as string | string[]),
        Resource: asArray(st.Resource),
        Condition: st.Condition,
      });
    }
  };
  for (const [, policy] of resourcesOfType(s.json, 'AWS::IAM::Policy')) {
    if (asArray(policy.Properties!.Roles).some((r) => refTarget(r) === roleId))
      add(policy.Properties!.PolicyDocument);
  }
  for (const p of asArray(props(roleId).Policies)) add((p as { PolicyDocument: never }).PolicyDocument);
  return out;
}

const roleOfFunction = (functionId: string) => refTarget(props(functionId).Role)!;
/**
 * CDK's own custom-resource handlers, run by CloudFormation during a deploy, not by the service: the default security
 * group's lock-down and the AwsCustomResource that rolls the warm pool onto a new task revision (bot-pool.ts).
 */
const cdkHelperFunction = (id: string) =>
  id.startsWith('CustomVpcRestrictDefaultSG') || id.startsWith('AWS679f53fac002430cb0da5b7982bd2287');
/** What CDK grants every function for active tracing (service-function.ts). */
const xray = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
const actionsOf = (roleId: string) => new Set(statementsOfRole(roleId).flatMap((st) => st.Action));

describe('the API', () => {
  it('routes every route of the route table (plus the stop alias, OpenAPI and deliveries) to its own function', () => {
    const routes = routeTable;
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'POST /api/bot/join',
        'POST /v1/bots/leave/{bot_id}',
        'POST /v1/bot/{bot_id}/stop',
        'GET /api/bot/{bot_id}/status',
        'GET /api/bot/{bot_id}/transcript',
        'GET /api/bots',
        'GET /openapi.json',
      ]),
    );
    const cfnRoutes = resourcesOfType(s.json, 'AWS::ApiGatewayV2::Route');
    expect(cfnRoutes).toHaveLength(routes.length + 1); // and $default
    for (const route of routes) {
      const [, cfnRoute] = cfnRoutes.find(
        ([, r]) => r.Properties!.RouteKey === `${route.method} ${route.path}`,
      )!;
      expect(cfnRoute, `${route.method} ${route.path}`).toBeDefined();
      const target = cfnRoute.Properties!.Target['Fn::Join'][1] as unknown[];
      const integrationId = refTarget(target[1])!;
      const integration = props(integrationId);
      expect(integration.IntegrationType).toBe('AWS_PROXY');
      expect(integration.PayloadFormatVersion).toBe('2.0');
      const fn = s.stack.api.functions.get(route.name)!;
      expect(refTarget(integration.IntegrationUri), route.path).toBe(fnId(fn));
    }
    // The transcript pages are the status function's too: no function of their own.
    expect(routes.find((r) => r.path === '/api/bot/{bot_id}/transcript')?.name).toBe('status');
    // The alias reaches the same function as leave.
    expect(s.stack.api.functions.size).toBe(new Set(routes.map((r) => r.name)).size);
  });

  it('sends every other method and path ($default) to the not-found function, which may only write logs', () => {
    const [, fallback] = resourcesOfType(s.json, 'AWS::ApiGatewayV2::Route').find(
      ([, r]) => r.Properties!.RouteKey === '$default',
    )!;
    const target = fallback.Properties!.Target['Fn::Join'][1] as unknown[];
    const integration = props(refTarget(target[1])!);
    expect(integration.IntegrationType).toBe('AWS_PROXY');
    const fn = s.stack.api.notFoundFunction;
    expect(refTarget(integration.IntegrationUri)).toBe(fnId(fn));
    expect([...actionsOf(roleOfFunction(fnId(fn)))].sort()).toEqual(
      ['logs:CreateLogStream', 'logs:PutLogEvents', ...xray].sort(),
    );
  });

  it('throttles the stage and writes JSON access logs', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiAccessLogs'), 'Arn'] },
        Format: Match.stringLikeRegexp('\\$context\\.requestId'),
      },
    });
    const stage = resourcesOfType(s.json, 'AWS::ApiGatewayV2::Stage')[0]![1];
    expect(() => JSON.parse(stage.Properties!.AccessLogSettings.Format)).not.toThrow();
  });

  it('has no authorizer (authentication is in the handlers) and no CORS unless origins are configured', () => {
    for (const [, route] of resourcesOfType(s.json, 'AWS::ApiGatewayV2::Route')) {
      expect(route.Properties!.AuthorizationType ?? 'NONE').toBe('NONE');
    }
    expect(
      resourcesOfType(s.json, 'AWS::ApiGatewayV2::Api')[0]![1].Properties!.CorsConfiguration,
    ).toBeUndefined();
  });
});

describe('the Lambda functions', () => {
  const serviceFunctions = () => [
    ...s.stack.api.functions.values(),
    s.stack.delivery.resultsFunction,
    s.stack.controlPlane.function,
    ...(s.stack.delivery.deliveryFunction ? [s.stack.delivery.deliveryFunction] : []),
    s.stack.operations.taskStopped,
    s.stack.operations.sweeper,
  ];

  it('are esbuild bundles for ARM64 on Node.js ≥ 22 with ≥ 512 MB, and no source maps', () => {
    expect(serviceFunctions().length).toBeGreaterThanOrEqual(8);
    for (const fn of serviceFunctions()) {
      const p = props(fnId(fn));
      expect(p.Architectures).toEqual(['arm64']);
      expect(Number(/^nodejs(\d+)/.exec(p.Runtime)![1])).toBeGreaterThanOrEqual(22);
      expect(p.MemorySize).toBeGreaterThanOrEqual(512);
      expect(p.Handler).toBe('index.handler');
      expect(p.Environment.Variables.NODE_OPTIONS ?? '').not.toMatch(/source-maps/);
      expect(refTarget(p.LoggingConfig.LogGroup)).toMatch(/Logs/);
    }
  });

  it('bundle the AWS SDK into one ESM file each, with no source map, built without Docker', () => {
    for (const fn of serviceFunctions()) {
      const key = props(fnId(fn)).Code.S3Key as string;
      const dir = join(s.outdir, `asset.${key.replace(/\.zip$/, '')}`);
      const files = readdirSync(dir);
      expect(files).toEqual(['index.mjs']);
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      // No import of the runtime's SDK copy: every @aws-sdk module is inside the bundle.
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//);
      expect(code).not.toMatch(/sourceMappingURL/);
    }
  });

  it('trace actively with X-Ray, as the Powertools service the logs name', () => {
    for (const fn of serviceFunctions()) {
      const p = props(fnId(fn));
      expect(p.TracingConfig).toEqual({ Mode: 'Active' });
      expect(p.Environment.Variables.POWERTOOLS_SERVICE_NAME).toBe('meeting-bot');
    }
    expect(props(fnId(s.stack.api.notFoundFunction)).TracingConfig).toEqual({ Mode: 'Active' });
  });

  it('have their own roles with no managed policies', () => {
    for (const fn of serviceFunctions()) {
      expect(props(roleOfFunction(fnId(fn))).ManagedPolicyArns).toBeUndefined();
    }
  });

  it('get exactly the actions their use cases need', () => {
    // Every function writes its logs and, with active tracing, its X-Ray segments.
    const logs = ['logs:CreateLogStream', 'logs:PutLogEvents', ...xray];
    const consume = [
      'sqs:ReceiveMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueUrl',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
    ];
    const send = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
    const items = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'];
    const bedrock = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];
    const api = s.stack.api.functions;
    const expected: [string, string[]][] = [
      [
        'join',
        [
          ...logs,
          ...items,
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
          'ecs:RunTask',
          'ecs:TagResource',
          'iam:PassRole',
          // With the warm pool: the wake-up on the pool queue and the delayed cold-start fallback.
          ...send,
        ],
      ],
      [
        'leave',
        [
          ...logs,
          'dynamodb:GetItem',
          'dynamodb:UpdateItem',
          'dynamodb:PutItem',
          'ecs:StopTask',
          'ecs:ListTasks',
          // A leave before a scheduled bot's join_at ends it (results queue) and takes it off the scheduler's list.
          'dynamodb:DeleteItem',
          ...send,
        ],
      ],
      // The status function also signs recording downloads (a presigned GET carries its permissions).
      [
        'status',
        [...logs, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 's3:GetObject', 'kms:Decrypt'],
      ],
      [
        'list',
        [...logs, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
      ],
      // The data deletion: the tombstone and the delivery payloads (UpdateItem), the segments (Query, then
      // BatchWriteItem deletes), the recording's objects (listed, deleted), and bot.data_deleted on the bot-events queue.
      [
        'data',
        [
          ...logs,
          'dynamodb:GetItem',
          'dynamodb:UpdateItem',
          'dynamodb:Query',
          'dynamodb:BatchWriteItem',
          's3:ListBucket',
          's3:DeleteObject',
          ...send,
        ],
      ],
      ['openapi', logs],
    ];
    for (const [name, actions] of expected) {
      expect([...actionsOf(roleOfFunction(fnId(api.get(name as never)!)))].sort(), name).toEqual(
        [...new Set(actions)].sort(),
      );
    }
    const d = s.stack.delivery;
    // The results function only makes results: no RunTask, no PassRole, no offer to withdraw; it assembles the
    // recording from its pieces in a multipart upload (and takes back a file it assembled while the session's data
    // was deleted).
    const assemble = [
      's3:ListBucket',
      's3:GetObject',
      's3:PutObject',
      's3:AbortMultipartUpload',
      's3:DeleteObject',
      'kms:Decrypt',
      'kms:GenerateDataKey',
    ];
    expect([...actionsOf(roleOfFunction(fnId(d.resultsFunction)))].sort()).toEqual(
      [...new Set([...logs, ...consume, ...send, ...items, ...bedrock, ...assemble])].sort(),
    );
    // The control function starts cold tasks and replacements (RunTask like the join) and, with the warm pool, grows
    // the pool service in a storm (DescribeServices, UpdateService on that service only). No model.
    const runTask = ['ecs:RunTask', 'ecs:TagResource', 'iam:PassRole'];
    const growPool = ['ecs:DescribeServices', 'ecs:UpdateService'];
    expect([...actionsOf(roleOfFunction(fnId(s.stack.controlPlane.function)))].sort()).toEqual(
      [...new Set([...logs, ...consume, ...send, ...items, ...runTask, ...growPool])].sort(),
    );
    if (d.deliveryFunction) {
      expect([...actionsOf(roleOfFunction(fnId(d.deliveryFunction)))].sort()).toEqual(
        // ConditionCheckItem: a live transcript's delivery is stored only while the session's data is not deleted.
        [
          ...new Set([
            ...logs,
            ...consume,
            ...send,
            ...items,
            'ses:SendEmail',
            'dynamodb:ConditionCheckItem',
          ]),
        ].sort(),
      );
    }
    expect([...actionsOf(roleOfFunction(fnId(s.stack.operations.taskStopped)))].sort()).toEqual(
      [...new Set([...logs, ...send, ...items])].sort(),
    );
    // The sweeper also runs the retention sweep: its due entries (DeleteItem), the segments and the recording's
    // objects it deletes.
    expect([...actionsOf(roleOfFunction(fnId(s.stack.operations.sweeper)))].sort()).toEqual(
      [
        ...new Set([
          ...logs,
          ...send,
          ...items,
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
          's3:ListBucket',
          's3:DeleteObject',
        ]),
      ].sort(),
    );
    // The scheduler reads and deletes the scheduled-join entries, queues starts, and sizes the pool's service.
    expect([...actionsOf(roleOfFunction(fnId(s.stack.operations.scheduler)))].sort()).toEqual(
      [
        ...new Set([
          ...logs,
          ...send,
          'dynamodb:Query',
          'dynamodb:DeleteItem',
          'ecs:DescribeServices',
          'ecs:UpdateService',
        ]),
      ].sort(),
    );
  });

  it('scope each grant to its resource: table, index, queues, cluster, roles, model, SES identity', () => {
    const tableId = logicalId(s.stack.data.table);
    const join = statementsOfRole(roleOfFunction(fnId(s.stack.api.functions.get('join')!)));
    for (const st of join.filter((x) => x.Action.some((a) => a.startsWith('dynamodb:')))) {
      expect(st.Resource.map(refTarget)).toEqual([tableId]);
    }
    const runTask = join.find((x) => x.Action.includes('ecs:RunTask'))!;
    expect(JSON.stringify(runTask.Resource)).toContain(':task-definition/meeting-bot-dev-bot:*');
    expect(runTask.Condition).toEqual({
      ArnEquals: { 'ecs:cluster': { 'Fn::GetAtt': [logicalId(s.stack.runtime.cluster), 'Arn'] } },
    });
    const passRole = join.find((x) => x.Action.includes('iam:PassRole'))!;
    expect(passRole.Resource.map(refTarget).sort()).toEqual(
      [
        logicalId(s.stack.runtime.taskDefinition.taskRole),
        logicalId(s.stack.runtime.taskDefinition.executionRole!),
      ].sort(),
    );
    expect(passRole.Condition).toEqual({
      StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' },
    });

    const sweeper = statementsOfRole(roleOfFunction(fnId(s.stack.operations.sweeper)));
    const indexQuery = sweeper.find((x) => JSON.stringify(x.Resource).includes('/index/'))!;
    expect(indexQuery.Action).toEqual(['dynamodb:Query']);
    expect(JSON.stringify(indexQuery.Resource)).toContain(`/index/${runningIndex.name}`);

    const results = statementsOfRole(roleOfFunction(fnId(s.stack.delivery.resultsFunction)));
    const model = results.find((x) => x.Action.includes('bedrock:InvokeModel'))!;
    expect(JSON.stringify(model.Resource)).toContain('::foundation-model/amazon.nova-pro-v1:0');

    // Which queues each role may send to: decisions and events go to the control plane, never through results.
    const c = s.stack.controlPlane;
    const d = s.stack.delivery;
    const sendsOf = (role: string) =>
      statementsOfRole(role)
        .filter((st) => st.Action.includes('sqs:SendMessage'))
        .flatMap((st) => st.Resource.map(refTarget))
        .sort();
    const ids = (...qs: IConstruct[]) => qs.map(logicalId).sort();
    // The results function's own queue too: a recorded session's recording is assembled in a step of its own.
    expect(sendsOf(roleOfFunction(fnId(d.resultsFunction)))).toEqual(
      ids(d.deliveryQueue, c.botEventsQueue, d.resultsQueue),
    );
    // Its own control queue too: a scheduled session's pool offer comes with the delayed cold-start fallback, and
    // with a wake-up on the pool queue.
    expect(sendsOf(roleOfFunction(fnId(c.function)))).toEqual(
      ids(c.controlQueue, c.botEventsQueue, d.resultsQueue, d.deliveryQueue, s.stack.pool!.queue),
    );
    // The scheduler queues scheduled starts (and its failed invocations go to the events DLQ).
    expect(sendsOf(roleOfFunction(fnId(s.stack.operations.scheduler)))).toEqual(
      ids(c.controlQueue, s.stack.operations.eventsDlq),
    );
    for (const fn of [s.stack.operations.taskStopped, s.stack.operations.sweeper]) {
      // And their own failed invocations to the events DLQ (async invoke destination).
      expect(sendsOf(roleOfFunction(fnId(fn)))).toEqual(
        ids(c.controlQueue, c.botEventsQueue, d.resultsQueue, s.stack.operations.eventsDlq),
      );
    }
    expect(
      sendsOf(logicalId(s.stack.runtime.taskDefinition.taskRole)).filter(
        (id) => id !== logicalId(s.stack.pool!.queue),
      ),
    ).toEqual(ids(c.controlQueue, c.botEventsQueue, d.resultsQueue));

    if (s.stack.delivery.deliveryFunction) {
      const delivery = statementsOfRole(roleOfFunction(fnId(s.stack.delivery.deliveryFunction)));
      const ses = delivery.find((x) => x.Action.includes('ses:SendEmail'))!;
      expect(JSON.stringify(ses.Resource)).toContain(':identity/example.com');
      expect(ses.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'meeting-bot@example.com' } });
    }
  });
});

describe('least privilege across every IAM policy in the stack', () => {
  // The only wildcards allowed, each because AWS requires one (see the reasons where they are granted).
  const allowedWildcards: { action: RegExp; resource: RegExp; why: string }[] = [
    // ecr:GetAuthorizationToken has no resource-level permissions (CDK adds it to pull the image asset).
    { action: /^ecr:GetAuthorizationToken$/, resource: /^"\*"$/, why: 'ECR login' },
    // polly:SynthesizeSpeech is scoped only by lexicon ARNs, and the bot uses no lexicon.
    { action: /^polly:SynthesizeSpeech$/, resource: /^"\*"$/, why: 'Polly speech' },
    // Any revision of our own task definition family (a deploy may race a running join).
    { action: /^ecs:RunTask$/, resource: /:task-definition\/meeting-bot-dev-bot:\*"/, why: 'task revisions' },
    // The task id does not exist before RunTask / is per bot: this cluster's tasks only.
    {
      action: /^ecs:(TagResource|StopTask|UpdateTaskProtection)$/,
      resource: /:task\/",\{"Ref":"BotRuntimeCluster\w+"\},"\/\*"/,
      why: 'tasks',
    },
    // Recordings are keyed by bot id: the grants name the layout (pieces, the file), never the whole bucket.
    {
      action: /^s3:(PutObject|AbortMultipartUpload|GetObject|DeleteObject)$/,
      resource: /RecordingsBucket\w+","Arn"\]\},"\/recordings\/\*(\/pieces\/\*|\/recording\.webm)?"/,
      why: 'recording objects by bot id',
    },
    // X-Ray's segment writes have no resource-level permissions (CDK grants them for active tracing).
    { action: /^xray:(PutTraceSegments|PutTelemetryRecords)$/, resource: /^"\*"$/, why: 'X-Ray segments' },
    // ListTasks without a container instance is authorized against `*`; the ecs:cluster condition scopes it.
    { action: /^ecs:ListTasks$/, resource: /^"\*"$/, why: 'ListTasks by startedBy' },
    // The default models' inference profiles route to the geography's regions (`us-*`, `eu-*`, `ap-*`), where
    // Bedrock authorizes each request against the foundation model: that model, in those regions only.
    {
      action: /^bedrock:InvokeModel(WithResponseStream)?$/,
      resource:
        /"BedrockGeography",\{"Ref":"AWS::Region"\},"regions"\]\},"-\*::foundation-model\/amazon\.nova-(lite|pro)-v1:0"/,
      why: 'inference profile destinations',
    },
  ];

  it('has no wildcard action anywhere', () => {
    for (const [id] of resourcesOfType(s.json, 'AWS::IAM::Role')) {
      for (const st of statementsOfRole(id)) {
        for (const action of st.Action) expect(action, id).not.toContain('*');
      }
    }
  });

  it('has no wildcard resource except where AWS requires one', () => {
    const seen = new Set<string>();
    for (const [id] of resourcesOfType(s.json, 'AWS::IAM::Role')) {
      for (const st of statementsOfRole(id)) {
        for (const resource of st.Resource) {
          const text = JSON.stringify(resource);
          // `-??????` is Secrets Manager's random suffix of the one secret name; GetAtt ARNs are exact.
          if (!text.includes('*')) continue;
          const allowed = allowedWildcards.find(
            (w) => st.Action.every((a) => w.action.test(a)) && w.resource.test(text),
          );
          expect(allowed, `${id}: ${st.Action.join(',')} on ${text}`).toBeDefined();
          seen.add(allowed!.why);
        }
      }
    }
    expect([...seen].sort()).toEqual(allowedWildcards.map((w) => w.why).sort());
  });

  it('attaches managed policies only to the CDK provider that locks down the default security group', () => {
    const withManaged = resourcesOfType(s.json, 'AWS::IAM::Role').filter(
      ([, r]) => r.Properties!.ManagedPolicyArns,
    );
    expect(withManaged.map(([id]) => id)).toEqual([
      expect.stringMatching(/^CustomVpcRestrictDefaultSGCustomResourceProviderRole/),
    ]);
  });
});

describe('the data layer', () => {
  it('is the table core/adapters/dynamodb/table.ts builds keys for: on-demand, PITR, TTL, the running index', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'meeting-bot-dev',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: runningIndex.pk, AttributeType: 'S' },
        { AttributeName: runningIndex.sk, AttributeType: 'S' },
      ]),
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      GlobalSecondaryIndexes: [
        {
          IndexName: runningIndex.name,
          KeySchema: [
            { AttributeName: runningIndex.pk, KeyType: 'HASH' },
            { AttributeName: runningIndex.sk, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    });
    const [, table] = resourcesOfType(s.json, 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties!.AttributeDefinitions).toHaveLength(4);
    // A dev stage can be torn down; production retains and protects (test/infra/settings.test.ts).
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties!.DeletionProtectionEnabled).toBe(false);
  });
});

describe('the recordings bucket', () => {
  it('is private, SSE-KMS with a rotated key of the stack, TLS only, and expires recordings', () => {
    const [[, bucket]] = resourcesOfType(s.json, 'AWS::S3::Bucket') as [[string, CfnResource]];
    const p = bucket.Properties!;
    expect(p.BucketEncryption.ServerSideEncryptionConfiguration[0]).toMatchObject({
      ServerSideEncryptionByDefault: {
        SSEAlgorithm: 'aws:kms',
        KMSMasterKeyID: { 'Fn::GetAtt': [expect.stringMatching(/^RecordingsKey/), 'Arn'] },
      },
      BucketKeyEnabled: true,
    });
    expect(p.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(p.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ Prefix: 'recordings/', ExpirationInDays: 30, Status: 'Enabled' }),
    ]);
    const [[, key]] = resourcesOfType(s.json, 'AWS::KMS::Key').filter(([id]) =>
      id.startsWith('RecordingsKey'),
    ) as [[string, CfnResource]];
    expect(key.Properties!.EnableKeyRotation).toBe(true);
    const [[, policy]] = resourcesOfType(s.json, 'AWS::S3::BucketPolicy') as [[string, CfnResource]];
    expect(policy.Properties!.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('lets the bot task write pieces only, and nothing but the results and status functions read', () => {
    const task = logicalId(s.stack.runtime.taskDefinition.taskRole);
    const s3Statements = statementsOfRole(task).filter((st) => st.Action.some((a) => a.startsWith('s3:')));
    expect(s3Statements.flatMap((st) => st.Action)).toEqual(['s3:PutObject']);
    expect(JSON.stringify(s3Statements[0]!.Resource)).toContain('/recordings/*/pieces/*');
    const readers = resourcesOfType(s.json, 'AWS::IAM::Role')
      .map(([id]) => id)
      .filter((id) => statementsOfRole(id).some((st) => st.Action.includes('s3:GetObject')));
    expect(readers.sort()).toEqual(
      [
        roleOfFunction(fnId(s.stack.delivery.resultsFunction)),
        roleOfFunction(fnId(s.stack.api.functions.get('status')!)),
      ].sort(),
    );
  });
});

describe('queues', () => {
  const queue = (q: IConstruct) => props(logicalId(q));

  it('are encrypted, TLS-only, and each work queue has a DLQ above its retry count', () => {
    const d = s.stack.delivery;
    expect(queue(d.resultsQueue).RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(d.resultsDlq), 'Arn'] },
      maxReceiveCount: queueLimits.results.maxReceiveCount,
    });
    expect(queue(d.deliveryQueue).RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(d.deliveryDlq), 'Arn'] },
      maxReceiveCount: queueLimits.delivery.maxReceiveCount,
    });
    // Above the delivery function's own 15 attempts (core/delivery): SQS never cuts its retries short.
    expect(queueLimits.delivery.maxReceiveCount).toBeGreaterThan(15);
    const c = s.stack.controlPlane;
    for (const [q, dlq] of [
      [c.controlQueue, c.controlDlq],
      [c.botEventsQueue, c.botEventsDlq],
    ] as const) {
      expect(queue(q).RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(dlq), 'Arn'] },
        maxReceiveCount: queueLimits.control.maxReceiveCount,
      });
    }
    // A bot's events in order: FIFO grouped per bot (throughput per group), its DLQ FIFO as SQS requires; the
    // control queue standard, because the warm pool's fallback is a delayed message (FIFO takes no per-message delay).
    for (const q of [c.botEventsQueue, c.botEventsDlq]) {
      expect(queue(q)).toMatchObject({ FifoQueue: true });
    }
    expect(queue(c.botEventsQueue)).toMatchObject({
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
    expect(queue(c.controlQueue).FifoQueue).toBeUndefined();
    const poolQueue = logicalId(s.stack.pool!.queue);
    for (const [id, q] of resourcesOfType(s.json, 'AWS::SQS::Queue')) {
      expect(q.Properties!.SqsManagedSseEnabled, id).toBe(true);
      // The pool's wake-up calls are worthless after seconds (the fallback has started a cold task by then).
      expect(q.Properties!.MessageRetentionPeriod, id).toBe(id === poolQueue ? 300 : 14 * 24 * 3600);
    }
    for (const [, policy] of resourcesOfType(s.json, 'AWS::SQS::QueuePolicy')) {
      expect(policy.Properties!.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('feed their consumers with ReportBatchItemFailures, visibility ≥ 6 × the function timeout', () => {
    const d = s.stack.delivery;
    const c = s.stack.controlPlane;
    const pairs = [
      [d.resultsQueue, d.resultsFunction] as const,
      [c.controlQueue, c.function] as const,
      [c.botEventsQueue, c.function] as const,
    ];
    if (d.deliveryFunction) pairs.push([d.deliveryQueue, d.deliveryFunction] as const);
    for (const [q, fn] of pairs) {
      s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [logicalId(q), 'Arn'] },
        FunctionName: { Ref: fnId(fn) },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(queue(q).VisibilityTimeout).toBeGreaterThanOrEqual(6 * props(fnId(fn)).Timeout);
    }
  });
});

describe('the bot runtime', () => {
  it('runs the image asset from bot-task/Dockerfile with init, a 120 s stop timeout and the secret from Secrets Manager', () => {
    const td = props(logicalId(s.stack.runtime.taskDefinition));
    expect(td.RequiresCompatibilities).toEqual(['FARGATE']);
    expect(td.NetworkMode).toBe('awsvpc');
    expect([td.Cpu, td.Memory]).toEqual(['1024', '2048']);
    expect(td.ContainerDefinitions).toHaveLength(1);
    const c = td.ContainerDefinitions[0];
    expect(c.Name).toBe(botContainerName);
    expect(c.Image['Fn::Sub']).toContain(
      `container-assets-\${AWS::AccountId}-\${AWS::Region}:${s.stack.runtime.image.assetHash}`,
    );
    expect(c.StopTimeout).toBe(120);
    expect(c.LinuxParameters.InitProcessEnabled).toBe(true);
    expect(c.LogConfiguration.LogDriver).toBe('awslogs');
    expect(c.Secrets.map((x: { Name: string }) => x.Name)).toEqual(['DAILY_API_KEY']);
    expect(JSON.stringify(c.Secrets[0].ValueFrom)).toContain(':secretsmanager:');
    expect(JSON.stringify(c.Secrets[0].ValueFrom)).toContain(':secret:meeting-bot/daily-api-key');
    // Settings only in the environment: nothing that looks like a credential.
    for (const env of c.Environment as { Name: string }[])
      expect(env.Name).not.toMatch(/KEY|SECRET|TOKEN|PASSWORD/);
  });

  it('stages the image asset from a small, allow-listed build context (no node_modules), without building it', () => {
    const manifest = JSON.parse(readFileSync(join(s.outdir, `${s.stack.stackName}.assets.json`), 'utf8'));
    const images = Object.values(manifest.dockerImages) as {
      source: { directory: string; dockerFile: string };
    }[];
    expect(images).toHaveLength(1);
    expect(images[0]!.source.dockerFile).toBe('bot-task/Dockerfile');
    const dir = join(s.outdir, images[0]!.source.directory);
    const top = readdirSync(dir).sort();
    expect(top).toEqual(
      [
        '.dockerignore',
        'bot-task',
        'core',
        'package-lock.json',
        'package.json',
        'scripts',
        'tsconfig.json',
      ].sort(),
    );
    expect(existsSync(join(dir, 'bot-task', 'Dockerfile'))).toBe(true);
    let bytes = 0;
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        expect(e.name).not.toMatch(/^(node_modules|dist|\.data|cdk\.out)$/);
        if (e.isDirectory()) walk(join(d, e.name));
        else bytes += statSync(join(d, e.name)).size;
      }
    };
    walk(dir);
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
  });

  it('runs in public subnets with public IPs and no NAT gateway, Spot first with Fargate as fallback', () => {
    expect(resourcesOfType(s.json, 'AWS::EC2::NatGateway')).toHaveLength(0);
    s.template.hasResourceProperties('AWS::ECS::ClusterCapacityProviderAssociations', {
      CapacityProviders: Match.arrayWith(['FARGATE', 'FARGATE_SPOT']),
    });
    const env = envOf(props(fnId(s.stack.api.functions.get('join')!)).Environment.Variables);
    expect(env).toMatchObject({
      BOT_CONTAINER_NAME: botContainerName,
      BOT_ASSIGN_PUBLIC_IP: 'true',
      BOT_CAPACITY_PROVIDERS: 'FARGATE_SPOT,FARGATE',
      BOT_CLUSTER_ARN: { 'Fn::GetAtt': [logicalId(s.stack.runtime.cluster), 'Arn'] },
      BOT_TASK_DEFINITION_ARN: { Ref: logicalId(s.stack.runtime.taskDefinition) },
      DAILY_ROOM_DOMAINS: 'daily.co',
    });
    const subnetIds = JSON.stringify(env.BOT_SUBNET_IDS);
    expect(subnetIds).toMatch(/publicSubnet1/);
    expect(subnetIds).toMatch(/publicSubnet2/);
    // No inbound rules on the tasks' security group.
    const sg = props(logicalId(s.stack.runtime.securityGroup));
    expect(sg.SecurityGroupIngress).toBeUndefined();
  });

  it('gives the task role only its session items, the results queue, the conversation model, Polly, recording pieces (and the pool)', () => {
    const role = logicalId(s.stack.runtime.taskDefinition.taskRole);
    expect([...actionsOf(role)].sort()).toEqual(
      [
        'bedrock:InvokeModel',
        'bedrock:InvokeModelWithResponseStream',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'polly:SynthesizeSpeech',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:SendMessage',
        // The warm pool: wake-ups, scale-in protection of its own task.
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'ecs:UpdateTaskProtection',
        // The recording's pieces (encrypted with the recordings key).
        's3:PutObject',
        'kms:GenerateDataKey',
      ].sort(),
    );
    const model = statementsOfRole(role).find((x) => x.Action.includes('bedrock:InvokeModel'))!;
    expect(JSON.stringify(model.Resource)).toContain('::foundation-model/amazon.nova-lite-v1:0');
    const exec = logicalId(s.stack.runtime.taskDefinition.executionRole!);
    const secret = statementsOfRole(exec).find((x) => x.Action.includes('secretsmanager:GetSecretValue'))!;
    expect(JSON.stringify(secret.Resource)).toContain(':secret:meeting-bot/daily-api-key-??????');
  });
});

describe('operations', () => {
  it('sends STOPPED task-state events of this cluster to the task-stopped function', () => {
    const rule = props(logicalId(s.stack.operations.taskStateRule));
    expect(rule.EventPattern).toEqual({
      source: ['aws.ecs'],
      'detail-type': ['ECS Task State Change'],
      detail: {
        clusterArn: [{ 'Fn::GetAtt': [logicalId(s.stack.runtime.cluster), 'Arn'] }],
        lastStatus: ['STOPPED'],
      },
    });
    expect(rule.Targets).toHaveLength(1);
    expect(refTarget(rule.Targets[0].Arn)).toBe(fnId(s.stack.operations.taskStopped));
    expect(refTarget(rule.Targets[0].DeadLetterConfig.Arn)).toBe(logicalId(s.stack.operations.eventsDlq));
    expect(envOf(props(fnId(s.stack.operations.taskStopped)).Environment.Variables).BOT_CONTAINER_NAME).toBe(
      botContainerName,
    );
  });

  it('sweeps heartbeats every minute', () => {
    const rule = props(logicalId(s.stack.operations.sweepRule));
    expect(rule.ScheduleExpression).toBe('rate(1 minute)');
    expect(refTarget(rule.Targets[0].Arn)).toBe(fnId(s.stack.operations.sweeper));
  });

  it('alarms on DLQ depth, function errors, bot task failures, launches given up and API 5xx, to an encrypted SNS topic', () => {
    const topicId = logicalId(s.stack.operations.alarmTopic);
    expect(props(topicId).KmsMasterKeyId).toBeDefined();
    // Every alarm tells people, except the warm pool's two scaling alarms, which run its scaling policies.
    const scaling = [s.stack.pool!.scaleOutAlarm, s.stack.pool!.scaleInAlarm].map(logicalId);
    const alarms = resourcesOfType(s.json, 'AWS::CloudWatch::Alarm')
      .filter(([id]) => !scaling.includes(id))
      .map(([, a]) => a.Properties!);
    for (const a of alarms) expect(a.AlarmActions).toEqual([{ Ref: topicId }]);
    const dlqAlarms = alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible');
    const dlqs = [
      s.stack.delivery.resultsDlq,
      s.stack.delivery.deliveryDlq,
      s.stack.operations.eventsDlq,
      s.stack.controlPlane.controlDlq,
      s.stack.controlPlane.botEventsDlq,
    ];
    expect(dlqAlarms.map((a) => refTarget(a.Dimensions[0].Value)).sort()).toEqual(
      dlqs.map((q) => `${logicalId(q)}`).sort(),
    );
    const errorAlarms = alarms.filter((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda');
    const functionCount = resourcesOfType(s.json, 'AWS::Lambda::Function').filter(
      ([id]) => !cdkHelperFunction(id),
    ).length;
    expect(errorAlarms).toHaveLength(functionCount);
    // Bot task failures are the service's own EMF metric (core/metrics.ts), not a filter on log text.
    expect(alarms).toContainEqual(
      expect.objectContaining({
        MetricName: 'BotTaskFailures',
        Namespace: 'MeetingBot/dev',
        Dimensions: [{ Name: 'service', Value: metricsService }],
        Threshold: 1,
      }),
    );
    // So are bots that left because the room's transcription was unavailable.
    expect(alarms).toContainEqual(
      expect.objectContaining({
        MetricName: 'TranscriptionUnavailable',
        Namespace: 'MeetingBot/dev',
        Dimensions: [{ Name: 'service', Value: metricsService }],
        Threshold: 3,
      }),
    );
    // An e-mail SES refused for good (access denied, unverified identity) is recorded failed at once, not retried
    // for days: this alarm is what says the results e-mails stopped.
    expect(alarms).toContainEqual(
      expect.objectContaining({
        AlarmName: 'MeetingBot-dev-EmailRefused',
        MetricName: 'EmailRefusals',
        Namespace: 'MeetingBot/dev',
        Dimensions: expect.arrayContaining([{ Name: 'kind', Value: 'permanent' }]),
        Threshold: 1,
      }),
    );
    expect(alarms).toContainEqual(
      expect.objectContaining({ MetricName: '5xx', Namespace: 'AWS/ApiGateway' }),
    );
    // Bot launches given up (a join's 503, a fallback's or a replacement's failed session), summed over the stages.
    const launches = alarms.find((a) => a.AlarmName === 'MeetingBot-dev-LaunchFailures');
    const series = (launches?.Metrics ?? [])
      .filter((m: { MetricStat?: unknown }) => m.MetricStat)
      .map(
        (m: {
          MetricStat: { Metric: { MetricName: string; Dimensions: { Name: string; Value: string }[] } };
        }) => m.MetricStat.Metric,
      );
    expect(series.map((m: { MetricName: string }) => m.MetricName)).toEqual(Array(3).fill('LaunchFailures'));
    expect(
      series.map(
        (m: { Dimensions: { Name: string; Value: string }[] }) =>
          m.Dimensions.find((d) => d.Name === 'stage')?.Value,
      ),
    ).toEqual(['join', 'pool_fallback', 'replacement']);
    expect(launches?.Threshold).toBe(1);
    s.template.resourceCountIs('AWS::Logs::MetricFilter', 0);
    // Every alarm is named for its runbook section (docs/operations.md).
    for (const a of alarms) expect(a.AlarmName).toMatch(/^MeetingBot-dev-[A-Za-z0-9]+$/);
  });

  it('has the Lambdas and the bot task write EMF metrics in the stage namespace', () => {
    const expected = { METRICS_NAMESPACE: 'MeetingBot/dev' };
    for (const [, fn] of resourcesOfType(s.json, 'AWS::Lambda::Function').filter(
      ([id]) => !cdkHelperFunction(id),
    ))
      expect(fn.Properties!.Environment.Variables).toEqual(expect.objectContaining(expected));
    const [[, taskDefinition]] = resourcesOfType(s.json, 'AWS::ECS::TaskDefinition') as [
      [string, CfnResource],
    ];
    const [container] = taskDefinition.Properties!.ContainerDefinitions;
    expect(container.LogConfiguration.LogDriver).toBe('awslogs');
    expect(container.Environment).toEqual(
      expect.arrayContaining(Object.entries(expected).map(([Name, Value]) => ({ Name, Value }))),
    );
  });

  it('has one dashboard graphing the service metrics, DLQ depths, every function and the API', () => {
    const dashboards = resourcesOfType(s.json, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]![1].Properties!.DashboardBody);
    for (const title of Object.values(dashboardWidgets)) expect(body).toContain(title);
    for (const name of Object.values(metricNames)) expect(body).toContain(name);
    expect(body).toContain('ApproximateNumberOfMessagesVisible');
    expect(body).toContain('4xx');
    expect(body).toContain('5xx');
    for (const [name] of s.stack.operations.functions) expect(body).toContain(name);
  });
});

describe('the warm pool', () => {
  const pool = () => s.stack.pool!;
  const poolQueueId = () => logicalId(pool().queue);
  const taskRoleId = () => logicalId(s.stack.runtime.taskDefinition.taskRole);
  const joinRoleId = () => roleOfFunction(fnId(s.stack.api.functions.get('join')!));
  /** The roles allowed `action` on the pool queue. */
  const rolesWith = (action: string) =>
    resourcesOfType(s.json, 'AWS::IAM::Role')
      .map(([id]) => id)
      .filter((id) =>
        statementsOfRole(id).some(
          (st) => st.Action.includes(action) && st.Resource.some((r) => refTarget(r) === poolQueueId()),
        ),
      );

  it('is an ECS service of the bot task definition on on-demand Fargate, in the bot tasks’ subnets, no load balancer', () => {
    const service = props(logicalId(pool().service));
    // The family, not a revision: a new revision does not change this resource (test/infra/pool-deploys.test.ts).
    expect(service.TaskDefinition).toBe(props(logicalId(s.stack.runtime.taskDefinition)).Family);
    expect(R[logicalId(pool().service)]!.DependsOn).toContain(logicalId(s.stack.runtime.taskDefinition));
    expect(refTarget(service.Cluster)).toBe(logicalId(s.stack.runtime.cluster));
    // Created empty (scaling fills it, below): see 'cannot block or roll back the stack's creation'.
    expect(service.DesiredCount).toBe(0);
    expect(service.CapacityProviderStrategy).toEqual([{ CapacityProvider: 'FARGATE', Weight: 1 }]);
    expect(service.LaunchType).toBeUndefined();
    expect(service.LoadBalancers).toBeUndefined();
    expect(service.DeploymentConfiguration).toMatchObject({
      MinimumHealthyPercent: 100,
      MaximumPercent: 200,
      DeploymentCircuitBreaker: { Enable: true, Rollback: true },
    });
    // Where RunTask puts a cold task: the same subnets, security group and public IP.
    const runner = envOf(props(fnId(s.stack.api.functions.get('join')!)).Environment.Variables);
    const net = service.NetworkConfiguration.AwsvpcConfiguration;
    expect(net.Subnets).toEqual(runner.BOT_SUBNET_IDS['Fn::Join'][1].filter((x: unknown) => x !== ','));
    expect(net.SecurityGroups).toEqual([
      { 'Fn::GetAtt': [logicalId(s.stack.runtime.securityGroup), 'GroupId'] },
    ]);
    expect(net.AssignPublicIp).toBe('ENABLED');
    // Created after the cluster's capacity providers are associated with it.
    expect(R[logicalId(pool().service)]!.DependsOn).toEqual(
      expect.arrayContaining(
        resourcesOfType(s.json, 'AWS::ECS::ClusterCapacityProviderAssociations').map(([id]) => id),
      ),
    );
  });

  it('cannot block or roll back the stack’s creation: created with 0 tasks, filled by scaling, alarmed when empty', () => {
    const serviceId = logicalId(pool().service);
    // CloudFormation waits for a service's deployment to reach its desired count: with 0 there is no task to wait
    // for, and none whose failure (an empty Daily secret, no ECS service-linked role) could trip the circuit breaker.
    expect(props(serviceId).DesiredCount).toBe(0);
    // Nothing in the stack waits on the service beyond its creation: only the scaling (which sets a count outside
    // CloudFormation), the dashboard and alarms (which read its name), the scheduler (to raise the count for scheduled
    // sessions) and the control function (which grows it in a storm): their environments and their roles' policies.
    const referrers = Object.entries(R)
      .filter(([id, r]) => id !== serviceId && JSON.stringify(r).includes(`"${serviceId}"`))
      .map(([, r]) => r.Type);
    // And the rollout to a new task revision (an UpdateService that returns at once: nothing waits on tasks).
    expect(new Set(referrers)).toEqual(
      new Set([
        'Custom::AWS',
        'AWS::ApplicationAutoScaling::ScalableTarget',
        'AWS::CloudWatch::Dashboard',
        'AWS::Lambda::Function',
        'AWS::IAM::Policy',
      ]),
    );
    expect(Object.values(R).filter((r) => /WaitCondition/.test(r.Type))).toEqual([]);
    // Scaling raises it to botPoolSize after creation; tasks that cannot start keep it at 0, which PoolEmpty reports.
    const [[, target]] = resourcesOfType(s.json, 'AWS::ApplicationAutoScaling::ScalableTarget') as [
      [string, CfnResource],
    ];
    expect(target.Properties!.MinCapacity).toBe(2);
    expect(s.stack.operations.alarms.map((a) => a.node.id)).toContain('PoolEmpty');
  });

  it('starts its tasks pooled (no BOT_ID) with the pool queue; the join offers to it and schedules the fallback', () => {
    const [container] = props(logicalId(s.stack.runtime.taskDefinition)).ContainerDefinitions;
    const env = envOf(container.Environment);
    expect(env.BOT_ID).toBeUndefined();
    expect(env.POOL_QUEUE_URL).toEqual({ Ref: poolQueueId() });
    const join = envOf(props(fnId(s.stack.api.functions.get('join')!)).Environment.Variables);
    expect(join).toMatchObject({
      BOT_POOL_SIZE: '2',
      POOL_QUEUE_URL: { Ref: poolQueueId() },
      CONTROL_QUEUE_URL: { Ref: logicalId(s.stack.controlPlane.controlQueue) },
    });
    expect(join.RESULTS_QUEUE_URL).toBeUndefined();
    const queue = props(poolQueueId());
    // A wake-up a dead bot held (or its dead long poll) reaches another bot before the 2 s fallback.
    expect(queue.VisibilityTimeout).toBe(1);
    expect(queue.RedrivePolicy).toBeUndefined();
  });

  it('lets only the join and the control function (a scheduled offer) send wake-ups, only the bot task receive them', () => {
    expect(rolesWith('sqs:SendMessage').sort()).toEqual(
      [joinRoleId(), roleOfFunction(fnId(s.stack.controlPlane.function))].sort(),
    );
    expect(rolesWith('sqs:ReceiveMessage')).toEqual([taskRoleId()]);
    expect(rolesWith('sqs:DeleteMessage')).toEqual([taskRoleId()]);
    const received = statementsOfRole(taskRoleId()).find((st) => st.Action.includes('sqs:ReceiveMessage'))!;
    expect(received.Action.sort()).toEqual(['sqs:DeleteMessage', 'sqs:ReceiveMessage']);
    const protection = statementsOfRole(taskRoleId()).find((st) =>
      st.Action.includes('ecs:UpdateTaskProtection'),
    )!;
    expect(protection.Action).toEqual(['ecs:UpdateTaskProtection']);
    expect(JSON.stringify(protection.Resource)).toContain(
      `:task/",{"Ref":"${logicalId(s.stack.runtime.cluster)}"},"/*"`,
    );
    // The join's other sends: the delayed cold-start fallback and a scheduled start on the control queue, and
    // bot.scheduled on the bot events (never results).
    const joinSends = statementsOfRole(joinRoleId()).filter((st) => st.Action.includes('sqs:SendMessage'));
    expect([...new Set(joinSends.flatMap((st) => st.Resource.map(refTarget)))].sort()).toEqual(
      [
        poolQueueId(),
        logicalId(s.stack.controlPlane.controlQueue),
        logicalId(s.stack.controlPlane.botEventsQueue),
      ].sort(),
    );
  });

  it('scales between botPoolSize and botPoolMax on its idle count: adds the shortfall, removes one at a time', () => {
    const target = props(logicalId(pool().scalableTarget));
    expect(target).toMatchObject({
      MinCapacity: 2,
      MaxCapacity: 10,
      ScalableDimension: 'ecs:service:DesiredCount',
      ServiceNamespace: 'ecs',
    });
    expect(JSON.stringify(target.ResourceId)).toContain(logicalId(pool().service));
    expect(JSON.stringify(target.RoleARN)).toContain('AWSServiceRoleForApplicationAutoScaling_ECSService');
    const policies = resourcesOfType(s.json, 'AWS::ApplicationAutoScaling::ScalingPolicy');
    expect(policies).toHaveLength(2);
    const alarmOf = (id: string) => {
      const a = props(id);
      const policy = props(refTarget(a.AlarmActions[0])!);
      expect(a.Metrics).toContainEqual(expect.objectContaining({ Expression: 'FILL(idle, 0)' }));
      expect(a.Metrics.find((m: { Id: string }) => m.Id === 'idle').MetricStat).toEqual({
        Metric: {
          Namespace: 'MeetingBot/dev',
          MetricName: metricNames.poolIdleBots,
          Dimensions: [{ Name: 'service', Value: metricsService }],
        },
        Period: 60,
        Stat: 'Sum',
      });
      return { alarm: a, config: policy.StepScalingPolicyConfiguration };
    };
    const out = alarmOf(logicalId(pool().scaleOutAlarm));
    expect(out.alarm).toMatchObject({
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      Threshold: 1.5,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'breaching',
    });
    // Idle 0 (1.5 below the threshold) adds 2, idle 1 adds 1.
    expect(out.config).toMatchObject({
      AdjustmentType: 'ChangeInCapacity',
      StepAdjustments: [
        { MetricIntervalUpperBound: -1, ScalingAdjustment: 2 },
        { MetricIntervalLowerBound: -1, MetricIntervalUpperBound: 0, ScalingAdjustment: 1 },
      ],
    });
    const scaleIn = alarmOf(logicalId(pool().scaleInAlarm));
    expect(scaleIn.alarm).toMatchObject({
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 2.5,
      EvaluationPeriods: 6,
      TreatMissingData: 'notBreaching',
    });
    // A surplus of k idle bots (k − 0.5 above the threshold) removes k, up to botPoolMax − botPoolSize (8).
    expect(scaleIn.config).toMatchObject({ Cooldown: 120, MetricAggregationType: 'Minimum' });
    expect(scaleIn.config.StepAdjustments).toEqual(
      Array.from({ length: 8 }, (_, i) => ({
        MetricIntervalLowerBound: i,
        ...(i < 7 && { MetricIntervalUpperBound: i + 1 }),
        ScalingAdjustment: -(i + 1),
      })),
    );
    // Slow to start shrinking (6 minutes over, longer than a schedule's pre-warm), quick to finish.
    expect(scaleIn.alarm.EvaluationPeriods * 60).toBeGreaterThan(out.config.Cooldown);
  });

  it('alarms when the pool stays empty, and is on the dashboard', () => {
    const [, empty] = resourcesOfType(s.json, 'AWS::CloudWatch::Alarm').find(
      ([, a]) => a.Properties!.AlarmName === 'MeetingBot-dev-PoolEmpty',
    )!;
    expect(empty.Properties).toMatchObject({
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      EvaluationPeriods: 5,
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: logicalId(s.stack.operations.alarmTopic) }],
    });
    const body = JSON.stringify(resourcesOfType(s.json, 'AWS::CloudWatch::Dashboard')[0]![1].Properties);
    expect(body).toContain(dashboardWidgets.pool);
    expect(body).toContain('DesiredTaskCount');
    expect(body).toContain('RunningTaskCount');
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged error or warning', () => {
    const report = new AwsSolutionsChecks().validateScope(s.app);
    const findings = report.violations.map(
      (v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('has a written reason for every acknowledgement', () => {
    const acknowledged: [string, string][] = [];
    const visit = (c: IConstruct) => {
      for (const entry of c.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>))
          acknowledged.push([id, reason]);
      }
      for (const child of c.node.children) visit(child);
    };
    visit(s.stack);
    const ours = acknowledged.filter(([id]) => id.includes('AwsSolutions-'));
    expect(ours.length).toBeGreaterThan(5);
    for (const [id, reason] of ours) expect(reason.length, id).toBeGreaterThan(60);
  });
});
