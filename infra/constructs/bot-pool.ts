// The warm pool: an ECS service of bot tasks started without a BOT_ID, which warm up, wait for a session
// offered by the join, claim it (bot-task/pool.ts) and serve it; its size follows the pool's idle count.
import { Duration, Stack, Tags, Validations } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { MeetingBotSettings } from '../settings';
import type { BotRuntime } from './bot-runtime';
import type { BotData } from './data';
import type { ServiceFunction } from './service-function';
import { serviceMetric } from './service-metrics';
import { grantWithWildcard } from './wildcard-grant';

/** How the pool's idle count is read: each idle pooled bot records 1 per minute (core/metrics.ts poolIdleBots). */
export const poolIdlePeriod = Duration.minutes(1);

/** Scale-out waits this long before adding more: about the time a new task needs to pull, start and warm up. */
export const poolScaleOutCooldown = Duration.minutes(3);
/** Scale-in removes one idle task at a time, at most this often, after the pool was over its size this long. */
export const poolScaleInCooldown = Duration.minutes(5);
export const poolScaleInMinutes = 5;

export interface BotPoolProps {
  settings: MeetingBotSettings;
  data: BotData;
  runtime: BotRuntime;
}

export class BotPool extends Construct {
  /** Wake-up calls: the join sends one `{"bot_id"}` per offered session; idle pooled bots long-poll it. */
  readonly queue: sqs.Queue;
  readonly service: ecs.FargateService;
  readonly scalableTarget: appscaling.ScalableTarget;
  /** Sum over a minute: how many pooled bots were idle. */
  readonly idleBots: cloudwatch.Metric;
  /**
   * The same, with a minute without data as 0: idle bots are the metric's only writers, so no data means none is
   * idle, and a step scaling policy needs a value to pick its step from (an alarm on missing data alone has none).
   */
  readonly idleCount: cloudwatch.MathExpression;
  readonly scaleOutAlarm: cloudwatch.Alarm;
  readonly scaleInAlarm: cloudwatch.Alarm;
  private readonly settings: MeetingBotSettings;

  constructor(scope: Construct, id: string, props: BotPoolProps) {
    super(scope, id);
    const { settings, data, runtime } = props;
    this.settings = settings;
    const size = settings.botPoolSize;

    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // An offer is worth something for POOL_CLAIM_TIMEOUT_MS (2 s); after that the fallback has started a cold task.
      // Five minutes keeps the queue from holding stale wake-ups, which idle bots would only fail to claim.
      retentionPeriod: Duration.minutes(5),
      // A bot that received a wake-up and died before deleting it: another idle bot gets it after 10 s.
      visibilityTimeout: Duration.seconds(10),
    });
    Validations.of(this.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'A wake-up call for idle pooled bots, worthless after seconds: a message no bot could take has nothing to ' +
        'replay (the session fell back to a cold start through the control queue, which has its DLQ), so a DLQ ' +
        'would only collect noise. Pooled bots also scan the offers in the table as a backstop.',
    });

    runtime.container.addEnvironment('POOL_QUEUE_URL', this.queue.queueUrl);
    const taskRole = runtime.taskDefinition.taskRole;
    taskRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],
        resources: [this.queue.queueArn],
      }),
    );
    // The winner of a claim withdraws the session's offer (core/adapters/dynamodb/sessions-store.ts claim).
    data.grantItems(taskRole, ['dynamodb:DeleteItem']);
    grantWithWildcard(
      taskRole,
      new iam.PolicyStatement({
        actions: ['ecs:UpdateTaskProtection'],
        resources: [
          Stack.of(this).formatArn({
            service: 'ecs',
            resource: 'task',
            resourceName: `${runtime.cluster.clusterName}/*`,
          }),
        ],
      }),
      'A pooled bot protects its own task from scale-in once it holds a session (bot-task/ecs-task.ts, through the ' +
        'ECS agent, which calls UpdateTaskProtection with the task role); its task id is known only at run time: ' +
        'tasks of this cluster only (`task/<cluster>/*`).',
    );

    this.service = new ecs.FargateService(this, 'Service', {
      cluster: runtime.cluster,
      taskDefinition: runtime.taskDefinition,
      // Created empty, so CloudFormation never waits on a pool task: a first deploy whose tasks cannot start (the
      // Daily secret not yet filled, no ECS service-linked role) completes instead of rolling the whole stack back.
      // The scalable target's minimum and the scale-out alarm bring it to `size` minutes later, outside
      // CloudFormation; tasks that cannot start leave the pool at 0 and the PoolEmpty alarm says so. The price: a
      // deploy that updates the service resets it to 0 (idle bots are replaced then anyway), and scaling refills it
      // within minutes (docs/deploy.md "A first deploy that cannot roll back").
      desiredCount: 0,
      // On-demand only: a pooled bot may wait idle for hours, which is when Spot reclaims capacity.
      capacityProviderStrategies: [{ capacityProvider: 'FARGATE', weight: 1 }],
      vpcSubnets: { subnets: runtime.subnets.subnets },
      securityGroups: [runtime.securityGroup],
      assignPublicIp: settings.botNetwork === 'public',
      // Deployments replace idle bots freely (busy ones are protected from scale-in and deployments alike).
      minHealthyPercent: 0,
      maxHealthyPercent: 200,
      // A deployment CloudFormation starts asks for 0 tasks, so the breaker has nothing to trip on there; it guards
      // deployments started by hand (`aws ecs update-service --desired-count`), rolling back to the last good one.
      circuitBreaker: { enable: true, rollback: true },
    });
    // A service with a capacity provider strategy fails to create before the cluster's capacity providers are
    // associated; depending on the cluster orders it after that association.
    this.service.node.addDependency(runtime.cluster);

    this.scalableTarget = new appscaling.ScalableTarget(this, 'Scaling', {
      serviceNamespace: appscaling.ServiceNamespace.ECS,
      scalableDimension: 'ecs:service:DesiredCount',
      resourceId: `service/${runtime.cluster.clusterName}/${this.service.serviceName}`,
      minCapacity: size,
      maxCapacity: settings.botPoolMax,
      // Application Auto Scaling's service-linked role for ECS, as ecs.BaseService.autoScaleTaskCount uses.
      role: iam.Role.fromRoleArn(
        this,
        'ScalingRole',
        Stack.of(this).formatArn({
          region: '',
          service: 'iam',
          resource: 'role/aws-service-role/ecs.application-autoscaling.amazonaws.com',
          resourceName: 'AWSServiceRoleForApplicationAutoScaling_ECSService',
        }),
      ),
    });

    // cfn-lint's schema of AWS::ApplicationAutoScaling::ScalableTarget has no Tags (E3002): the stack's tags stop here.
    for (const key of ['service', 'stage']) Tags.of(this.scalableTarget).remove(key);

    this.idleBots = serviceMetric(settings.stage, 'poolIdleBots', {
      period: poolIdlePeriod,
      statistic: 'Sum',
      label: 'idle',
    });
    this.idleCount = new cloudwatch.MathExpression({
      expression: 'FILL(idle, 0)',
      usingMetrics: { idle: this.idleBots },
      period: poolIdlePeriod,
      label: 'idle pooled bots',
    });

    // Fewer than `size` idle: add the shortfall at once (idle k → +size−k). Half-integer bounds: the count is whole.
    // The adjustment bounds are relative to the alarm's threshold (size − 0.5).
    const scaleOut = new appscaling.StepScalingAction(this, 'ScaleOut', {
      scalingTarget: this.scalableTarget,
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      cooldown: poolScaleOutCooldown,
      metricAggregationType: appscaling.MetricAggregationType.MAXIMUM,
    });
    for (let idle = 0; idle < size; idle++) {
      scaleOut.addAdjustment({
        adjustment: size - idle,
        ...(idle > 0 && { lowerBound: idle - size }),
        upperBound: idle - size + 1,
      });
    }
    this.scaleOutAlarm = new cloudwatch.Alarm(this, 'ScaleOutAlarm', {
      alarmDescription: `Warm pool: fewer than ${size} idle bots (scales out by the shortfall)`,
      metric: this.idleCount,
      threshold: size - 0.5,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
      // Two minutes, not one: the latest minute's points may still be arriving, and FILL would read a late minute as
      // an empty pool and add `size` bots that scale-in then removes one per 5 minutes.
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      // FILL already makes a silent minute 0; should the expression still return nothing, that is no idle bot too.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    this.scaleOutAlarm.addAlarmAction(stepScalingAction(scaleOut));

    // More than `size` idle for a while (busy bots finished and the service replaced them): remove one. ECS stops only
    // unprotected tasks, and a bot protects its task right after it claims a session (bot-task/ecs-task.ts; one stopped
    // in between hands its session to a cold start: bot-task/bot.ts).
    const scaleIn = new appscaling.StepScalingAction(this, 'ScaleIn', {
      scalingTarget: this.scalableTarget,
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      cooldown: poolScaleInCooldown,
      metricAggregationType: appscaling.MetricAggregationType.MINIMUM,
    });
    scaleIn.addAdjustment({ adjustment: -1, lowerBound: 0 });
    this.scaleInAlarm = new cloudwatch.Alarm(this, 'ScaleInAlarm', {
      alarmDescription: `Warm pool: more than ${size} idle bots for ${poolScaleInMinutes} minutes (scales in by one)`,
      metric: this.idleCount,
      threshold: size + 0.5,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: poolScaleInMinutes,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.scaleInAlarm.addAlarmAction(stepScalingAction(scaleIn));
  }

  /**
   * The join offers each session to the pool: its size (BOT_POOL_SIZE turns the offer on), a wake-up on the pool
   * queue, and the delayed cold-start fallback on the control queue (core/bots/start-bot.ts).
   */
  wireJoin(join: ServiceFunction, controlQueue: sqs.IQueue): void {
    join.function.addEnvironment('BOT_POOL_SIZE', String(this.settings.botPoolSize));
    join.function.addEnvironment('POOL_QUEUE_URL', this.queue.queueUrl);
    join.function.addEnvironment('CONTROL_QUEUE_URL', controlQueue.queueUrl);
    join.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    controlQueue.grantSendMessages(join.role);
  }

  /**
   * The control function grows the pool in a storm (core/bots/pool-growth.ts): it reads and raises this service's
   * desired count, up to the scaling's maximum, and may touch no other service. It offers scheduled sessions to the
   * pool at their moment, with a wake-up on the pool queue (core/bots/scheduled-joins.ts).
   */
  wireControl(control: ServiceFunction): void {
    control.function.addEnvironment('BOT_POOL_SERVICE', this.service.serviceName);
    control.function.addEnvironment('BOT_POOL_MAX', String(this.settings.botPoolMax));
    control.function.addEnvironment('POOL_QUEUE_URL', this.queue.queueUrl);
    control.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    control.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['ecs:DescribeServices', 'ecs:UpdateService'],
        resources: [this.service.serviceArn],
      }),
    );
  }

  /** ECS Container Insights' task counts of the pool's service (idle and busy bots together). */
  taskCount(name: 'DesiredTaskCount' | 'RunningTaskCount', label: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'ECS/ContainerInsights',
      metricName: name,
      dimensionsMap: {
        ClusterName: this.service.cluster.clusterName,
        ServiceName: this.service.serviceName,
      },
      statistic: 'Maximum',
      period: poolIdlePeriod,
      label,
    });
  }
}

/** An alarm action that runs a step scaling policy (CDK's own is internal to StepScalingPolicy). */
function stepScalingAction(action: appscaling.StepScalingAction): cloudwatch.IAlarmAction {
  return { bind: () => ({ alarmActionArn: action.scalingPolicyArn }) };
}
