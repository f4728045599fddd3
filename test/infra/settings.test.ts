// The deployment settings (CDK context): parsing and validation, the docs that list them, and a production variant
// of the stack (synthesized without bundling: this file looks at configuration only).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../core/config';
import { BotData } from '../../infra/constructs/data';
import { repoRoot } from '../../infra/constructs/service-function';
import { parseSettings, settingKeys, settingsFromContext, settingsIssues } from '../../infra/settings';
import { envOf, refTarget, resourcesOfType, type Synthesized, synthStack } from './synth-stack';

describe('settings from CDK context', () => {
  it('default to a dev stage that synthesizes with no context at all', () => {
    expect(settingsFromContext(() => undefined)).toMatchObject({
      stage: 'dev',
      production: false,
      sesIdentity: 'example.com',
      mailFrom: 'meeting-bot@example.com',
      botTaskCpu: 1024,
      botTaskMemoryMiB: 2048,
      botNetwork: 'public',
      useFargateSpot: true,
      logRetentionDays: 30,
      corsAllowedOrigins: [],
      dailyRoomDomains: ['daily.co'],
      botPoolSize: 2,
      botPoolMax: 10,
      pointInTimeRecoveryDays: 35,
    });
  });

  it('parse the string forms `-c key=value` gives', () => {
    const context: Record<string, string> = {
      stage: 'staging',
      botTaskCpu: '2048',
      botTaskMemoryMiB: '4096',
      useFargateSpot: 'false',
      corsAllowedOrigins: 'https://a.example, https://b.example',
      apiThrottleRateLimit: '20',
      dailyRoomDomains: 'daily.co, meet.acme.org',
      botPoolSize: '0',
      botPoolMax: '4',
    };
    expect(settingsFromContext((k) => context[k])).toMatchObject({
      stage: 'staging',
      botTaskCpu: 2048,
      botTaskMemoryMiB: 4096,
      useFargateSpot: false,
      corsAllowedOrigins: ['https://a.example', 'https://b.example'],
      apiThrottleRateLimit: 20,
      dailyRoomDomains: ['daily.co', 'meet.acme.org'],
      botPoolSize: 0,
      botPoolMax: 4,
    });
    expect(parseSettings({ corsAllowedOrigins: '["https://c.example"]' }).corsAllowedOrigins).toEqual([
      'https://c.example',
    ]);
  });

  it('treat prod-like stages as production, and refuse the placeholder SES identity there', () => {
    expect(() => parseSettings({ stage: 'prod' })).toThrow(/sesIdentity/);
    expect(parseSettings({ stage: 'prod', sesIdentity: 'bots@acme.org' })).toMatchObject({
      production: true,
      mailFrom: 'bots@acme.org',
    });
    expect(parseSettings({ stage: 'prod-eu', sesIdentity: 'acme.org' }).production).toBe(true);
    expect(parseSettings({ stage: 'demo', production: 'true', sesIdentity: 'acme.org' }).production).toBe(
      true,
    );
  });

  it('name every bad key in one error', () => {
    expect(() => parseSettings({ stage: 'Prod_1', botTaskCpu: 1024, botTaskMemoryMiB: 1024 })).toThrow(
      /stage: .*; botTaskMemoryMiB: with botTaskCpu 1024: 2048–8192/,
    );
    expect(() => parseSettings({ logRetentionDays: 10 })).toThrow(/logRetentionDays/);
    expect(() => parseSettings({ alarmEmail: 'not-an-address' })).toThrow(/alarmEmail/);
    expect(() => parseSettings({ dailyRoomDomains: '' })).toThrow(/dailyRoomDomains/);
    expect(() => parseSettings({ dailyRoomDomains: 'https://x.daily.co' })).toThrow(/dailyRoomDomains/);
    expect(() => parseSettings({ botPoolSize: 5, botPoolMax: 4 })).toThrow(
      /botPoolMax: at least botPoolSize \(5\)/,
    );
    expect(() => parseSettings({ botPoolSize: -1 })).toThrow(/botPoolSize/);
    expect(() => parseSettings({ botPoolSize: 1_001, botPoolMax: 2_000 })).toThrow(/botPoolSize/);
    expect(() => parseSettings({ botPoolMax: 5_001 })).toThrow(/botPoolMax/);
    // DynamoDB keeps 1–35 days of point-in-time recovery; 0 is ours for "off".
    for (const days of [-1, 36, 1.5, 'all'])
      expect(() => parseSettings({ pointInTimeRecoveryDays: days as never })).toThrow(
        /pointInTimeRecoveryDays/,
      );
  });

  it("shorten the table's point-in-time recovery, or turn it off", () => {
    const tableOf = (pointInTimeRecoveryDays?: string) => {
      const stack = new Stack(new App());
      new BotData(stack, 'Data', {
        settings: parseSettings(pointInTimeRecoveryDays === undefined ? {} : { pointInTimeRecoveryDays }),
      });
      return resourcesOfType(Template.fromStack(stack).toJSON() as never, 'AWS::DynamoDB::Table')[0]![1]
        .Properties!;
    };
    expect(tableOf().PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
      RecoveryPeriodInDays: 35,
    });
    expect(tableOf('7').PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
      RecoveryPeriodInDays: 7,
    });
    expect(tableOf('0').PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: false });
  });

  it('take the sizes a 1,000-bot schedule and storm need, and the functions take what the stack deploys', () => {
    // The storm benchmarks' pools (docs/benchmarks.md): 50 or 200 idle, growth up to 1,050.
    for (const [botPoolSize, botPoolMax] of [
      [50, 1_050],
      [200, 1_050],
      [1_000, 5_000],
    ] as const) {
      expect(settingsIssues({ botPoolSize, botPoolMax })).toEqual([]);
      // The stack passes them on as BOT_POOL_SIZE (join) and BOT_POOL_MAX (control, scheduler): the same bounds.
      const config = configSchema.parse({ BOT_POOL_SIZE: botPoolSize, BOT_POOL_MAX: botPoolMax });
      expect([config.BOT_POOL_SIZE, config.BOT_POOL_MAX]).toEqual([botPoolSize, botPoolMax]);
    }
    expect(() => configSchema.parse({ BOT_POOL_SIZE: 1_001 })).toThrow();
    expect(() => configSchema.parse({ BOT_POOL_MAX: 5_001 })).toThrow();
    // What a benchmark reads before it runs a shape: each refusal named, as `cdk deploy` would name it.
    expect(settingsIssues({ botPoolSize: 200, botPoolMax: 100, botTaskCpu: 3 })).toEqual([
      'botTaskCpu: one of 512, 1024, 2048, 4096',
      'botPoolMax: at least botPoolSize (200)',
    ]);
  });

  it('are all documented in docs/deploy.md', () => {
    const doc = readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8');
    for (const key of settingKeys) expect(doc, key).toContain(`\`${key}\``);
  });

  it('are what cdk.json runs the app with', () => {
    const cdk = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8'));
    expect(cdk.app).toMatch(/infra\/app\.ts$/);
  });
});

describe('a production stack in private subnets with an inference profile, no warm pool and no point-in-time recovery', () => {
  let s: Synthesized;
  const profile = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';

  beforeAll(() => {
    s = synthStack(
      {
        stage: 'prod',
        sesIdentity: 'mail.acme.org',
        botNetwork: 'private',
        conversationModelId: profile,
        corsAllowedOrigins: 'https://app.acme.org',
        alarmEmail: 'oncall@acme.org',
        botTaskCpu: '2048',
        botTaskMemoryMiB: '4096',
        botTaskArchitecture: 'arm64',
        useFargateSpot: 'false',
        logRetentionDays: '90',
        botPoolSize: '0',
        pointInTimeRecoveryDays: '0',
      },
      { bundle: false },
    );
  });
  afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

  const logicalId = (c: IConstruct) => s.stack.getLogicalId(c.node.defaultChild as never);

  it('retains and protects the table and keeps every log group', () => {
    const [, table] = resourcesOfType(s.json, 'AWS::DynamoDB::Table')[0]!;
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties!.DeletionProtectionEnabled).toBe(true);
    // Turned off by the setting; cdk-nag's DDB3 is acknowledged for it (the check below finds no violation).
    expect(table.Properties!.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: false });
    for (const [id, group] of resourcesOfType(s.json, 'AWS::Logs::LogGroup')) {
      expect(group.DeletionPolicy, id).toBe('Retain');
      expect(group.Properties!.RetentionInDays, id).toBe(90);
    }
  });

  it('runs tasks in private subnets behind one NAT gateway, on Fargate only, ARM64, 2 vCPU / 4 GiB', () => {
    s.template.resourceCountIs('AWS::EC2::NatGateway', 1);
    const joinFunction = s.stack.api.functions.get('join')!;
    const env = envOf(s.json.Resources[logicalId(joinFunction.function)]!.Properties!.Environment.Variables);
    expect(env.BOT_ASSIGN_PUBLIC_IP).toBe('false');
    expect(env.BOT_CAPACITY_PROVIDERS).toBe('FARGATE');
    expect(JSON.stringify(env.BOT_SUBNET_IDS)).toMatch(/tasksSubnet1.*tasksSubnet2/);
    s.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Cpu: '2048',
      Memory: '4096',
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
    });
    const manifest = JSON.parse(readFileSync(join(s.outdir, `${s.stack.stackName}.assets.json`), 'utf8'));
    expect(
      Object.values(manifest.dockerImages).map(
        (i) => (i as { source: { platform: string } }).source.platform,
      ),
    ).toEqual(['linux/arm64']);
  });

  it('grants the inference profile and its model (in the regions it routes to), acknowledged for cdk-nag', () => {
    const role = logicalId(s.stack.runtime.taskDefinition.taskRole);
    const policy = resourcesOfType(s.json, 'AWS::IAM::Policy').find(([, p]) =>
      p.Properties!.Roles.some((r: unknown) => refTarget(r) === role),
    )![1];
    const bedrock = policy.Properties!.PolicyDocument.Statement.find((st: { Action: unknown }) =>
      JSON.stringify(st.Action).includes('bedrock:InvokeModel'),
    );
    const resources = JSON.stringify(bedrock.Resource);
    expect(resources).toContain(`:inference-profile/${profile}`);
    // A `us.` profile routes to US regions only: its model is allowed there, not everywhere.
    expect(resources).toContain(':bedrock:us-*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0');
    const report = new AwsSolutionsChecks().validateScope(s.app);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
  });

  it('with botPoolSize 0 has no pool service, queue or scaling, and the join offers nothing to a pool', () => {
    expect(s.stack.pool).toBeUndefined();
    s.template.resourceCountIs('AWS::ECS::Service', 0);
    s.template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
    expect(resourcesOfType(s.json, 'AWS::SQS::Queue').filter(([id]) => id.startsWith('BotPool'))).toEqual([]);
    const env = envOf(
      s.json.Resources[logicalId(s.stack.api.functions.get('join')!.function)]!.Properties!.Environment
        .Variables,
    );
    expect(env.BOT_POOL_SIZE).toBe('0');
    expect(env.POOL_QUEUE_URL).toBeUndefined();
    const [container] = resourcesOfType(s.json, 'AWS::ECS::TaskDefinition')[0]![1].Properties!
      .ContainerDefinitions;
    expect(envOf(container.Environment).POOL_QUEUE_URL).toBeUndefined();
    const alarms = resourcesOfType(s.json, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!.AlarmName);
    expect(alarms).not.toContain('MeetingBot-prod-PoolEmpty');
  });

  it('answers CORS for the configured origins, mails alarms, and sends as the configured identity', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowOrigins: ['https://app.acme.org'] }),
    });
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@acme.org',
    });
    if (s.stack.delivery.deliveryFunction) {
      const env =
        s.json.Resources[logicalId(s.stack.delivery.deliveryFunction.function)]!.Properties!.Environment
          .Variables;
      expect(env.SES_FROM_ADDRESS).toBe('Meeting Bot <meeting-bot@mail.acme.org>');
    }
  });
});
