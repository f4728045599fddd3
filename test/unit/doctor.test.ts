// The preflight's verdicts on answers moto does not serve (Bedrock's catalogue, SES GetAccount, the Fargate quota),
// from recorded shapes of AWS's answers with the SDK mocked, and the Daily key check with an injected fetch. The
// checks moto serves run against it in test/aws/doctor.test.ts.
import {
  BedrockClient,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
} from '@aws-sdk/client-bedrock';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { GetAccountCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type CheckResult, doctorExitCode, doctorReport, runDoctor } from '../../admin/doctor';
import { preflightClients } from '../../core/adapters/aws-clients';
import { doctorOutputKeys } from '../../infra/outputs';

const mocks = {
  cloudFormation: mockClient(CloudFormationClient),
  bedrock: mockClient(BedrockClient),
  ses: mockClient(SESv2Client),
  secrets: mockClient(SecretsManagerClient),
  iam: mockClient(IAMClient),
  quotas: mockClient(ServiceQuotasClient),
};
const clients = preflightClients({ AWS_REGION: 'eu-west-1' });
afterAll(() => {
  for (const m of Object.values(mocks)) m.restore();
  for (const c of Object.values(clients)) c.destroy();
});

const awsError = (name: string, message: string, status = 400) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

function outputs(values: Partial<Record<keyof typeof doctorOutputKeys, string>> = {}) {
  const all = {
    conversationModel: 'eu.amazon.nova-lite-v1:0',
    insightsModel: 'amazon.nova-pro-v1:0',
    sesIdentity: 'mail.acme.org',
    dailySecret: 'meeting-bot/daily-api-key',
    poolMax: '10',
    taskCpu: '1024',
    ...values,
  };
  return Object.entries(all).map(([k, v]) => ({
    OutputKey: doctorOutputKeys[k as keyof typeof doctorOutputKeys],
    OutputValue: v,
  }));
}

/** A stage in order: every answer as AWS gives it for a working deployment. */
beforeEach(() => {
  for (const m of Object.values(mocks)) m.reset();
  mocks.cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [{ StackName: 'MeetingBot-prod', StackStatus: 'CREATE_COMPLETE', Outputs: outputs() } as never],
  });
  mocks.bedrock.on(GetInferenceProfileCommand).resolves({
    status: 'ACTIVE',
    models: [
      { modelArn: 'arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-lite-v1:0' },
      { modelArn: 'arn:aws:bedrock:eu-central-1::foundation-model/amazon.nova-lite-v1:0' },
    ],
  } as never);
  mocks.bedrock.on(GetFoundationModelCommand).resolves({
    modelDetails: {
      modelId: 'amazon.nova-pro-v1:0',
      inferenceTypesSupported: ['ON_DEMAND'],
      modelLifecycle: { status: 'ACTIVE' },
    },
  } as never);
  mocks.ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: true, SendingEnabled: true });
  mocks.ses
    .on(GetEmailIdentityCommand)
    .resolves({ IdentityType: 'DOMAIN', VerifiedForSendingStatus: true, VerificationStatus: 'SUCCESS' });
  mocks.secrets.on(GetSecretValueCommand).resolves({ SecretString: 'a-daily-key' });
  mocks.iam.on(GetRoleCommand).resolves({ Role: { RoleName: 'AWSServiceRoleForECS' } as never });
  mocks.quotas.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 10 } });
});

let daily: { status: number } | Error = { status: 200 };
const seen: { url: string; auth: string | null }[] = [];
const fakeFetch = (async (url: string, init: RequestInit) => {
  seen.push({ url, auth: new Headers(init.headers).get('authorization') });
  if (daily instanceof Error) throw daily;
  return new Response('{}', { status: daily.status });
}) as typeof fetch;

async function check(): Promise<Record<string, CheckResult>> {
  const results = await runDoctor(
    { clients, region: 'eu-west-1', dailyApiUrl: 'https://api.daily.example/v1', fetch: fakeFetch },
    'prod',
  );
  return Object.fromEntries(results.map((r) => [r.check, r]));
}

describe('doctor verdicts', () => {
  it('passes a stage in order, and asks Daily with the key from the secret', async () => {
    daily = { status: 200 };
    seen.length = 0;
    const r = await check();
    expect(Object.values(r).map((c) => [c.check, c.status])).toEqual(Object.keys(r).map((k) => [k, 'ok']));
    expect(r['bedrock:conversation']!.detail).toContain('routes to eu-west-1, eu-central-1');
    expect(seen).toEqual([{ url: 'https://api.daily.example/v1/', auth: 'Bearer a-daily-key' }]);
    expect(mocks.quotas.commandCalls(GetServiceQuotaCommand)[0]!.args[0].input).toEqual({
      ServiceCode: 'fargate',
      QuotaCode: 'L-3032A538',
    });
    expect(doctorReport('prod', Object.values(r))).toMatch(
      /0 problem\(s\), 0 could not be checked, 9 ok\.\n$/,
    );
    expect(doctorExitCode(Object.values(r))).toBe(0);
  });

  it('exits 1 on a problem, 3 when nothing failed but something could not be checked (no credentials), else 0', () => {
    const result = (status: CheckResult['status']): CheckResult => ({ check: 'stack', status, detail: '' });
    expect(doctorExitCode([result('ok'), result('problem'), result('could_not_check')])).toBe(1);
    expect(doctorExitCode([result('could_not_check'), result('could_not_check')])).toBe(3);
    expect(doctorExitCode([result('ok'), result('could_not_check')])).toBe(3);
    expect(doctorExitCode([result('ok'), result('ok')])).toBe(0);
  });

  it('finds a plain model id that takes no on-demand requests in the region, and an id the region lacks', async () => {
    mocks.bedrock.on(GetFoundationModelCommand).resolves({
      modelDetails: { modelId: 'amazon.nova-pro-v1:0', inferenceTypesSupported: ['INFERENCE_PROFILE'] },
    } as never);
    mocks.bedrock
      .on(GetInferenceProfileCommand)
      .rejects(awsError('ResourceNotFoundException', 'The provided model identifier is invalid.', 404));
    const r = await check();
    expect(r['bedrock:insights']).toMatchObject({
      status: 'problem',
      detail: 'amazon.nova-pro-v1:0 takes no on-demand requests in eu-west-1 (INFERENCE_PROFILE)',
    });
    expect(r['bedrock:insights']!.fix).toContain('inference profile');
    expect(r['bedrock:conversation']).toMatchObject({ status: 'problem' });
    expect(r['bedrock:conversation']!.detail).toMatch(/^eu\.amazon\.nova-lite-v1:0 is not a Bedrock model/);
  });

  it('asks for an application inference profile by its ARN as a profile, not as a foundation model', async () => {
    const arn = 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3';
    mocks.cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [{ StackStatus: 'CREATE_COMPLETE', Outputs: outputs({ conversationModel: arn }) } as never],
    });
    const r = await check();
    expect(r['bedrock:conversation']!.status).toBe('ok');
    expect(mocks.bedrock.commandCalls(GetInferenceProfileCommand).map((c) => c.args[0].input)).toEqual([
      { inferenceProfileIdentifier: arn },
    ]);
  });

  it('says the SES sandbox and paused sending are problems, with the fix', async () => {
    mocks.ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: false, SendingEnabled: true });
    let r = await check();
    expect(r['ses:account']).toMatchObject({ status: 'problem' });
    expect(r['ses:account']!.detail).toContain('SES sandbox');
    expect(r['ses:account']!.fix).toContain('production access');
    mocks.ses
      .on(GetAccountCommand)
      .resolves({ ProductionAccessEnabled: true, SendingEnabled: false, EnforcementStatus: 'SHUTDOWN' });
    r = await check();
    expect(r['ses:account']!.detail).toBe(
      'sending is paused for this account in eu-west-1 (enforcement: SHUTDOWN)',
    );
  });

  it('compares the Fargate vCPU quota with botPoolMax × the task size', async () => {
    mocks.cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        { StackStatus: 'UPDATE_COMPLETE', Outputs: outputs({ poolMax: '10', taskCpu: '2048' }) } as never,
      ],
    });
    mocks.quotas.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 6 } });
    let r = await check();
    expect(r['fargate:quota']).toMatchObject({
      status: 'problem',
      detail:
        'Fargate On-Demand vCPU quota 6 in eu-west-1 is below 10 task(s) × 2 vCPU = 20 vCPU (botPoolMax × task size)',
    });
    mocks.quotas.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 20 } });
    r = await check();
    expect(r['fargate:quota']!.status).toBe('ok');
  });

  it('says Daily refusing the key is a problem, and anything else from Daily could not be checked', async () => {
    daily = { status: 401 };
    expect((await check())['daily:key']).toMatchObject({ status: 'problem' });
    daily = { status: 503 };
    expect((await check())['daily:key']).toMatchObject({ status: 'could_not_check' });
    daily = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } });
    expect((await check())['daily:key']!.detail).toBe(
      "Daily's API did not answer (GET https://api.daily.example/v1/: ENOTFOUND)",
    );
    daily = { status: 200 };
  });

  it('reads the operator lacking a permission as could not check, never as a pass or a problem', async () => {
    const denied = awsError('AccessDeniedException', 'User is not authorized', 403);
    mocks.bedrock.on(GetInferenceProfileCommand).rejects(denied);
    mocks.ses.on(GetAccountCommand).rejects(denied);
    mocks.secrets.on(GetSecretValueCommand).rejects(denied);
    mocks.quotas.on(GetServiceQuotaCommand).rejects(denied);
    mocks.iam.on(GetRoleCommand).rejects(awsError('AccessDenied', 'not authorized', 403));
    const r = await check();
    for (const name of [
      'bedrock:conversation',
      'ses:account',
      'daily:secret',
      'daily:key',
      'fargate:quota',
      'ecs:service-role',
    ]) {
      expect(r[name]!.status, name).toBe('could_not_check');
    }
    expect(r['daily:secret']!.detail).toBe(
      'Secrets Manager GetSecretValue: AccessDeniedException (HTTP 403): User is not authorized',
    );
  });
});
