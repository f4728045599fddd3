// Port: where the service's metrics go (CloudWatch EMF in AWS, memory in tests, nowhere on the local stack).

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';

export interface MetricsSink {
  /** One data point; `dimensions` are the few low-cardinality ones of the catalogue (core/metrics.ts). */
  record(name: string, unit: MetricUnit, value: number, dimensions?: Record<string, string>): void;
  /** Writes what is buffered; the Lambda handlers call it once per invocation (functions/runtime.ts). */
  flush(): void;
}
