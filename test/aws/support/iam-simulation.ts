// Judges every recorded AWS call with an IAM policy simulator (@cloud-copilot/iam-simulate) against the caller's
// policies in the synthesized template: which IAM actions a call needs, on which resource ARN and with which
// condition keys, follows each service's authorization reference, including the calls AWS authorizes implicitly
// (RunTask's iam:PassRole and ecs:TagResource).
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { TemplateJson } from '../../infra/synth-stack';
import type { DeployedStack, TemplateResolver } from './deployed-stack';
import { motoAccountId, motoRegion } from './moto';
import type { AwsCall } from './recording-proxy';

// biome-ignore lint/suspicious/noExplicitAny: policy documents are schemaless JSON.
type Json = any;

export interface IamRequest {
  principal: string;
  action: string;
  /** The resource ARN the action is authorized against, or `*` for calls AWS authorizes on no resource. */
  resource: string;
  context: Record<string, string | string[]>;
  /** The call it came from, for messages. */
  from: string;
}

export interface Verdict {
  request: IamRequest;
  result: 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied' | 'Error';
  detail?: string;
}

const arn = (service: string, resource: string) =>
  `arn:aws:${service}:${motoRegion}:${motoAccountId}:${resource}`;
const isArn = (s: string) => s.startsWith('arn:');

function ecsCluster(value: string | undefined): string {
  const v = value ?? 'default';
  return isArn(v) ? v : arn('ecs', `cluster/${v}`);
}

/** `Name <a@b>` or `a@b` → `a@b`. */
const bareAddress = (from: string) => /<([^>]+)>/.exec(from)?.[1] ?? from.trim();

/** The IAM requests one AWS call makes; a call we have no mapping for is an error, so nothing goes unjudged. */
export function iamRequestsOf(call: AwsCall, stack: DeployedStack): IamRequest[] {
  const { principal, service, operation: op, input, output } = call;
  const from = `${service}:${op}`;
  const req = (action: string, resource: string, context: IamRequest['context'] = {}): IamRequest => ({
    principal,
    action,
    resource,
    context: { 'aws:SecureTransport': 'true', ...context },
    from,
  });
  const table = (name: string, index?: string) =>
    arn('dynamodb', `table/${name}${index ? `/index/${index}` : ''}`);
  switch (service) {
    case 'dynamodb':
      if (op === 'BatchWriteItem' || op === 'BatchGetItem') {
        return Object.keys(input.RequestItems).map((t) => req(`dynamodb:${op}`, table(t)));
      }
      if (op === 'TransactWriteItems') {
        // Authorized item by item, each as its own action (DynamoDB developer guide, "IAM with transactions").
        const actions: Record<string, string> = {
          ConditionCheck: 'ConditionCheckItem',
          Put: 'PutItem',
          Update: 'UpdateItem',
          Delete: 'DeleteItem',
        };
        return (input.TransactItems as Record<string, { TableName: string }>[]).map((item) => {
          const [[kind, request]] = Object.entries(item) as [[string, { TableName: string }]];
          return req(`dynamodb:${actions[kind]}`, table(request.TableName));
        });
      }
      if (['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan'].includes(op)) {
        return [req(`dynamodb:${op}`, table(input.TableName, input.IndexName))];
      }
      break;
    case 'sqs': {
      const name = String(input.QueueUrl).split('/').pop()!;
      // A batch call is authorized as its single-message action (SQS API reference, "Permissions").
      return [req(`sqs:${op.replace(/Batch$/, '')}`, arn('sqs', name))];
    }
    case 'ecs': {
      const cluster = ecsCluster(input.cluster);
      if (op === 'RunTask') {
        const td = isArn(input.taskDefinition)
          ? input.taskDefinition
          : arn('ecs', `task-definition/${input.taskDefinition}`);
        const out = [req('ecs:RunTask', td, { 'ecs:cluster': cluster })];
        // Tagging at launch is authorized as ecs:TagResource on the new task (ecs:CreateAction = RunTask).
        const tags: { key: string; value: string }[] = input.tags ?? [];
        for (const task of output?.tasks ?? []) {
          if (tags.length === 0) break;
          out.push(
            req('ecs:TagResource', task.taskArn, {
              'ecs:CreateAction': 'RunTask',
              'aws:TagKeys': tags.map((t) => t.key),
              ...Object.fromEntries(tags.map((t) => [`aws:RequestTag/${t.key}`, t.value])),
            }),
          );
        }
        // RunTask passes the task definition's roles to ECS.
        for (const role of stack.taskRoles(td)) {
          out.push(req('iam:PassRole', role, { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' }));
        }
        return out;
      }
      if (op === 'ListTasks') {
        // Without a container instance, ListTasks is authorized against `*` (cdklabs/construct-hub#1207,
        // awsdocs/amazon-ecs-developer-guide#211).
        const resource = input.containerInstance
          ? isArn(input.containerInstance)
            ? input.containerInstance
            : arn('ecs', `container-instance/${cluster.split('/').pop()}/${input.containerInstance}`)
          : '*';
        return [req('ecs:ListTasks', resource, { 'ecs:cluster': cluster })];
      }
      if (op === 'DescribeServices' || op === 'UpdateService') {
        const services: string[] = op === 'UpdateService' ? [input.service] : input.services;
        return services.map((sv) =>
          req(`ecs:${op}`, isArn(sv) ? sv : arn('ecs', `service/${cluster.split('/').pop()}/${sv}`), {
            'ecs:cluster': cluster,
          }),
        );
      }
      if (op === 'StopTask' || op === 'DescribeTasks') {
        const tasks: string[] = op === 'StopTask' ? [input.task] : input.tasks;
        return tasks.map((t) =>
          req(`ecs:${op}`, isArn(t) ? t : arn('ecs', `task/${cluster.split('/').pop()}/${t}`), {
            'ecs:cluster': cluster,
          }),
        );
      }
      break;
    }
    case 'ses':
      if (op === 'SendEmail') {
        const address = bareAddress(input.FromEmailAddress ?? '');
        const identity =
          stack.sesIdentity === address || address.endsWith(`@${stack.sesIdentity}`)
            ? stack.sesIdentity
            : address;
        return [
          req('ses:SendEmail', arn('ses', `identity/${identity}`), {
            'ses:FromAddress': address,
            'ses:Recipients': [...(input.Destination?.ToAddresses ?? [])],
          }),
        ];
      }
      break;
  }
  throw new Error(`no IAM mapping for ${from}: add it to test/aws/support/iam-simulation.ts`);
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The identity policies of a role in a template: inline ones and AWS::IAM::Policy resources attached to it. */
export function rolePolicies(template: TemplateJson, resolver: TemplateResolver, role: string) {
  const r = template.Resources[role];
  if (r?.Type !== 'AWS::IAM::Role') throw new Error(`${role} is not a role of the template`);
  if (asArray(r.Properties?.ManagedPolicyArns).length > 0) {
    throw new Error(`${role} has managed policies, whose documents the simulation cannot see`);
  }
  const policies: { name: string; policy: Json }[] = asArray(r.Properties?.Policies).map((p: Json) => ({
    name: p.PolicyName,
    policy: resolver.resolve(p.PolicyDocument),
  }));
  for (const [id, p] of Object.entries(template.Resources)) {
    if (p.Type !== 'AWS::IAM::Policy') continue;
    if (!asArray(p.Properties?.Roles).some((x: Json) => x?.Ref === role)) continue;
    policies.push({ name: id, policy: resolver.resolve(p.Properties!.PolicyDocument) });
  }
  return policies;
}

/** The resource policy that applies to an SQS queue ARN (AWS::SQS::QueuePolicy), if any. */
function queuePolicy(template: TemplateJson, resolver: TemplateResolver, queueArn: string): Json | undefined {
  const name = queueArn.split(':').pop();
  for (const p of Object.values(template.Resources)) {
    if (p.Type !== 'AWS::SQS::QueuePolicy') continue;
    const urls: string[] = resolver.resolve(p.Properties!.Queues);
    if (urls.some((u) => u.split('/').pop() === name)) return resolver.resolve(p.Properties!.PolicyDocument);
  }
  return undefined;
}

/**
 * The key policy of the KMS key `keyArn` (AWS::KMS::Key): KMS authorizes every call against it first, and the identity
 * policies count only where it delegates to the account (https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html).
 */
function keyPolicy(template: TemplateJson, resolver: TemplateResolver, keyArn: string): Json | undefined {
  for (const [id, k] of Object.entries(template.Resources)) {
    if (k.Type !== 'AWS::KMS::Key') continue;
    if (resolver.resolve({ 'Fn::GetAtt': [id, 'Arn'] }) === keyArn)
      return resolver.resolve(k.Properties!.KeyPolicy);
  }
  return undefined;
}

/**
 * A request authorized on `*` matches only statements whose Resource is `*` (IAM matches the request's resource
 * string against each pattern). The simulator reads a `*` request as "any resource of the action's types", so the
 * statements that name resources are taken out before it sees them.
 */
function forUnscopedRequest(policy: Json): Json {
  const statements = asArray(policy.Statement).filter(
    (s: Json) => s.Effect === 'Deny' || s.NotResource !== undefined || asArray(s.Resource).includes('*'),
  );
  return { ...policy, Statement: statements };
}

export async function simulate(
  template: TemplateJson,
  resolver: TemplateResolver,
  requests: IamRequest[],
): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (const request of requests) {
    const principalArn = `arn:aws:iam::${motoAccountId}:role/${request.principal}`;
    const unscoped = request.resource === '*';
    const identityPolicies = rolePolicies(template, resolver, request.principal).map((p) =>
      unscoped ? { ...p, policy: forUnscopedRequest(p.policy) } : p,
    );
    const resourcePolicy = request.action.startsWith('sqs:')
      ? queuePolicy(template, resolver, request.resource)
      : request.action.startsWith('kms:')
        ? keyPolicy(template, resolver, request.resource)
        : undefined;
    const result = await runSimulation(
      {
        identityPolicies,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
        request: {
          action: request.action,
          principal: principalArn,
          resource: { accountId: motoAccountId, resource: request.resource },
          contextVariables: {
            'aws:PrincipalArn': principalArn,
            'aws:PrincipalAccount': motoAccountId,
            ...request.context,
          },
        },
      },
      {},
    );
    if (result.resultType === 'error') {
      verdicts.push({ request, result: 'Error', detail: JSON.stringify(result.errors) });
    } else {
      verdicts.push({ request, result: result.overallResult as Verdict['result'] });
    }
  }
  return verdicts;
}

/** A verdict in a line: what was asked, by whom, on what, and the answer. */
const verdictLine = (v: Verdict) =>
  `${v.result}: ${v.request.principal} ${v.request.action} on ${v.request.resource} (${v.request.from})${v.detail ? ` ${v.detail}` : ''}`;

/** One line per request that is not allowed. */
export function denials(verdicts: Verdict[]): string[] {
  return verdicts.filter((v) => v.result !== 'Allowed').map(verdictLine);
}

/**
 * One line per request that the policies do not simply leave out (ImplicitlyDenied): allowed, denied by an explicit
 * Deny, or an error of the simulation. For requests a test expects no policy to grant.
 */
export function notRefused(verdicts: Verdict[]): string[] {
  return verdicts.filter((v) => v.result !== 'ImplicitlyDenied').map(verdictLine);
}
