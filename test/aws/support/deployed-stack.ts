// "cdk deploy" into moto: the synthesized template's table, queues (with redrive), ECS cluster and task definition and
// SES identity are created as the template defines them, and every function's environment is resolved from it, so
// the test drives the shape that would be deployed rather than a retyped copy of it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  EC2Client,
  ModifyVpcAttributeCommand,
} from '@aws-sdk/client-ec2';
import {
  CreateClusterCommand,
  CreateServiceCommand,
  ECSClient,
  RegisterTaskDefinitionCommand,
} from '@aws-sdk/client-ecs';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { CreateQueueCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { CfnResource, TemplateJson } from '../../infra/synth-stack';
import { motoAccountId, motoRegion } from './moto';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation values are schemaless JSON.
type Json = any;

/** What a logical id resolves to: `Ref` and `Fn::GetAtt` attributes. */
interface Physical {
  ref: string;
  attrs: Record<string, string>;
}

/** The operator's credentials: calls the test makes itself (setup, checks) are not judged by the IAM simulation. */
export const operator = 'operator';

export function credentialsOf(principal: string) {
  return { accessKeyId: principal, secretAccessKey: 'moto' };
}

export function clientConfig(endpoint: string, principal = operator) {
  return { region: motoRegion, endpoint, credentials: credentialsOf(principal) };
}

const arn = (service: string, resource: string, region: string = motoRegion) =>
  `arn:aws:${service}:${region}:${motoAccountId}:${resource}`;

export class TemplateResolver {
  private readonly physical = new Map<string, Physical>();

  /** `region`: what `AWS::Region` resolves to (moto's, unless a test deploys "into" another region). */
  constructor(
    readonly template: TemplateJson,
    private readonly region: string = motoRegion,
  ) {}

  set(logicalId: string, physical: Physical) {
    this.physical.set(logicalId, physical);
  }

  /** A resource not created in moto resolves to stable made-up ids of the shape AWS would give. */
  private of(logicalId: string): Physical {
    const known = this.physical.get(logicalId);
    if (known) return known;
    const r = this.template.Resources[logicalId];
    if (!r) throw new Error(`unknown logical id ${logicalId}`);
    const id = logicalId.toLowerCase().slice(0, 17);
    const made: Record<string, Physical> = {
      'AWS::IAM::Role': { ref: logicalId, attrs: { Arn: arn('iam', `role/${logicalId}`, '') } },
      'AWS::EC2::Subnet': { ref: `subnet-${id}`, attrs: {} },
      'AWS::EC2::VPC': { ref: `vpc-${id}`, attrs: {} },
      'AWS::EC2::SecurityGroup': { ref: `sg-${id}`, attrs: { GroupId: `sg-${id}` } },
    };
    return (
      made[r.Type] ?? { ref: logicalId, attrs: { Arn: arn(r.Type.split('::')[1]!.toLowerCase(), logicalId) } }
    );
  }

  resolve(value: Json): Json {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (!value || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [k] = keys as [string];
      const v = value[k];
      switch (k) {
        case 'Ref':
          return this.pseudo(v) ?? this.of(v).ref;
        case 'Fn::GetAtt': {
          const [id, attr] = Array.isArray(v) ? v : String(v).split('.');
          const got = this.of(id).attrs[attr];
          if (got === undefined) throw new Error(`no attribute ${attr} of ${id}`);
          return got;
        }
        case 'Fn::Join':
          return (this.resolve(v[1]) as string[]).join(v[0]);
        case 'Fn::Select':
          return this.resolve(v[1])[Number(this.resolve(v[0]))];
        case 'Fn::Split':
          return String(this.resolve(v[1])).split(v[0]);
        case 'Fn::FindInMap': {
          const [map, key, attr] = (v as Json[]).map((x) => String(this.resolve(x)));
          const found = this.template.Mappings?.[map!]?.[key!]?.[attr!];
          // CloudFormation refuses such a template before creating anything; so does the test.
          if (found === undefined) throw new Error(`no mapping ${map}.${key}.${attr}`);
          return found;
        }
        case 'Fn::GetAZs':
          return ['a', 'b', 'c'].map((z) => `${this.region}${z}`);
        case 'Fn::Sub': {
          const [text, vars] = Array.isArray(v) ? v : [v, {}];
          return String(text).replace(/\$\{([^}]+)\}/g, (_, name: string) => {
            if (name in vars) return String(this.resolve(vars[name]));
            const pseudo = this.pseudo(name);
            if (pseudo !== undefined) return pseudo;
            const [id, attr] = name.split('.');
            return attr ? this.of(id!).attrs[attr]! : this.of(id!).ref;
          });
        }
      }
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
  }

  private pseudo(name: string): string | undefined {
    return {
      'AWS::Region': this.region,
      'AWS::AccountId': motoAccountId,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': 'MeetingBot-moto',
      'AWS::NoValue': undefined,
    }[name];
  }

  ofType(type: string): [string, CfnResource][] {
    return Object.entries(this.template.Resources).filter(([, r]) => r.Type === type);
  }
}

/** CloudFormation spells properties in PascalCase, the SDK in camelCase (ECS container definitions). */
function camel(value: Json): Json {
  if (Array.isArray(value)) return value.map(camel);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), camel(v)]),
  );
}

export interface DeployedFunction {
  logicalId: string;
  /** The role it runs as (its principal in the recording and the IAM simulation). */
  role: string;
  /** The bundle CDK staged (cdk.out/asset.<hash>/index.mjs). */
  bundle: string;
  environment: Record<string, string>;
  /** Its template Timeout: the invocation's context counts down from it (getRemainingTimeInMillis). */
  timeoutSeconds: number;
}

export interface DeployedStack {
  resolver: TemplateResolver;
  tableName: string;
  queues: Record<
    | 'results'
    | 'resultsDlq'
    | 'control'
    | 'controlDlq'
    | 'botEvents'
    | 'botEventsDlq'
    | 'delivery'
    | 'deliveryDlq',
    { url: string; arn: string }
  >;
  clusterArn: string;
  taskDefinitionArn: string;
  /** The task role (the bot-task's principal) and its environment from the container definition. */
  task: { role: string; environment: Record<string, string> };
  sesIdentity: string;
  /** The roles a RunTask of this task definition passes to ECS (its task role and execution role). */
  taskRoles(taskDefinitionArn: string): string[];
  functions: Map<string, DeployedFunction>;
  /** The function serving a route key such as `POST /api/bot/join`. */
  routeFunction(routeKey: string): DeployedFunction;
}

const logicalIdOf = (v: Json): string => (typeof v?.Ref === 'string' ? v.Ref : v['Fn::GetAtt'][0]);

/**
 * `endpoint` is moto's; `publicEndpoint` is where our processes reach AWS (the recording proxy). Queue URLs name the
 * latter: the SQS client sends a call to its queue URL's host (useQueueUrlAsEndpoint), as it would to sqs.<region>.
 */
export async function deployToMoto(
  template: TemplateJson,
  outdir: string,
  endpoint: string,
  publicEndpoint = endpoint,
): Promise<DeployedStack> {
  const resolver = new TemplateResolver(template);
  const dynamo = new DynamoDBClient(clientConfig(endpoint));
  const sqs = new SQSClient(clientConfig(endpoint));
  const ecs = new ECSClient(clientConfig(endpoint));
  const ses = new SESv2Client(clientConfig(endpoint));
  const ec2 = new EC2Client(clientConfig(endpoint));
  const s3 = new S3Client({ ...clientConfig(endpoint), forcePathStyle: true });
  try {
    // The network RunTask places tasks in (moto checks that the subnets and security groups exist).
    for (const [id, vpc] of resolver.ofType('AWS::EC2::VPC')) {
      const { Vpc } = await ec2.send(new CreateVpcCommand({ CidrBlock: vpc.Properties!.CidrBlock }));
      for (const attribute of ['EnableDnsSupport', 'EnableDnsHostnames'] as const) {
        if (vpc.Properties![attribute] === undefined) continue;
        await ec2.send(
          new ModifyVpcAttributeCommand({
            VpcId: Vpc!.VpcId!,
            [attribute]: { Value: vpc.Properties![attribute] },
          }),
        );
      }
      resolver.set(id, { ref: Vpc!.VpcId!, attrs: { CidrBlock: vpc.Properties!.CidrBlock } });
    }
    for (const [id, subnet] of resolver.ofType('AWS::EC2::Subnet')) {
      const p = resolver.resolve(subnet.Properties);
      const { Subnet } = await ec2.send(
        new CreateSubnetCommand({
          VpcId: p.VpcId,
          CidrBlock: p.CidrBlock,
          AvailabilityZone: p.AvailabilityZone,
        }),
      );
      resolver.set(id, { ref: Subnet!.SubnetId!, attrs: {} });
    }
    for (const [id, sg] of resolver.ofType('AWS::EC2::SecurityGroup')) {
      const p = resolver.resolve(sg.Properties);
      const { GroupId } = await ec2.send(
        new CreateSecurityGroupCommand({ GroupName: id, Description: p.GroupDescription, VpcId: p.VpcId }),
      );
      resolver.set(id, { ref: GroupId!, attrs: { GroupId: GroupId! } });
    }

    // The table, with its key schema, GSIs and TTL as the template has them.
    const [[tableId, table]] = resolver.ofType('AWS::DynamoDB::Table') as [[string, CfnResource]];
    const t = table.Properties!;
    const tableName = t.TableName ?? `MeetingBot-moto-${tableId}`;
    await dynamo.send(
      new CreateTableCommand({
        TableName: tableName,
        KeySchema: t.KeySchema,
        AttributeDefinitions: t.AttributeDefinitions,
        GlobalSecondaryIndexes: t.GlobalSecondaryIndexes,
        BillingMode: t.BillingMode ?? 'PROVISIONED',
      } as CreateTableCommandInput),
    );
    if (t.TimeToLiveSpecification?.Enabled) {
      await dynamo.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: t.TimeToLiveSpecification,
        }),
      );
    }
    resolver.set(tableId, { ref: tableName, attrs: { Arn: arn('dynamodb', `table/${tableName}`) } });

    // Buckets (the recordings'), created bare: their encryption, policy and lifecycle are checked on the template (the
    // infra tests, the IAM simulation, cfn-lint); here the functions' calls find the bucket they are given.
    for (const [id, bucket] of resolver.ofType('AWS::S3::Bucket')) {
      const name =
        (bucket.Properties?.BucketName as string | undefined) ?? `meetingbot-moto-${id.toLowerCase()}`;
      await s3.send(new CreateBucketCommand({ Bucket: name }));
      resolver.set(id, { ref: name, attrs: { Arn: `arn:aws:s3:::${name}` } });
    }

    // Queues: dead-letter queues first, then the queues that redrive into them. A FIFO queue is FIFO from its
    // creation (the attribute cannot be set later), and CloudFormation ends the name it generates for one in .fifo,
    // which is how our SqsQueue tells it apart (a MessageGroupId per bot) and the control function orders a batch.
    const queueResources = resolver.ofType('AWS::SQS::Queue');
    for (const [id, q] of queueResources) {
      const fifo = q.Properties?.FifoQueue === true || q.Properties?.FifoQueue === 'true';
      const name = q.Properties?.QueueName ?? `MeetingBot-moto-${id}${fifo ? '.fifo' : ''}`;
      const fifoAttributes: Record<string, string> = {};
      if (fifo) {
        fifoAttributes.FifoQueue = 'true';
        for (const a of ['ContentBasedDeduplication', 'DeduplicationScope', 'FifoThroughputLimit'] as const)
          if (q.Properties?.[a] !== undefined) fifoAttributes[a] = String(q.Properties[a]);
      }
      const created = await sqs.send(
        new CreateQueueCommand({
          QueueName: name,
          ...(fifo && { Attributes: fifoAttributes }),
        }),
      );
      const QueueUrl = `${publicEndpoint}${new URL(created.QueueUrl!).pathname}`;
      resolver.set(id, { ref: QueueUrl, attrs: { Arn: arn('sqs', name), QueueName: name, QueueUrl } });
    }
    for (const [id, q] of queueResources) {
      const p = resolver.resolve(q.Properties ?? {});
      const attributes: Record<string, string> = {};
      if (p.VisibilityTimeout !== undefined) attributes.VisibilityTimeout = String(p.VisibilityTimeout);
      if (p.MessageRetentionPeriod !== undefined)
        attributes.MessageRetentionPeriod = String(p.MessageRetentionPeriod);
      if (p.RedrivePolicy) attributes.RedrivePolicy = JSON.stringify(p.RedrivePolicy);
      await sqs.send(
        new SetQueueAttributesCommand({ QueueUrl: resolver.resolve({ Ref: id }), Attributes: attributes }),
      );
    }

    // The ECS cluster and the bot's task definition.
    const [[clusterId, cluster]] = resolver.ofType('AWS::ECS::Cluster') as [[string, CfnResource]];
    const clusterName = cluster.Properties?.ClusterName ?? `MeetingBot-moto-${clusterId}`;
    const { cluster: created } = await ecs.send(
      new CreateClusterCommand({ clusterName, capacityProviders: ['FARGATE', 'FARGATE_SPOT'] }),
    );
    resolver.set(clusterId, { ref: clusterName, attrs: { Arn: created!.clusterArn! } });

    const [[taskId, taskDef]] = resolver.ofType('AWS::ECS::TaskDefinition') as [[string, CfnResource]];
    const td = resolver.resolve(taskDef.Properties);
    const containers = camel(td.ContainerDefinitions).map((c: Json) => ({
      ...c,
      // moto gap: it sums container-level memory even on Fargate, where the template sets only the task's.
      memory: c.memory ?? Number(td.Memory),
    }));
    const { taskDefinition } = await ecs.send(
      new RegisterTaskDefinitionCommand({
        family: td.Family,
        cpu: String(td.Cpu),
        memory: String(td.Memory),
        networkMode: td.NetworkMode,
        requiresCompatibilities: td.RequiresCompatibilities,
        taskRoleArn: td.TaskRoleArn,
        executionRoleArn: td.ExecutionRoleArn,
        runtimePlatform: td.RuntimePlatform ? camel(td.RuntimePlatform) : undefined,
        containerDefinitions: containers,
      }),
    );
    resolver.set(taskId, { ref: taskDefinition!.taskDefinitionArn!, attrs: {} });
    // The warm pool's service (when the stack has one), empty: the scheduler reads and raises its desired count.
    for (const [serviceId] of resolver.ofType('AWS::ECS::Service')) {
      const { service } = await ecs.send(
        new CreateServiceCommand({
          cluster: clusterName,
          serviceName: serviceId,
          taskDefinition: taskDefinition!.taskDefinitionArn!,
          desiredCount: 0,
        }),
      );
      resolver.set(serviceId, { ref: service!.serviceArn!, attrs: { Name: serviceId } });
    }
    const botContainer = (taskDef.Properties!.ContainerDefinitions as Json[])[0];
    const task = {
      role: logicalIdOf(taskDef.Properties!.TaskRoleArn),
      environment: envOf(resolver, botContainer.Environment),
    };

    // The SES identity the delivery function may send from (its ses:SendEmail grant names it).
    const sesIdentity = sesIdentityOf(resolver);
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: sesIdentity }));

    const functions = new Map<string, DeployedFunction>();
    for (const [id, fn] of resolver.ofType('AWS::Lambda::Function')) {
      const p = fn.Properties!;
      if (p.Handler !== 'index.handler') continue; // CDK's own custom-resource providers are not ours
      const hash = String(p.Code.S3Key).replace(/\.zip$/, '');
      functions.set(id, {
        logicalId: id,
        role: logicalIdOf(p.Role),
        bundle: join(outdir, `asset.${hash}`, 'index.mjs'),
        environment: envOf(resolver, p.Environment?.Variables ?? {}),
        timeoutSeconds: Number(p.Timeout ?? 3),
      });
    }
    // Routes: route key → integration → function.
    const routes = new Map<string, string>();
    for (const [, route] of resolver.ofType('AWS::ApiGatewayV2::Route')) {
      const target = String(route.Properties!.Target?.['Fn::Join']?.[1]?.[1]?.Ref ?? '');
      const integration = template.Resources[target];
      if (!integration) continue;
      const uri = integration.Properties!.IntegrationUri;
      routes.set(route.Properties!.RouteKey, logicalIdOf(uri));
    }

    const queue = (match: RegExp) => {
      const found = queueResources.find(([id]) => match.test(id));
      if (!found) throw new Error(`no queue matching ${match}`);
      const id = found[0];
      return { url: resolver.resolve({ Ref: id }), arn: resolver.resolve({ 'Fn::GetAtt': [id, 'Arn'] }) };
    };
    return {
      resolver,
      tableName,
      queues: {
        results: queue(/ResultsQueue/),
        resultsDlq: queue(/ResultsDlq/),
        control: queue(/ControlQueue/),
        controlDlq: queue(/ControlDlq/),
        botEvents: queue(/BotEventsQueue/),
        botEventsDlq: queue(/BotEventsDlq/),
        delivery: queue(/DeliveryQueue/),
        deliveryDlq: queue(/DeliveryDlq/),
      },
      clusterArn: created!.clusterArn!,
      taskDefinitionArn: taskDefinition!.taskDefinitionArn!,
      task,
      sesIdentity,
      taskRoles(taskDefinitionArn) {
        if (taskDefinitionArn !== taskDefinition!.taskDefinitionArn)
          throw new Error(`unknown ${taskDefinitionArn}`);
        return [td.TaskRoleArn, td.ExecutionRoleArn].filter(Boolean);
      },
      functions,
      routeFunction(routeKey) {
        const id = routes.get(routeKey);
        const fn = id && functions.get(id);
        if (!fn)
          throw new Error(`no function for route ${routeKey}; routes: ${[...routes.keys()].join(', ')}`);
        return fn;
      },
    };
  } finally {
    for (const c of [dynamo, sqs, ecs, ses, ec2, s3]) c.destroy();
  }
}

function envOf(resolver: TemplateResolver, vars: Json): Record<string, string> {
  const resolved = resolver.resolve(vars);
  // A container's environment is a list of { Name, Value }; a function's a map.
  if (Array.isArray(resolved))
    return Object.fromEntries(resolved.map((e: Json) => [e.Name, String(e.Value)]));
  return Object.fromEntries(Object.entries(resolved).map(([k, v]) => [k, String(v)]));
}

function sesIdentityOf(resolver: TemplateResolver): string {
  for (const [, policy] of resolver.ofType('AWS::IAM::Policy')) {
    for (const s of policy.Properties!.PolicyDocument.Statement) {
      const actions = [s.Action].flat();
      if (!actions.includes('ses:SendEmail')) continue;
      const resource = String([resolver.resolve(s.Resource)].flat()[0]);
      return resource.slice(resource.indexOf(':identity/') + ':identity/'.length);
    }
  }
  throw new Error('no ses:SendEmail grant in the template');
}

/** Reads a synthesized template file (cdk.out or a test's outdir). */
export function readTemplate(path: string): TemplateJson {
  return JSON.parse(readFileSync(path, 'utf8')) as TemplateJson;
}
