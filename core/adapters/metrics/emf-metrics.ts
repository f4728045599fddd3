// Metrics adapter: CloudWatch embedded metric format (EMF) through Powertools, one JSON document per line on stdout.
// Lambda sends stdout to its log group; the bot task's awslogs driver does the same, so both reach CloudWatch with no
// PutMetricData call, no extra IAM, and no metric lost when a task dies (each point is a line already written).
import { Metrics, MetricUnit as PowertoolsUnit } from '@aws-lambda-powertools/metrics';
import type { Config } from '../../config';
import { metricsService, useMetricsSink } from '../../metrics';
import type { MetricsSink, MetricUnit } from '../../ports/metrics';

export interface EmfOptions {
  namespace: string;
  /**
   * Buffer dimension-less points until flush() (a Lambda invocation); otherwise every point is written at once
   * (the long-running bot task, which has no invocation to end).
   */
  buffered: boolean;
}

export class EmfMetrics implements MetricsSink {
  private readonly metrics: Metrics;

  constructor(private readonly options: EmfOptions) {
    this.metrics = new Metrics({ namespace: options.namespace, serviceName: metricsService });
  }

  record(name: string, unit: MetricUnit, value: number, dimensions?: Record<string, string>): void {
    // Powertools' dimensions belong to a whole document: a point with its own dimensions is a document of its own.
    if (dimensions || !this.options.buffered) {
      const single = this.metrics.singleMetric();
      if (dimensions) single.addDimensions(dimensions);
      single.addMetric(name, PowertoolsUnit[unit], value);
      return;
    }
    this.metrics.addMetric(name, PowertoolsUnit[unit], value);
  }

  flush(): void {
    if (this.metrics.hasStoredMetrics()) this.metrics.publishStoredMetrics();
  }
}

/** Sends this process's metrics to EMF under METRICS_NAMESPACE when it is set, else nowhere. */
export function useEmfMetrics(config: Pick<Config, 'METRICS_NAMESPACE'>, buffered: boolean): void {
  useMetricsSink(
    config.METRICS_NAMESPACE ? new EmfMetrics({ namespace: config.METRICS_NAMESPACE, buffered }) : undefined,
  );
}
