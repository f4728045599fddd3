// Operations: noticing dead bots (ECS task-state events, a heartbeat sweep) and telling people when something is
// wrong (alarms on DLQ depth, function errors, bot task failures, bot launches given up and API 5xx, to an encrypted
// SNS topic).
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { functionLimits } from '../limits';
import type { MeetingBotSettings } from '../settings';
import type { Api } from './api';
import type { BotPool } from './bot-pool';
import { type BotRuntime, botContainerName } from './bot-runtime';
import type { ControlPlane } from './control-plane';
import type { BotData } from './data';
import { type Delivery, queue } from './delivery';
import { ServiceFunction, type ServiceFunctionProps } from './service-function';
import { serviceMetric } from './service-metrics';

/** How often stale heartbeats are swept (core HEARTBEAT_STALE_MS defaults to 60 s). */
export const sweepInterval = Duration.minutes(1);

/** An alarm's name: the stage's prefix and the id its runbook section names (docs/operations.md). */
export const alarmName = (stage: string, id: string) => `MeetingBot-${stage}-${id}`;

export interface OperationsProps {
  settings: MeetingBotSettings;
  data: BotData;
  runtime: BotRuntime;
  delivery: Delivery;
  controlPlane: ControlPlane;
  api: Api;
  pool?: BotPool;
}

export class Operations extends Construct {
  readonly taskStopped: ServiceFunction;
  readonly sweeper: ServiceFunction;
  /** Scheduled joins: queues the starts due soon and raises the warm pool for them (docs/scheduled-joins.md). */
  readonly scheduler: ServiceFunction;
  readonly scheduleRule: events.Rule;
  readonly taskStateRule: events.Rule;
  readonly sweepRule: events.Rule;
  /** Events and async invocations that could not be handled. */
  readonly eventsDlq: sqs.Queue;
  readonly alarmTopic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  /** Every function of the stack with its alarm's name stem (the dashboard graphs them all). */
  readonly functions: [string, ServiceFunction][];
  private readonly settings: MeetingBotSettings;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const { settings, data, runtime, delivery, controlPlane, api, pool } = props;
    this.settings = settings;
    // A stopped task leads to a replacement or cold start (control), a failure (bot events) or a hand-over (results).
    const opsEnv = {
      TABLE_NAME: data.table.tableName,
      RESULTS_QUEUE_URL: delivery.resultsQueue.queueUrl,
      ...controlPlane.environment(['control', 'botEvents']),
    };

    this.eventsDlq = queue(this, 'EventsDlq');
    [this.taskStopped, this.taskStateRule] = this.ruledFunction(
      'TaskStopped',
      {
        entry: 'functions/ops/task-stopped.ts',
        description: 'ECS task stopped: fails the session of a bot that died before finishing',
        limits: functionLimits.taskStopped,
        environment: { ...opsEnv, BOT_CONTAINER_NAME: botContainerName },
      },
      {
        id: 'TaskStoppedRule',
        description: 'Bot tasks of this cluster that stopped',
        eventPattern: {
          source: ['aws.ecs'],
          detailType: ['ECS Task State Change'],
          detail: { clusterArn: [runtime.cluster.clusterArn], lastStatus: ['STOPPED'] },
        },
      },
      { retryAttempts: 8, maxEventAge: Duration.hours(2) },
    );
    [this.sweeper, this.sweepRule] = this.ruledFunction(
      'Sweeper',
      {
        entry: 'functions/ops/sweep-heartbeats.ts',
        description: 'Heartbeat sweeper: fails running sessions whose bot stopped beating',
        limits: functionLimits.sweeper,
        environment: opsEnv,
      },
      {
        id: 'SweepSchedule',
        description: 'Sweeps stale bot heartbeats',
        schedule: events.Schedule.rate(sweepInterval),
      },
    );
    // Every minute, as the sweep: a minute's query plus delayed queue messages (docs/scheduled-joins.md for why).
    [this.scheduler, this.scheduleRule] = this.ruledFunction(
      'Scheduler',
      {
        entry: 'functions/ops/run-scheduler.ts',
        description: 'Scheduled joins: queues the starts due soon, raises the warm pool for them',
        limits: functionLimits.scheduler,
        environment: {
          TABLE_NAME: data.table.tableName,
          ...controlPlane.environment(['control']),
          BOT_POOL_SIZE: String(pool ? settings.botPoolSize : 0),
          ...(pool && {
            BOT_CLUSTER_ARN: runtime.cluster.clusterArn,
            BOT_POOL_SERVICE: pool.service.serviceArn,
            BOT_POOL_MAX: String(settings.botPoolMax),
          }),
        },
      },
      {
        id: 'SchedulerSchedule',
        description: 'Queues the starts of scheduled joins due soon',
        schedule: events.Schedule.rate(Duration.minutes(1)),
      },
    );
    this.wireScheduledJoins(props);

    // Alarm notifications are encrypted at rest; CloudWatch needs the key to publish.
    const topicKey = new kms.Key(this, 'AlarmTopicKey', {
      description: `meeting-bot ${settings.stage} alarm topic`,
      enableKeyRotation: true,
    });
    topicKey.grant(
      new iam.ServicePrincipal('cloudwatch.amazonaws.com'),
      'kms:Decrypt',
      'kms:GenerateDataKey',
    );
    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `meeting-bot ${settings.stage} alarms`,
      masterKey: topicKey,
      enforceSSL: true,
    });
    if (settings.alarmEmail) {
      this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));
    }

    const fiveMinutes = Duration.minutes(5);
    const queues: [string, sqs.IQueue][] = [
      ['ResultsDlq', delivery.resultsDlq],
      ['ControlDlq', controlPlane.controlDlq],
      ['BotEventsDlq', controlPlane.botEventsDlq],
      ['DeliveryDlq', delivery.deliveryDlq],
      ['EventsDlq', this.eventsDlq],
    ];
    for (const [name, queue] of queues) {
      this.alarm(`${name}Depth`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
        alarmDescription: `Messages are waiting in ${name}: inspect them, fix the cause, then redrive`,
      });
    }

    this.functions = [
      ...[...api.functions].map(([name, fn]) => [`${name}Function`, fn] as [string, ServiceFunction]),
      ['notFoundFunction', api.notFoundFunction],
      ['ResultsFunction', delivery.resultsFunction],
      ['ControlFunction', controlPlane.function],
      ['DeliveryFunction', delivery.deliveryFunction],
      ['TaskStoppedFunction', this.taskStopped],
      ['SweeperFunction', this.sweeper],
      ['SchedulerFunction', this.scheduler],
    ];
    for (const [name, fn] of this.functions) {
      this.alarm(`${name}Errors`, {
        metric: fn.function.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        alarmDescription: `${name} failed (an uncaught error or a timeout); see its log group`,
      });
    }

    // Bot task failures: the task-stopped handler and the sweeper count each bot they fail (core/bots/task-stopped.ts
    // records BotTaskFailures as EMF), so the alarm needs no filter on log text.
    this.alarm('BotTaskFailures', {
      metric: serviceMetric(settings.stage, 'botTaskFailures', { period: fiveMinutes }),
      alarmDescription: 'Bot tasks died before finishing (crash, OOM, Spot interruption, or no heartbeat)',
    });

    // Bot launches ECS would not make within RUN_TASK_RETRY_BUDGET_MS (throttling, a launch limit or quota, no
    // capacity): a join answered 503, or a pool fallback or replacement failed its session. The sum over the stages
    // (core/metrics.ts launchFailed), so the alarm reads one series.
    this.alarm('LaunchFailures', {
      metric: new cloudwatch.MathExpression({
        expression: 'FILL(joins, 0) + FILL(fallbacks, 0) + FILL(replacements, 0)',
        usingMetrics: Object.fromEntries(
          (
            [
              ['joins', 'join'],
              ['fallbacks', 'pool_fallback'],
              ['replacements', 'replacement'],
            ] as const
          ).map(([id, stage]) => [
            id,
            serviceMetric(settings.stage, 'launchFailures', { period: fiveMinutes, dimensions: { stage } }),
          ]),
        ),
        period: fiveMinutes,
        label: 'bot launches given up',
      }),
      alarmDescription:
        'ECS would not launch bots within the retry budget (throttled, at a Fargate quota, or no capacity): joins ' +
        'answered 503 capacity_unavailable or sessions failed',
    });

    // A bot that cannot get the room's transcription running leaves and fails its session. One is the
    // customer's token or room; many in a row are the service's: its Daily key, domain or account.
    this.alarm('TranscriptionUnavailable', {
      metric: serviceMetric(settings.stage, 'transcriptionUnavailable', { period: fiveMinutes }),
      threshold: 3,
      alarmDescription:
        'Bots left because the room transcription would not run (no transcription rights, account without transcription)',
    });

    // SES refused an e-mail for good (core/adapters/ses/ses-refusals.ts): our IAM policy, an unverified sender or
    // MAIL FROM domain, a suspended account, the sandbox. Recorded failed at once instead of retried for days, so
    // this alarm is what tells someone the results e-mails stopped.
    this.alarm('EmailRefused', {
      metric: serviceMetric(settings.stage, 'emailRefusals', {
        period: fiveMinutes,
        dimensions: { kind: 'permanent' },
      }),
      alarmDescription:
        'SES refused a results e-mail for good (access denied, identity not verified, sandbox, sending paused): recorded failed, not retried',
    });

    if (pool) {
      // Joins fall back to cold starts (30–90 s) while no pooled bot is idle. A burst empties the pool for the minutes
      // a scale-out takes (alarm, image pull, warm-up); five empty minutes in a row means it is not refilling.
      this.alarm('PoolEmpty', {
        metric: pool.idleCount,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 5,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
        alarmDescription:
          'No idle pooled bot for 5 minutes: joins wait for cold starts (30–90 s) instead of the warm pool',
      });
    }

    this.alarm('Api5xx', {
      metric: api.httpApi.metricServerError({ period: fiveMinutes, statistic: 'Sum' }),
      threshold: 5,
      alarmDescription: 'The API answered 5xx (server_error) five or more times in five minutes',
    });
  }

  /**
   * What scheduled joins add to the route and control functions' environment (their permissions: infra/grants.ts):
   * the join queues a start itself (the control queue) and sends bot.scheduled (bot events); a leave before join_at
   * ends the session (the results queue); the control function hands it out.
   */
  private wireScheduledJoins(props: OperationsProps): void {
    const { settings, controlPlane, delivery, api, pool } = props;
    api.functions.get('join')?.addEnvironment(controlPlane.environment(['control', 'botEvents']));
    api.functions.get('leave')?.addEnvironment({ RESULTS_QUEUE_URL: delivery.resultsQueue.queueUrl });
    controlPlane.function.addEnvironment({ BOT_POOL_SIZE: String(pool ? settings.botPoolSize : 0) });
  }

  /**
   * An operations function and the EventBridge rule that invokes it; events the rule cannot deliver and async
   * invocations that fail (after 2 retries) go to the events DLQ.
   */
  private ruledFunction(
    id: string,
    fn: Omit<ServiceFunctionProps, 'settings'>,
    {
      id: ruleId,
      ...rule
    }: { id: string } & Pick<events.RuleProps, 'description' | 'eventPattern' | 'schedule'>,
    target: Omit<targets.LambdaFunctionProps, 'deadLetterQueue'> = { retryAttempts: 0 },
  ): [ServiceFunction, events.Rule] {
    const f = new ServiceFunction(this, id, { settings: this.settings, ...fn });
    f.function.configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(this.eventsDlq) });
    const invoke = new targets.LambdaFunction(f.function, { ...target, deadLetterQueue: this.eventsDlq });
    return [f, new events.Rule(this, ruleId, { ...rule, targets: [invoke] })];
  }

  /** An alarm to the topic; by default it fires on one period at or above 1, missing data is fine. */
  private alarm(
    id: string,
    props: { metric: cloudwatch.IMetric; alarmDescription: string } & Partial<
      Pick<
        cloudwatch.AlarmProps,
        'threshold' | 'comparisonOperator' | 'evaluationPeriods' | 'treatMissingData'
      >
    >,
  ) {
    const alarm = new cloudwatch.Alarm(this, id, {
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      ...props,
      // The name the notification carries is the runbook's section (docs/operations.md).
      alarmName: alarmName(this.settings.stage, id),
    });
    alarm.addAlarmAction(new actions.SnsAction(this.alarmTopic));
    this.alarms.push(alarm);
  }
}
