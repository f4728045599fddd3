// `npm run admin -- doctor --aws` as an operator runs it, against moto: the stack's outputs as the synthesized template
// defines them, then a fresh account's gaps found one by one (no stack, no Daily secret, a secret with no value, an
// unverified SES identity, no ECS service-linked role) and fixed. Bedrock's model catalogue, SES GetAccount and
// Service Quotas' Fargate quota are not served by moto 5.2.1: each is shown reported as "could not check" with
// moto's answer (their verdicts: test/unit/doctor.test.ts). Daily's API is a refused loopback port (no internet).
import { rmSync } from 'node:fs';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CreateRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { CreateEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../admin/doctor';
import { doctorOutputKeys } from '../../infra/outputs';
import { synthStack } from '../infra/synth-stack';
import { type CliRun, runAdminCli } from '../support/admin-cli';
import { freePort } from '../support/free-port';
import { requires, skipReason } from '../support/requirements';
import { clientConfig, TemplateResolver } from './support/deployed-stack';
import { type Moto, motoRegion, startMoto } from './support/moto';

const skip = skipReason(requires.motoServer());

interface Report {
  code: number | null;
  json: { stage: string; region: string; problems: number; checks: CheckResult[] };
  byCheck: Record<string, CheckResult>;
}

describe.skipIf(skip)('doctor --aws against moto', () => {
  let moto: Moto;
  let dailyApiUrl: string;
  const stage = 'dev';
  const secretName = 'meeting-bot/daily-api-key';

  /** The CLI in its own process, as the operator's shell would run it, pointed at moto by the SDK's own setting. */
  function doctor(...args: string[]): Promise<CliRun> {
    return runAdminCli(['doctor', '--aws', ...args], {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AWS_REGION: motoRegion,
      AWS_ACCESS_KEY_ID: 'operator',
      AWS_SECRET_ACCESS_KEY: 'moto',
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Daily's REST API, an internal tunable: a local stand-in, never api.daily.co.
      MEETING_BOT_TEST_TUNABLES: JSON.stringify({ DAILY_API_URL: dailyApiUrl }),
    });
  }

  async function report(): Promise<Report> {
    const run = await doctor('--json', '--stage', stage);
    expect(run.stderr).toBe('');
    const json = JSON.parse(run.stdout) as Report['json'];
    return { code: run.code, json, byCheck: Object.fromEntries(json.checks.map((c) => [c.check, c])) };
  }

  beforeAll(async () => {
    moto = await startMoto();
    // Nothing listens there: Daily's API "does not answer", as offline.
    dailyApiUrl = `http://127.0.0.1:${await freePort()}/v1`;
  });
  afterAll(async () => {
    await moto?.stop();
  });

  it('on a fresh account: no stack, no service-linked role; what needs the stack cannot be checked', async () => {
    const r = await report();
    expect(r.code).toBe(1);
    expect(r.json.checks.map((c) => c.check)).toEqual([
      'stack',
      'bedrock:conversation',
      'bedrock:insights',
      'ses:account',
      'ses:identity',
      'daily:secret',
      'daily:key',
      'fargate:quota',
      'ecs:service-role',
    ]);
    expect(r.byCheck.stack).toMatchObject({
      status: 'problem',
      detail: `no stack MeetingBot-${stage} in us-east-1`,
    });
    expect(r.byCheck.stack!.fix).toContain(`npx cdk deploy -c stage=${stage}`);
    for (const check of ['bedrock:conversation', 'ses:identity', 'daily:secret', 'fargate:quota']) {
      expect(r.byCheck[check], check).toMatchObject({ status: 'could_not_check' });
    }
    expect(r.byCheck['ecs:service-role']).toMatchObject({
      status: 'problem',
      fix: 'aws iam create-service-linked-role --aws-service-name ecs.amazonaws.com',
    });
    expect(r.json.problems).toBe(2);
  });

  it('finds each gap of a deployed stage, says how to fix it, and passes what is in order', async () => {
    // The stack "deployed": moto's CloudFormation holds a stack with the outputs the synthesized template defines,
    // resolved for moto's region (a WaitConditionHandle stands in for the resources, which moto cannot all create).
    const synth = synthStack({ stage }, { bundle: false });
    try {
      const resolver = new TemplateResolver(synth.json);
      const outputs = synth.json.Outputs as Record<string, { Value: unknown; Description?: string }>;
      const Outputs = Object.fromEntries(
        Object.values(doctorOutputKeys).map((key) => [key, { Value: resolver.resolve(outputs[key]!.Value) }]),
      );
      await new CloudFormationClient(clientConfig(moto.endpoint)).send(
        new CreateStackCommand({
          StackName: `MeetingBot-${stage}`,
          TemplateBody: JSON.stringify({
            Resources: { Deployed: { Type: 'AWS::CloudFormation::WaitConditionHandle' } },
            Outputs,
          }),
        }),
      );
    } finally {
      rmSync(synth.outdir, { recursive: true, force: true });
    }

    let r = await report();
    expect(r.byCheck.stack).toMatchObject({
      status: 'ok',
      detail: `MeetingBot-${stage} is CREATE_COMPLETE in us-east-1`,
    });
    // Not served by moto: said so, with what moto answered, never a pass.
    expect(r.byCheck['bedrock:conversation']).toMatchObject({ status: 'could_not_check' });
    expect(r.byCheck['bedrock:conversation']!.detail).toMatch(
      /^Bedrock GetInferenceProfile: the endpoint does not serve this call \(HTTP 500/,
    );
    expect(r.byCheck['bedrock:insights']).toMatchObject({ status: 'could_not_check' });
    expect(r.byCheck['ses:account']!.detail).toMatch(
      /^SES GetAccount: the endpoint does not serve this call \(HTTP 404/,
    );
    expect(r.byCheck['fargate:quota']).toMatchObject({ status: 'could_not_check' });
    expect(r.byCheck['fargate:quota']!.detail).toMatch(
      /^Service Quotas GetServiceQuota L-3032A538: NoSuchResourceException/,
    );
    // Served by moto, and missing on a fresh account.
    expect(r.byCheck['ses:identity']).toMatchObject({
      status: 'problem',
      detail: 'no SES identity example.com in us-east-1',
    });
    expect(r.byCheck['daily:secret']).toMatchObject({
      status: 'problem',
      detail: `no secret ${secretName} in us-east-1`,
      fix: `aws secretsmanager create-secret --name ${secretName} --secret-string "$DAILY_API_KEY"`,
    });
    expect(r.byCheck['daily:key']).toMatchObject({
      status: 'could_not_check',
      detail: 'no key to try: see daily:secret',
    });
    expect(r.code).toBe(1);

    // The secret created empty (as a console user might), the identity created but unverified, the role created.
    const secrets = new SecretsManagerClient(clientConfig(moto.endpoint));
    await secrets.send(new CreateSecretCommand({ Name: secretName }));
    await new SESv2Client(clientConfig(moto.endpoint)).send(
      new CreateEmailIdentityCommand({ EmailIdentity: 'example.com' }),
    );
    await new IAMClient(clientConfig(moto.endpoint)).send(
      new CreateRoleCommand({
        RoleName: 'AWSServiceRoleForECS',
        Path: '/aws-service-role/ecs.amazonaws.com/',
        AssumeRolePolicyDocument: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: { Service: 'ecs.amazonaws.com' }, Action: 'sts:AssumeRole' },
          ],
        }),
      }),
    );
    r = await report();
    expect(r.byCheck['daily:secret']).toMatchObject({
      status: 'problem',
      detail: `secret ${secretName} has no value: no bot task can start`,
      fix: `aws secretsmanager put-secret-value --secret-id ${secretName} --secret-string "$DAILY_API_KEY"`,
    });
    // moto never verifies an identity: the DNS records are the operator's to publish.
    expect(r.byCheck['ses:identity']).toMatchObject({
      status: 'problem',
      fix: 'publish the DKIM CNAME records SES shows for the domain',
    });
    expect(r.byCheck['ses:identity']!.detail).toMatch(/^example\.com is not verified for sending/);
    expect(r.byCheck['ecs:service-role']).toMatchObject({ status: 'ok' });

    // A blank value is no key either; a real one is tried against Daily, which does not answer here.
    await secrets.send(new PutSecretValueCommand({ SecretId: secretName, SecretString: '  ' }));
    r = await report();
    expect(r.byCheck['daily:secret']).toMatchObject({
      status: 'problem',
      detail: `secret ${secretName} is empty: no bot task can start`,
    });
    await secrets.send(
      new PutSecretValueCommand({ SecretId: secretName, SecretString: 'daily-key-for-moto' }),
    );
    const run = await doctor('--stage', stage);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/ok +daily:secret +secret meeting-bot\/daily-api-key has a value/);
    expect(run.stdout).toMatch(
      /unknown {2}daily:key +could not check: Daily's API did not answer \(GET http:\/\/127\.0\.0\.1:\d+\/v1\/: ECONNREFUSED\)/,
    );
    // The key itself is never printed.
    expect(run.stdout).not.toContain('daily-key-for-moto');
    expect(run.stdout).toMatch(/^1 problem\(s\), 5 could not be checked, 3 ok\.$/m);
  });

  it('refuses to run without --aws, and names a bad stage', async () => {
    const run = await runAdminCli(['doctor'], process.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("'doctor' checks a deployed stage: add --aws");
    const bad = await doctor('--stage', 'Prod!');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--stage must be a stage name');
  });
});
