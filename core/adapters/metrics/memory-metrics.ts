// Metrics adapter for tests: keeps every point in memory so a test can assert what a use case recorded.
import type { MetricsSink, MetricUnit } from '../../ports/metrics';

export interface RecordedPoint {
  name: string;
  unit: MetricUnit;
  value: number;
  dimensions: Record<string, string>;
}

export class MemoryMetrics implements MetricsSink {
  readonly points: RecordedPoint[] = [];

  record(name: string, unit: MetricUnit, value: number, dimensions: Record<string, string> = {}): void {
    this.points.push({ name, unit, value, dimensions });
  }

  flush(): void {}

  /** The points called `name` (and carrying `dimensions`, when given). */
  named(name: string, dimensions: Record<string, string> = {}): RecordedPoint[] {
    return this.points.filter(
      (p) => p.name === name && Object.entries(dimensions).every(([k, v]) => p.dimensions[k] === v),
    );
  }
}
