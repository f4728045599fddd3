// Operations: one CloudWatch dashboard answering, from CloudWatch alone, how many bots joined and failed (and why),
// how long joins take, how many bot-minutes ran, how sessions ended, which deliveries fail, and how the functions
// and the API behave. Its widgets are named in the runbook (docs/operations.md).
import { Duration, Tags } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { metricNames, metricsService } from '../../core/metrics';
import type { MeetingBotSettings } from '../settings';
import type { Api } from './api';
import type { BotPool } from './bot-pool';
import type { ControlPlane } from './control-plane';
import type { Delivery } from './delivery';
import type { Operations } from './operations';
import { metricsNamespace, type ServiceMetricName, serviceMetric } from './service-metrics';

export interface DashboardProps {
  settings: MeetingBotSettings;
  api: Api;
  delivery: Delivery;
  controlPlane: ControlPlane;
  operations: Operations;
  pool?: BotPool;
}

/** Widget titles, as the runbook names them. */
export const dashboardWidgets = {
  joins: 'Joins by outcome',
  joinFailures: 'Join failures by error_type',
  joinLatency: 'Join latency (request to bot in the room)',
  runningBots: 'Running bots',
  botMinutes: 'Bot minutes',
  exitReasons: 'Sessions by exit_reason',
  botTaskFailures: 'Bot task failures and replacements',
  launches: 'Bot launches: RunTask refusals and launch failures',
  webhookSuccess: 'Webhook success rate',
  webhookAge: 'Webhook delivery age at success',
  emails: 'E-mails and DLQ parks',
  dlqDepths: 'DLQ depths',
  insights: 'Insights engine',
  degraded: 'Degraded sessions: warnings, model and voice failures',
  lambdaErrors: 'Lambda errors',
  lambdaDurations: 'Lambda duration p95',
  api: 'API 4xx and 5xx',
  pool: 'Warm pool: idle bots and tasks',
} as const;

const period = Duration.minutes(5);

export class Dashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const { settings, api, delivery, controlPlane, operations, pool } = props;
    const stage = settings.stage;
    const metric = (name: ServiceMetricName, options: Parameters<typeof serviceMetric>[2] = {}) =>
      serviceMetric(stage, name, { period, ...options });
    /** Every series of a metric split by a dimension whose values are open-ended (error types, exit reasons). */
    const byDimension = (name: ServiceMetricName, dimension: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{${metricsNamespace(stage)},service,${dimension}} service="${metricsService}" MetricName="${metricNames[name]}"', 'Sum', ${period.toSeconds()})`,
        usingMetrics: {},
        label: '',
        period,
      });
    /** A metric's statistics, each its own series labelled by it (Maximum as max). */
    const stats = (name: ServiceMetricName, statistics: string[], prefix = '') =>
      statistics.map((statistic) =>
        metric(name, { statistic, label: `${prefix}${statistic === 'Maximum' ? 'max' : statistic}` }),
      );
    const graph = (
      title: string,
      left: cloudwatch.IMetric[],
      extra: Partial<cloudwatch.GraphWidgetProps> = {},
    ) => new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, ...extra });

    const outcomes = [
      'started',
      'payment_required',
      'rate_limited',
      'rejected',
      'capacity_unavailable',
      'dependency_unavailable',
    ] as const;
    const attempts = (outcome: string) => metric('webhookAttempts', { dimensions: { outcome } });
    const functions = operations.functions;

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `MeetingBot-${stage}`,
      defaultInterval: Duration.hours(3),
    });
    // CloudFormation's AWS::CloudWatch::Dashboard has no Tags (cfn-lint E3002): the stack's tags stop here.
    for (const key of ['service', 'stage']) Tags.of(this.dashboard).remove(key);
    this.dashboard.addWidgets(
      graph(
        dashboardWidgets.joins,
        outcomes.map((outcome) => metric('joins', { dimensions: { outcome }, label: outcome })),
        { stacked: true },
      ),
      graph(dashboardWidgets.joinFailures, [byDimension('joinFailures', 'error_type')], { stacked: true }),
      graph(dashboardWidgets.joinLatency, stats('joinLatency', ['p50', 'p95'])),
    );
    this.dashboard.addWidgets(
      graph(dashboardWidgets.runningBots, [
        metric('runningBots', { statistic: 'Maximum', period: Duration.minutes(1), label: 'running' }),
      ]),
      graph(dashboardWidgets.botMinutes, [
        metric('botMinutes', { period: Duration.hours(1), label: 'minutes' }),
      ]),
      graph(dashboardWidgets.exitReasons, [byDimension('sessionsEnded', 'exit_reason')], { stacked: true }),
    );
    this.dashboard.addWidgets(
      graph(dashboardWidgets.botTaskFailures, [
        metric('botTaskFailures', { label: 'failed' }),
        metric('replacements', { label: 'replaced' }),
        metric('transcriptionUnavailable', { label: 'left: transcription unavailable' }),
      ]),
      graph(dashboardWidgets.launches, [
        byDimension('runTaskRefusals', 'refusal'),
        byDimension('launchFailures', 'stage'),
        metric('poolGrowth', { label: 'pool grown by (storm)' }),
        metric('poolGrowthFailures', { label: 'pool growth failed' }),
      ]),
      graph(
        dashboardWidgets.webhookSuccess,
        [
          new cloudwatch.MathExpression({
            expression: '100 * delivered / (delivered + retry + failed)',
            usingMetrics: {
              delivered: attempts('delivered'),
              retry: attempts('retry'),
              failed: attempts('failed'),
            },
            label: 'delivered %',
            period,
          }),
        ],
        { leftYAxis: { min: 0, max: 100 } },
      ),
      graph(dashboardWidgets.webhookAge, stats('webhookDeliveryAge', ['p50', 'p95', 'Maximum'])),
    );
    this.dashboard.addWidgets(
      graph(dashboardWidgets.emails, [
        metric('emails', { dimensions: { outcome: 'sent' }, label: 'sent' }),
        metric('emails', { dimensions: { outcome: 'failed' }, label: 'failed' }),
        metric('dlqParks', { dimensions: { channel: 'webhook' }, label: 'webhook parked' }),
        metric('dlqParks', { dimensions: { channel: 'email' }, label: 'e-mail parked' }),
        metric('emailRefusals', { dimensions: { kind: 'permanent' }, label: 'refused by SES (permanent)' }),
        metric('emailRefusals', { dimensions: { kind: 'transient' }, label: 'refused by SES (transient)' }),
      ]),
      graph(
        dashboardWidgets.dlqDepths,
        [
          ['results DLQ', delivery.resultsDlq],
          ['control DLQ', controlPlane.controlDlq],
          ['bot events DLQ', controlPlane.botEventsDlq],
          ['delivery DLQ', delivery.deliveryDlq],
          ['events DLQ', operations.eventsDlq],
        ].map(([label, queue]) =>
          (queue as typeof delivery.resultsDlq).metricApproximateNumberOfMessagesVisible({
            period,
            statistic: 'Maximum',
            label: label as string,
          }),
        ),
      ),
      graph(dashboardWidgets.insights, stats('insightsLatency', ['p50', 'p95'], 'latency '), {
        right: [metric('insightsFailures', { label: 'failures' })],
      }),
      // A bot that carried on without its model or its voice: the customer got a warning.
      graph(dashboardWidgets.degraded, [
        byDimension('sessionWarnings', 'code'),
        byDimension('conversationModelFailures', 'error'),
        byDimension('speechFailures', 'outcome'),
      ]),
    );
    this.dashboard.addWidgets(
      graph(
        dashboardWidgets.lambdaErrors,
        functions.map(([name, fn]) => fn.function.metricErrors({ period, statistic: 'Sum', label: name })),
      ),
      graph(
        dashboardWidgets.lambdaDurations,
        functions.map(([name, fn]) => fn.function.metricDuration({ period, statistic: 'p95', label: name })),
      ),
      graph(dashboardWidgets.api, [
        api.httpApi.metricClientError({ period, statistic: 'Sum', label: '4xx' }),
        api.httpApi.metricServerError({ period, statistic: 'Sum', label: '5xx' }),
        // Of the 5xx, the 503s of an overloaded dependency, by kind (throttled, timeout, unavailable).
        byDimension('dependencyUnavailable', 'kind'),
      ]),
    );
    if (pool) {
      // Idle pooled bots (each writes 1 a minute while it waits) against the service's tasks, idle and busy.
      this.dashboard.addWidgets(
        graph(dashboardWidgets.pool, [
          pool.idleCount,
          pool.taskCount('DesiredTaskCount', 'desired tasks'),
          pool.taskCount('RunningTaskCount', 'running tasks'),
        ]),
      );
    }
  }
}
