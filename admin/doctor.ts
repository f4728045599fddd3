// The deployment preflight (`npm run admin -- doctor --aws`): what would break a deployed stage's first meeting.
import { GetFoundationModelCommand, GetInferenceProfileCommand } from '@aws-sdk/client-bedrock';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetRoleCommand } from '@aws-sdk/client-iam';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { GetServiceQuotaCommand } from '@aws-sdk/client-service-quotas';
import { GetAccountCommand, GetEmailIdentityCommand } from '@aws-sdk/client-sesv2';
import type { PreflightClients } from '../core/adapters/aws-clients';
import { doctorOutputKeys, stackName } from '../infra/outputs';

export type CheckStatus = 'ok' | 'problem' | 'could_not_check';

export interface CheckResult {
  check: string;
  status: CheckStatus;
  /** What was found (ok, problem) or why it could not be checked. */
  detail: string;
  /** What to do about a problem. */
  fix?: string;
}

export interface DoctorDeps {
  clients: PreflightClients;
  region: string;
  /** Daily's REST API base (DAILY_API_URL), and the fetch that reaches it (injected in tests). */
  dailyApiUrl: string;
  fetch?: typeof fetch;
  /** How long Daily's API may take to answer. */
  dailyTimeoutMs?: number;
}

/** Fargate On-Demand vCPU resource count, per account and region (Service Quotas). */
export const fargateVcpuQuota = { ServiceCode: 'fargate', QuotaCode: 'L-3032A538' } as const;
/** The ECS service-linked role: ECS creates the tasks' network interfaces with it. */
export const ecsServiceLinkedRole = 'AWSServiceRoleForECS';

/** Inference profiles: a cross-region id starts with a geography, an application profile is named by its ARN. */
const inferenceProfileId =
  /^(us|us-gov|eu|apac|jp|au|ca|global)\.|^arn:[^:]+:bedrock:[^:]*:[^:]*:(application-)?inference-profile\//;

const result = (status: CheckStatus) => (check: string, detail: string, fix?: string) =>
  ({ check, status, detail, ...(fix && { fix }) }) as CheckResult;
const ok = result('ok');
const problem = result('problem');
const couldNotCheck = result('could_not_check');

/** An SDK error's name and message, short (a stand-in's HTML error page is not worth printing). */
function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  // An endpoint that does not serve the call answers with a page, not the API's JSON (a stand-in such as moto).
  if (e.name === 'SyntaxError' || /Deserialization error/.test(e.message ?? '')) {
    return `the endpoint does not serve this call (HTTP ${status ?? '?'}, not an AWS answer)`;
  }
  const message = (e.message ?? String(err)).split('\n')[0]!.slice(0, 160);
  return `${e.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${message}`;
}

const named = (err: unknown, ...names: string[]) => names.includes((err as { name?: string }).name ?? '');

async function stackOutputs(deps: DoctorDeps, stage: string) {
  const name = stackName(stage);
  try {
    const { Stacks } = await deps.clients.cloudFormation.send(new DescribeStacksCommand({ StackName: name }));
    const stack = Stacks?.[0];
    const outputs = Object.fromEntries(
      (stack?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
    );
    const missing = Object.values(doctorOutputKeys).filter((k) => !outputs[k]);
    if (missing.length > 0) {
      return {
        result: problem(
          'stack',
          `${name} (${stack?.StackStatus}) has no output ${missing.join(', ')}: deployed by an older version`,
          `deploy this version: npx cdk deploy -c stage=${stage}`,
        ),
      };
    }
    return { result: ok('stack', `${name} is ${stack?.StackStatus} in ${deps.region}`), outputs };
  } catch (err) {
    if (named(err, 'ValidationError') && /does not exist/.test(String((err as Error).message))) {
      return {
        result: problem(
          'stack',
          `no stack ${name} in ${deps.region}`,
          `deploy it (npx cdk deploy -c stage=${stage}), or set AWS_REGION / --stage to where it is`,
        ),
      };
    }
    return { result: couldNotCheck('stack', `DescribeStacks ${name}: ${describe(err)}`) };
  }
}

/**
 * Whether the id exists and takes on-demand requests in this region. Model access itself (the console's grant) shows
 * only when the model is invoked, which costs money, so that part is left to the first meeting.
 */
async function bedrockModel(deps: DoctorDeps, engine: string, id: string): Promise<CheckResult> {
  const check = `bedrock:${engine}`;
  const access = 'model access itself shows only on the first call (Bedrock console → Model access)';
  try {
    if (inferenceProfileId.test(id)) {
      const profile = await deps.clients.bedrock.send(
        new GetInferenceProfileCommand({ inferenceProfileIdentifier: id }),
      );
      if (profile.status !== 'ACTIVE') {
        return problem(check, `inference profile ${id} is ${profile.status}`, 'choose an active profile');
      }
      const regions = (profile.models ?? []).map((m) => m.modelArn?.split(':')[3]).filter(Boolean);
      return ok(
        check,
        `inference profile ${id} is active (routes to ${regions.join(', ') || '?'}); ${access}`,
      );
    }
    const { modelDetails } = await deps.clients.bedrock.send(
      new GetFoundationModelCommand({ modelIdentifier: id }),
    );
    if (!modelDetails?.inferenceTypesSupported?.includes('ON_DEMAND')) {
      return problem(
        check,
        `${id} takes no on-demand requests in ${deps.region} (${modelDetails?.inferenceTypesSupported?.join(', ') || 'none'})`,
        'use its cross-region inference profile (us./eu./apac. before the id), or leave the id unset for the default',
      );
    }
    if (modelDetails.modelLifecycle?.status === 'LEGACY') {
      return problem(check, `${id} is a legacy model in ${deps.region}`, 'choose a current model');
    }
    return ok(check, `${id} takes on-demand requests in ${deps.region}; ${access}`);
  } catch (err) {
    if (named(err, 'ResourceNotFoundException', 'ValidationException')) {
      return problem(
        check,
        `${id} is not a Bedrock model or inference profile in ${deps.region}: ${describe(err)}`,
        'set a model id of this region (docs/deploy.md "A first deploy that cannot roll back")',
      );
    }
    return couldNotCheck(
      check,
      `Bedrock ${inferenceProfileId.test(id) ? 'GetInferenceProfile' : 'GetFoundationModel'}: ${describe(err)}`,
    );
  }
}

async function sesAccount(deps: DoctorDeps): Promise<CheckResult> {
  const check = 'ses:account';
  try {
    const account = await deps.clients.ses.send(new GetAccountCommand({}));
    if (account.SendingEnabled === false) {
      return problem(
        check,
        `sending is paused for this account in ${deps.region} (enforcement: ${account.EnforcementStatus ?? '?'})`,
        'see the SES console → Account dashboard for why, and resume sending',
      );
    }
    if (!account.ProductionAccessEnabled) {
      return problem(
        check,
        `the account is in the SES sandbox in ${deps.region}: result e-mails reach verified recipients only`,
        'request production access (SES console → Account dashboard → Request production access)',
      );
    }
    return ok(check, `production access, sending enabled in ${deps.region}`);
  } catch (err) {
    return couldNotCheck(check, `SES GetAccount: ${describe(err)}`);
  }
}

async function sesIdentity(deps: DoctorDeps, identity: string): Promise<CheckResult> {
  const check = 'ses:identity';
  try {
    const found = await deps.clients.ses.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
    if (!found.VerifiedForSendingStatus) {
      return problem(
        check,
        `${identity} is not verified for sending (${found.VerificationStatus ?? 'status unknown'})`,
        found.IdentityType === 'EMAIL_ADDRESS'
          ? 'open the verification mail SES sent to the address'
          : 'publish the DKIM CNAME records SES shows for the domain',
      );
    }
    return ok(check, `${identity} is verified for sending`);
  } catch (err) {
    if (named(err, 'NotFoundException')) {
      return problem(
        check,
        `no SES identity ${identity} in ${deps.region}`,
        `create and verify it: aws sesv2 create-email-identity --email-identity ${identity}`,
      );
    }
    return couldNotCheck(check, `SES GetEmailIdentity: ${describe(err)}`);
  }
}

/** The secret's value is read to know it is there (and to try it with Daily); it is never printed. */
async function dailySecret(deps: DoctorDeps, name: string): Promise<{ result: CheckResult; key?: string }> {
  const check = 'daily:secret';
  const fix = `aws secretsmanager put-secret-value --secret-id ${name} --secret-string "$DAILY_API_KEY"`;
  try {
    const { SecretString } = await deps.clients.secrets.send(new GetSecretValueCommand({ SecretId: name }));
    const key = SecretString?.trim();
    if (!key) return { result: problem(check, `secret ${name} is empty: no bot task can start`, fix) };
    return { result: ok(check, `secret ${name} has a value`), key };
  } catch (err) {
    if (named(err, 'ResourceNotFoundException')) {
      const exists = /staging label|secret value/i.test(String((err as Error).message));
      return {
        result: problem(
          check,
          exists
            ? `secret ${name} has no value: no bot task can start`
            : `no secret ${name} in ${deps.region}`,
          exists ? fix : `aws secretsmanager create-secret --name ${name} --secret-string "$DAILY_API_KEY"`,
        ),
      };
    }
    return { result: couldNotCheck(check, `Secrets Manager GetSecretValue: ${describe(err)}`) };
  }
}

/** A read-only call with the key: Daily answers GET /v1/ with the domain's settings, or 401 for a bad key. */
async function dailyKey(deps: DoctorDeps, key: string | undefined): Promise<CheckResult> {
  const check = 'daily:key';
  if (!key) return couldNotCheck(check, 'no key to try: see daily:secret');
  const url = `${deps.dailyApiUrl.replace(/\/+$/, '')}/`;
  try {
    const res = await (deps.fetch ?? fetch)(url, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(deps.dailyTimeoutMs ?? 10_000),
    });
    await res.body?.cancel();
    if (res.ok) return ok(check, `Daily accepts the key (GET ${url}: ${res.status})`);
    if (res.status === 401 || res.status === 403) {
      return problem(
        check,
        `Daily refuses the key (GET ${url}: ${res.status})`,
        'put a valid key from the Daily dashboard (Developers → API key) in the secret',
      );
    }
    return couldNotCheck(check, `GET ${url} answered ${res.status}`);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return couldNotCheck(check, `Daily's API did not answer (GET ${url}: ${cause ?? describe(err)})`);
  }
}

async function fargateQuota(deps: DoctorDeps, poolMax: number, taskCpu: number): Promise<CheckResult> {
  const check = 'fargate:quota';
  const vcpu = taskCpu / 1024;
  // The pool's most tasks, or one cold task without a pool: below that not even the first meeting's bot starts.
  const needed = Math.max(poolMax, 1) * vcpu;
  try {
    const { Quota } = await deps.clients.quotas.send(new GetServiceQuotaCommand(fargateVcpuQuota));
    const value = Quota?.Value;
    if (value === undefined) return couldNotCheck(check, 'Service Quotas returned no value');
    const what = `${Math.max(poolMax, 1)} task(s) × ${vcpu} vCPU = ${needed} vCPU`;
    if (value < needed) {
      return problem(
        check,
        `Fargate On-Demand vCPU quota ${value} in ${deps.region} is below ${what} (botPoolMax × task size)`,
        `request an increase of ${fargateVcpuQuota.QuotaCode} (Service Quotas console → AWS Fargate), or lower botPoolMax`,
      );
    }
    return ok(check, `Fargate On-Demand vCPU quota ${value} covers ${what}; cold bots share it`);
  } catch (err) {
    return couldNotCheck(
      check,
      `Service Quotas GetServiceQuota ${fargateVcpuQuota.QuotaCode}: ${describe(err)}`,
    );
  }
}

async function ecsRole(deps: DoctorDeps): Promise<CheckResult> {
  const check = 'ecs:service-role';
  try {
    await deps.clients.iam.send(new GetRoleCommand({ RoleName: ecsServiceLinkedRole }));
    return ok(check, `${ecsServiceLinkedRole} exists`);
  } catch (err) {
    if (named(err, 'NoSuchEntityException', 'NoSuchEntity')) {
      return problem(
        check,
        `no ${ecsServiceLinkedRole}: ECS cannot attach the bot tasks' network interfaces`,
        'aws iam create-service-linked-role --aws-service-name ecs.amazonaws.com',
      );
    }
    return couldNotCheck(check, `IAM GetRole ${ecsServiceLinkedRole}: ${describe(err)}`);
  }
}

/** Every check, in the order of docs/deploy.md's first deploy checklist. */
export async function runDoctor(deps: DoctorDeps, stage: string): Promise<CheckResult[]> {
  const stack = await stackOutputs(deps, stage);
  const results: CheckResult[] = [stack.result];
  const out = stack.outputs;
  const noOutputs = (check: string) => couldNotCheck(check, 'the stack’s outputs are missing: see stack');
  if (out) {
    results.push(
      await bedrockModel(deps, 'conversation', out[doctorOutputKeys.conversationModel]!),
      await bedrockModel(deps, 'insights', out[doctorOutputKeys.insightsModel]!),
    );
  } else results.push(noOutputs('bedrock:conversation'), noOutputs('bedrock:insights'));
  results.push(await sesAccount(deps));
  results.push(out ? await sesIdentity(deps, out[doctorOutputKeys.sesIdentity]!) : noOutputs('ses:identity'));
  const secret = out ? await dailySecret(deps, out[doctorOutputKeys.dailySecret]!) : undefined;
  results.push(secret?.result ?? noOutputs('daily:secret'));
  results.push(await dailyKey(deps, secret?.key));
  results.push(
    out
      ? await fargateQuota(deps, Number(out[doctorOutputKeys.poolMax]), Number(out[doctorOutputKeys.taskCpu]))
      : noOutputs('fargate:quota'),
  );
  results.push(await ecsRole(deps));
  return results;
}

const mark: Record<CheckStatus, string> = { ok: 'ok     ', problem: 'PROBLEM', could_not_check: 'unknown' };

/**
 * The preflight's exit code: 1 when a check found a problem; 3 when none did but some could not be checked (no
 * credentials, no network: a preflight that checked nothing has not passed); 0 only when every check is ok.
 */
export function doctorExitCode(results: CheckResult[]): number {
  if (results.some((r) => r.status === 'problem')) return 1;
  if (results.some((r) => r.status === 'could_not_check')) return 3;
  return 0;
}

/** One line per check, a fix under each problem, and a summary. */
export function doctorReport(stage: string, results: CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.check.length));
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  return `${[
    `Preflight of ${stackName(stage)}:`,
    ...results.flatMap((r) => [
      `  ${mark[r.status]}  ${r.check.padEnd(width)}  ${r.status === 'could_not_check' ? 'could not check: ' : ''}${r.detail}`,
      ...(r.fix ? [`  ${' '.repeat(7)}  ${' '.repeat(width)}  fix: ${r.fix}`] : []),
    ]),
    `${count('problem')} problem(s), ${count('could_not_check')} could not be checked, ${count('ok')} ok.`,
  ].join('\n')}\n`;
}
