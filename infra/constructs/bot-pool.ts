// The warm pool: an ECS service of bot tasks started without a BOT_ID, which warm up, wait for a session
// offered by the join, claim it (bot-task/pool.ts) and serve it; its size follows the pool's idle count.
import { Duration, Stack, Tags, Validations } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { queueLimits } from '../limits';
import type { MeetingBotSettings } from '../settings';
import type { BotRuntime } from './bot-runtime';
import { queue } from './delivery';
import { addEnvironment } from './environment';
import { logGroup, type ServiceFunction } from './service-function';
import { serviceMetric } from './service-metrics';
import { allow, grantWithWildcard } from './wildcard-grant';

/** How the pool's idle count is read: each idle pooled bot records 1 per minute (core/metrics.ts poolIdleBots). */
export const poolIdlePeriod = Duration.minutes(1);

/** Scale-out waits this long before adding more: about the time a new task needs to pull, start and warm up. */
export const poolScaleOutCooldown = Duration.minutes(3);
/**
 * Minutes in a row the pool must be over its size before scale-in removes idle tasks: more than a schedule keeps its
 * bots idle ahead of join_at, so they are never read as a surplus. The scheduler raises the pool at most
 * SCHEDULE_HORIZON_MS + SCHEDULE_POOL_LEAD_MS (250 s) before join_at and offers the sessions 10 s before it; a new task
 * needs at least 30 s to be an idle bot (image pull, start): at most 220 s of pre-warmed idle bots, which touch at
 * most 5 one-minute datapoints. Six breaching datapoints always include one before the raise or one after the claims.
 */
export const poolScaleInMinutes = 6;
/**
 * Scale-in acts at most this often: the next action reads a whole minute after the tasks the last one stopped (a bot
 * stopped early in a minute may still have counted itself idle in it), and MINIMUM over the alarm's window reads that
 * clean minute rather than the stale one. Assumes a minute's datapoint has arrived when the alarm next evaluates; one
 * a minute late would make the next action read the stale minute and may remove more idle bots than the surplus
 * (never below the scaling's minimum; the scale-out alarm adds them back). test/infra/pool-burst.test.ts models this
 * (`metricLagS`): with a minute's lag, 1,000 meetings ending together still leave the pool at its size in 659 s.
 */
export const poolScaleInCooldown = Duration.minutes(2);

/** Application Auto Scaling takes at most 20 step adjustments per step scaling policy (its "Quotas" page). */
export const maxStepAdjustments = 20;

/**
 * The gaps (idle bots short of, or over, the pool's size) at which a scaling step starts, each step moving the pool by
 * its own lower bound: the digits `d × bᵏ` (d = 1…b−1) of a base b with r digits. One action takes a gap's leading
 * digit off, so any gap up to `largest` closes in at most r actions and never overshoots. b and r are the fewest
 * actions within maxStepAdjustments steps: (b − 1) × r of them (largest 1,048: base 6, 4 actions; up to 20: one).
 */
export function gapSteps(largest: number): number[] {
  const top = Math.max(1, Math.floor(largest));
  for (let rounds = 1; ; rounds++) {
    let base = Math.max(2, Math.floor((top + 1) ** (1 / rounds)));
    while (base ** rounds <= top) base++;
    if ((base - 1) * rounds > maxStepAdjustments) continue;
    const steps: number[] = [];
    for (let k = 0, unit = 1; k < rounds; k++, unit *= base)
      for (let d = 1; d < base; d++) if (d * unit <= top) steps.push(d * unit);
    return steps;
  }
}

export class BotPool extends Construct {
  /** Wake-up calls: the join sends one `{"bot_id"}` per offered session; idle pooled bots long-poll it. */
  readonly queue: sqs.Queue;
  readonly service: ecs.FargateService;
  /** Moves the pool service to each new task definition revision, keeping its desired count. */
  readonly rollout: cr.AwsCustomResource;
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

  constructor(
    scope: Construct,
    id: string,
    { settings, runtime }: { settings: MeetingBotSettings; runtime: BotRuntime },
  ) {
    super(scope, id);
    this.settings = settings;
    const size = settings.botPoolSize;

    this.queue = queue(this, 'Queue', {
      // An offer is worth something for POOL_CLAIM_TIMEOUT_MS (2 s); after that the fallback has started a cold task.
      // Five minutes keeps the queue from holding stale wake-ups, which idle bots would only fail to claim.
      retentionPeriod: Duration.seconds(queueLimits.pool.retentionSeconds),
      maxMessageSizeBytes: queueLimits.pool.maxMessageBytes,
      // A bot that received a wake-up and died before deleting it: another idle bot gets it after 10 s.
      visibilityTimeout: Duration.seconds(queueLimits.pool.visibilityTimeoutSeconds),
    });
    Validations.of(this.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'A wake-up call for idle pooled bots, worthless after seconds: a message no bot could take has nothing to ' +
        'replay (the session fell back to a cold start through the control queue, which has its DLQ), so a DLQ ' +
        'would only collect noise. Pooled bots also scan the offers in the table as a backstop.',
    });

    addEnvironment(runtime.container, { POOL_QUEUE_URL: this.queue.queueUrl });
    this.service = new ecs.FargateService(this, 'Service', {
      cluster: runtime.cluster,
      taskDefinition: runtime.taskDefinition,
      // The service names the task definition's family, not a revision ("If a revision isn't specified, the latest
      // ACTIVE revision is used": AWS::ECS::Service TaskDefinition), so a deploy that registers a new revision (a new
      // image, a new environment) leaves this resource's template unchanged, and CloudFormation, which updates only
      // resources whose properties changed, never sends its DesiredCount again: the idle pool is not drained. The new
      // revision reaches the pool through `rollout` below, an UpdateService without a desired count.
      taskDefinitionRevision: ecs.TaskDefinitionRevision.LATEST,
      // Created empty, so CloudFormation never waits on a pool task: a first deploy whose tasks cannot start (the
      // Daily secret not yet filled, no ECS service-linked role) completes instead of rolling the whole stack back.
      // The scalable target's minimum and the scale-out alarm bring it to `size` minutes later, outside
      // CloudFormation; tasks that cannot start leave the pool at 0 and the PoolEmpty alarm says so
      // (docs/deploy.md "A first deploy that cannot roll back"). CloudFormation sends this 0 again only when the
      // service's own properties change (network, capacity, deployment settings), never for a new task revision.
      desiredCount: 0,
      // On-demand only: a pooled bot may wait idle for hours, which is when Spot reclaims capacity.
      capacityProviderStrategies: [{ capacityProvider: 'FARGATE', weight: 1 }],
      vpcSubnets: { subnets: runtime.subnets.subnets },
      securityGroups: [runtime.securityGroup],
      assignPublicIp: settings.botNetwork === 'public',
      // A rollout starts new idle bots before it stops old ones (ECS's own defaults, 100 % / 200 %): the idle pool
      // stays warm through a deploy; busy bots are protected from deployments and finish their sessions first. It
      // needs Fargate room for up to twice the pool's count while it runs (docs/warm-pool.md "Deploys").
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      // A rollout whose new tasks cannot start (a broken image) stops after a few failures and goes back to the last
      // revision that ran, whose idle bots were never stopped (the minimum above).
      circuitBreaker: { enable: true, rollback: true },
    });
    // A service with a capacity provider strategy fails to create before the cluster's capacity providers are
    // associated; depending on the cluster orders it after that association.
    this.service.node.addDependency(runtime.cluster);
    this.rollout = this.rolloutOnNewRevision(settings, runtime);

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

    // Fewer than `size` idle: add the shortfall (idle k → +size−k; past 20 steps, its leading digit per action:
    // gapSteps). Half-integer thresholds: the count is whole. The bounds are relative to the threshold (size − 0.5).
    // The largest shortfall first, as the metric's scale below the threshold reads.
    const outSteps = gapSteps(size);
    const outTiers = outSteps.map((gap, i) => ({
      adjustment: gap,
      ...(outSteps[i + 1] !== undefined && { lowerBound: 1 - outSteps[i + 1]! }),
      upperBound: 1 - gap,
    }));
    this.scaleOutAlarm = this.stepScaling('ScaleOut', poolScaleOutCooldown, 'MAXIMUM', outTiers.reverse(), {
      alarmDescription: `Warm pool: fewer than ${size} idle bots (scales out by the shortfall)`,
      threshold: size - 0.5,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
      // Two minutes, not one: the latest minute's points may still be arriving, and FILL would read a late minute as
      // an empty pool and add `size` bots that scale-in then removes one per 5 minutes.
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      // FILL already makes a silent minute 0; should the expression still return nothing, that is no idle bot too.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });

    // More than `size` idle (busy bots finished and the service replaced them, or a storm's or a schedule's growth is
    // over): remove the surplus, its leading digit per action (gapSteps: ≤ 4 actions for 1,048, one per cooldown), so
    // the pool is back at its size within 15 minutes of a burst's meetings ending, not one bot per 5 minutes. Each step removes
    // no more than the surplus the alarm read, and ECS stops only unprotected tasks: a bot protects its task right
    // after it claims a session (bot-task/ecs-task.ts; one stopped in between hands its session to a cold start:
    // bot-task/bot.ts). Test: test/infra/pool-burst.test.ts.
    const inSteps = gapSteps(settings.botPoolMax - size);
    const inTiers = inSteps.map((gap, i) => ({
      adjustment: -gap,
      lowerBound: gap - 1,
      ...(inSteps[i + 1] !== undefined && { upperBound: inSteps[i + 1]! - 1 }),
    }));
    this.scaleInAlarm = this.stepScaling('ScaleIn', poolScaleInCooldown, 'MINIMUM', inTiers, {
      alarmDescription: `Warm pool: more than ${size} idle bots for ${poolScaleInMinutes} minutes (scales in by the surplus)`,
      threshold: size + 0.5,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: poolScaleInMinutes,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** A step scaling action on the pool's desired count, and its alarm `<id>Alarm` on the idle count, which runs it. */
  private stepScaling(
    id: string,
    cooldown: Duration,
    aggregation: 'MAXIMUM' | 'MINIMUM',
    tiers: appscaling.AdjustmentTier[],
    alarm: Omit<cloudwatch.AlarmProps, 'metric'>,
  ): cloudwatch.Alarm {
    const action = new appscaling.StepScalingAction(this, id, {
      scalingTarget: this.scalableTarget,
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      cooldown,
      metricAggregationType: appscaling.MetricAggregationType[aggregation],
    });
    for (const tier of tiers) action.addAdjustment(tier);
    const result = new cloudwatch.Alarm(this, `${id}Alarm`, { metric: this.idleCount, ...alarm });
    // CDK's own alarm action for a step scaling policy is internal to StepScalingPolicy.
    result.addAlarmAction({ bind: () => ({ alarmActionArn: action.scalingPolicyArn }) });
    return result;
  }

  /**
   * On each new task definition revision (its ARN is a property, so CloudFormation updates this resource exactly then),
   * an UpdateService naming the revision and no desired count: ECS keeps the count scaling set and rolls the pool
   * over. A stack rollback updates it back to the previous revision. Its own role and log group, as our functions.
   */
  private rolloutOnNewRevision(settings: MeetingBotSettings, runtime: BotRuntime): cr.AwsCustomResource {
    const logs = logGroup(this, 'RolloutLogs', settings);
    const role = new iam.Role(this, 'RolloutRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Warm pool rollout to a new task definition revision (${settings.stage})`,
    });
    logs.grantWrite(role);
    allow(role, { actions: ['ecs:UpdateService'], resources: [this.service.serviceArn] });
    return new cr.AwsCustomResource(this, 'Rollout', {
      onUpdate: {
        service: 'ECS',
        action: 'UpdateService',
        parameters: {
          cluster: runtime.cluster.clusterName,
          service: this.service.serviceName,
          taskDefinition: runtime.taskDefinition.taskDefinitionArn,
        },
        physicalResourceId: cr.PhysicalResourceId.of(this.service.serviceArn),
        // A custom resource's response is at most 4 KB; the whole service description (events, deployments) is not.
        outputPaths: ['service.serviceName'],
      },
      role,
      logGroup: logs,
      // The runtime's own SDK: installing the latest at run time needs the network and minutes.
      installLatestAwsSdk: false,
    });
  }

  /**
   * The join offers each session to the pool: its size (BOT_POOL_SIZE turns the offer on), a wake-up on the pool
   * queue, and the delayed cold-start fallback on the control queue (core/bots/start-bot.ts). Its permissions for
   * them: infra/grants.ts.
   */
  wireJoin(join: ServiceFunction, controlQueue: sqs.IQueue): void {
    join.addEnvironment({
      BOT_POOL_SIZE: String(this.settings.botPoolSize),
      POOL_QUEUE_URL: this.queue.queueUrl,
      CONTROL_QUEUE_URL: controlQueue.queueUrl,
    });
  }

  /**
   * The control function grows the pool in a storm (core/bots/pool-growth.ts): it reads and raises this service's
   * desired count, up to the scaling's maximum. It offers scheduled sessions to the pool at their moment, with a
   * wake-up on the pool queue (core/bots/scheduled-joins.ts). Its permissions for them: infra/grants.ts.
   */
  wireControl(control: ServiceFunction): void {
    control.addEnvironment({
      BOT_POOL_SERVICE: this.service.serviceName,
      BOT_POOL_MAX: String(this.settings.botPoolMax),
      POOL_QUEUE_URL: this.queue.queueUrl,
    });
  }

  /**
   * A pooled bot takes its wake-ups from the pool queue and protects its own task from scale-in once it holds a
   * session (bot-task/ecs-task.ts).
   */
  grantTakeOffers(grantee: iam.IGrantable): void {
    allow(grantee, {
      actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],
      resources: [this.queue.queueArn],
    });
    grantWithWildcard(
      grantee,
      new iam.PolicyStatement({
        actions: ['ecs:UpdateTaskProtection'],
        resources: [
          Stack.of(this).formatArn({
            service: 'ecs',
            resource: 'task',
            resourceName: `${this.service.cluster.clusterName}/*`,
          }),
        ],
      }),
      'A pooled bot protects its own task from scale-in once it holds a session (bot-task/ecs-task.ts, through the ' +
        'ECS agent, which calls UpdateTaskProtection with the task role); its task id is known only at run time: ' +
        'tasks of this cluster only (`task/<cluster>/*`).',
    );
  }

  /** A wake-up on the pool queue for an offered session: SendMessage only. */
  grantOffer(grantee: iam.IGrantable): void {
    allow(grantee, { actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] });
  }

  /** Reads and raises this service's desired count (core/bots/pool-growth.ts), and may touch no other service. */
  grantResize(grantee: iam.IGrantable): void {
    allow(grantee, {
      actions: ['ecs:DescribeServices', 'ecs:UpdateService'],
      resources: [this.service.serviceArn],
    });
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
