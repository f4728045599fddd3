// The service's own metrics (core/metrics.ts, written as EMF) as CloudWatch metrics for alarms and the dashboard:
// one namespace per stage, and the `service` dimension Powertools adds to every point.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { metricNames, metricsService } from '../../core/metrics';
import type { MeetingBotSettings } from '../settings';

export const metricsNamespace = (stage: string) => `MeetingBot/${stage}`;

/** What the Lambdas and the bot task read (core/config.ts) to write their metrics as EMF to their log groups. */
export const metricsEnvironment = (settings: Pick<MeetingBotSettings, 'stage'>) => ({
  METRICS_NAMESPACE: metricsNamespace(settings.stage),
});

export type ServiceMetricName = keyof typeof metricNames;

/** One metric of the catalogue; `dimensions` beyond `service` select one series (e.g. { outcome: 'started' }). */
export function serviceMetric(
  stage: string,
  name: ServiceMetricName,
  options: {
    dimensions?: Record<string, string>;
    statistic?: string;
    period?: Duration;
    label?: string;
  } = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: metricsNamespace(stage),
    metricName: metricNames[name],
    dimensionsMap: { service: metricsService, ...options.dimensions },
    statistic: options.statistic ?? 'Sum',
    period: options.period ?? Duration.minutes(5),
    label: options.label,
  });
}
