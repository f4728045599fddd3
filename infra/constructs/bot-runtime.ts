// The bot runtime: VPC, ECS cluster (Fargate Spot + Fargate) and the bot task built from bot-task/Dockerfile; one
// task per bot, started by the join function through functions/runtime.ts (EcsTaskRunner).
import { Duration, IgnoreMode, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { MeetingBotSettings } from '../settings';
import type { ControlPlane } from './control-plane';
import type { BotData } from './data';
import { addEnvironment } from './environment';
import { type BedrockModel, bedrockModel } from './model-access';
import { logGroup, repoRoot } from './service-function';
import { metricsEnvironment } from './service-metrics';
import { allow, grantWithWildcard } from './wildcard-grant';

/** The container's name: RunTask overrides and the task-stopped handler find it by this name. */
export const botContainerName = 'bot';

/** Seconds between SIGTERM and SIGKILL: time to leave the room and save the transcript (ECS maximum: 120). */
export const botStopTimeoutSeconds = 120;

export interface BotRuntimeProps {
  settings: MeetingBotSettings;
  data: BotData;
  resultsQueue: sqs.IQueue;
  /** A bot sends its events and its requests (replacement, cold start) to the control plane. */
  controlPlane: ControlPlane;
}

export class BotRuntime extends Construct {
  readonly vpc: ec2.Vpc;
  readonly cluster: ecs.Cluster;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly container: ecs.ContainerDefinition;
  readonly securityGroup: ec2.SecurityGroup;
  readonly image: DockerImageAsset;
  readonly logGroup: logs.LogGroup;
  /** Where bot tasks run (the cold tasks RunTask starts and the warm pool's service alike). */
  readonly subnets: ec2.SelectedSubnets;
  /** The model the bot converses with (CONVERSATION_MODEL_ID). */
  readonly conversationModel: BedrockModel;
  private readonly settings: MeetingBotSettings;

  constructor(scope: Construct, id: string, props: BotRuntimeProps) {
    super(scope, id);
    const { settings, data, resultsQueue, controlPlane } = props;
    this.settings = settings;
    const stack = Stack.of(this);
    const publicTasks = settings.botNetwork === 'public';
    this.conversationModel = bedrockModel(this, settings.conversationModelId, 'conversation');

    // Public mode: tasks get public IPs in public subnets — WebRTC needs UDP egress to Daily's media servers,
    // and no NAT gateway means no NAT hourly or per-GB cost. Private mode: private subnets behind one NAT.
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: settings.maxAzs,
      natGateways: publicTasks ? 0 : 1,
      restrictDefaultSecurityGroup: true,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 22, mapPublicIpOnLaunch: false },
        ...(publicTasks
          ? []
          : [{ name: 'tasks', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 }]),
      ],
    });
    this.vpc.addFlowLog('RejectedTraffic', {
      trafficType: ec2.FlowLogTrafficType.REJECT,
      destination: ec2.FlowLogDestination.toCloudWatchLogs(logGroup(this, 'FlowLogs', settings)),
    });
    this.subnets = this.vpc.selectSubnets({
      subnetType: publicTasks ? ec2.SubnetType.PUBLIC : ec2.SubnetType.PRIVATE_WITH_EGRESS,
    });
    this.securityGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'Bot tasks: no inbound; outbound to Daily (WebRTC over UDP/TCP) and AWS APIs (HTTPS)',
      allowAllOutbound: true,
    });

    this.cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: this.vpc,
      enableFargateCapacityProviders: true,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    });

    const arm64 = settings.botTaskArchitecture === 'arm64';
    // The build context is the repository root, narrowed by the allow-list in /.dockerignore, so synthesis
    // stages only the sources the image is built from (never node_modules). Synthesis does not run Docker.
    this.image = new DockerImageAsset(this, 'Image', {
      directory: repoRoot,
      file: 'bot-task/Dockerfile',
      ignoreMode: IgnoreMode.DOCKER,
      platform: arm64 ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
      displayName: `meeting-bot ${settings.stage} bot-task`,
    });

    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      family: `meeting-bot-${settings.stage}-bot`,
      cpu: settings.botTaskCpu,
      memoryLimitMiB: settings.botTaskMemoryMiB,
      runtimePlatform: {
        cpuArchitecture: arm64 ? ecs.CpuArchitecture.ARM64 : ecs.CpuArchitecture.X86_64,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
    });
    this.logGroup = logGroup(this, 'Logs', settings);

    const dailyApiKey = secretsmanager.Secret.fromSecretNameV2(
      this,
      'DailyApiKey',
      settings.dailyApiKeySecretName,
    );
    this.container = this.taskDefinition.addContainer('Bot', {
      containerName: botContainerName,
      image: ecs.ContainerImage.fromDockerImageAsset(this.image),
      essential: true,
      // Node is not PID 1: tini forwards SIGTERM (StopTask) to it and reaps Chromium's children.
      linuxParameters: new ecs.LinuxParameters(this, 'Linux', { initProcessEnabled: true }),
      stopTimeout: Duration.seconds(botStopTimeoutSeconds),
      logging: ecs.LogDrivers.awsLogs({
        logGroup: this.logGroup,
        streamPrefix: 'bot',
        // A slow log pipe must never stall the bot's event loop mid-meeting.
        mode: ecs.AwsLogDriverMode.NON_BLOCKING,
      }),
      // Non-secret settings only (core/config.ts); RunTask adds BOT_ID (and BOT_ATTEMPT for a replacement) only.
      environment: {
        AWS_REGION: stack.region,
        TABLE_NAME: data.table.tableName,
        LOG_LEVEL: settings.logLevel,
        // Metrics are EMF lines on stdout: the awslogs driver above carries them to CloudWatch (no PutMetricData).
        ...metricsEnvironment(settings),
        CONVERSATION_MODEL_ID: this.conversationModel.id,
      },
      // Secrets are resolved by ECS at start from Secrets Manager, never passed in RunTask overrides.
      secrets: { DAILY_API_KEY: ecs.Secret.fromSecretsManager(dailyApiKey) },
    });
    addEnvironment(this.container, {
      RESULTS_QUEUE_URL: resultsQueue.queueUrl,
      ...controlPlane.environment(['control', 'botEvents']),
    });
  }

  /** What the functions that start and stop bots read to build their EcsTaskRunner (BOT_RUNTIME: environment.ts). */
  runnerEnvironment(): Record<string, string> {
    return {
      BOT_CLUSTER_ARN: this.cluster.clusterArn,
      BOT_TASK_DEFINITION_ARN: this.taskDefinition.taskDefinitionArn,
      BOT_CONTAINER_NAME: botContainerName,
      BOT_SUBNET_IDS: this.subnets.subnetIds.join(','),
      BOT_SECURITY_GROUP_IDS: this.securityGroup.securityGroupId,
      BOT_ASSIGN_PUBLIC_IP: String(this.settings.botNetwork === 'public'),
      BOT_CAPACITY_PROVIDERS: this.settings.useFargateSpot ? 'FARGATE_SPOT,FARGATE' : 'FARGATE',
    };
  }

  /** ARN pattern of this cluster's tasks (the id is only known after RunTask). */
  private clusterArns(resource: 'task'): string {
    return Stack.of(this).formatArn({
      service: 'ecs',
      resource,
      resourceName: `${this.cluster.clusterName}/*`,
    });
  }

  /** RunTask of this task definition family on this cluster, tagging at launch, and passing its two roles. */
  grantRunTask(grantee: iam.IGrantable): void {
    const principal = grantee.grantPrincipal;
    grantWithWildcard(
      principal,
      new iam.PolicyStatement({
        actions: ['ecs:RunTask'],
        resources: [
          Stack.of(this).formatArn({
            service: 'ecs',
            resource: 'task-definition',
            resourceName: `${this.taskDefinition.family}:*`,
          }),
        ],
        conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
      }),
      'Any revision of our own task definition family (`family:*`): during a deploy the running join function may ' +
        'still hold the previous revision. Pinned to this cluster by the ecs:cluster condition.',
    );
    grantWithWildcard(
      principal,
      new iam.PolicyStatement({
        actions: ['ecs:TagResource'],
        resources: [this.clusterArns('task')],
        conditions: { StringEquals: { 'ecs:CreateAction': 'RunTask' } },
      }),
      'RunTask with tags (bot_id) needs ecs:TagResource on the task it creates, whose id does not exist before the ' +
        'call: tasks of this cluster only (`task/<cluster>/*`), and only while creating them (ecs:CreateAction).',
    );
    allow(principal, {
      actions: ['iam:PassRole'],
      resources: [this.taskDefinition.taskRole.roleArn, this.taskDefinition.obtainExecutionRole().roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
    });
  }

  /** DescribeClusters of this cluster only: its running and pending task count (MAX_BOTS). */
  grantDescribeCluster(grantee: iam.IGrantable): void {
    allow(grantee, { actions: ['ecs:DescribeClusters'], resources: [this.cluster.clusterArn] });
  }

  /** StopTask on this cluster's tasks only (leave's backstop signal), and ListTasks to find a bot's task. */
  grantStopTask(grantee: iam.IGrantable): void {
    grantWithWildcard(
      grantee,
      new iam.PolicyStatement({
        actions: ['ecs:ListTasks'],
        resources: ['*'],
        conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
      }),
      'ListTasks without a container instance (finding the task a bot runs in by startedBy) is authorized against ' +
        '`*`, not a container-instance ARN (cdklabs/construct-hub#1207); the ecs:cluster condition keeps it to this ' +
        'cluster. Found by the IAM simulation of the moto run (test/aws).',
    );
    grantWithWildcard(
      grantee,
      new iam.PolicyStatement({
        actions: ['ecs:StopTask'],
        resources: [this.clusterArns('task')],
        conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
      }),
      'The task to stop is per bot and known only at run time: tasks of this cluster only (`task/<cluster>/*`, ' +
        'and the ecs:cluster condition).',
    );
  }
}
