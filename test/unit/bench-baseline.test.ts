// The benchmark driver's regression check: which figures it compares, and when a CPU-per-request figure is flagged.
import { describe, expect, it } from 'vitest';
import { compareFigures, figuresOf, regressionRatio } from '../../bench/baseline';

const result = (joinCpu: number, statusCpu: number) => ({
  valid: true,
  join_open_loop: {
    latency_ms: { p50: 6.3, p90: 14, p95: 18.8, p99: 34.8, max: 80.9 },
    requests_per_s: 200,
    cpu_ms_per_request: { api_thread: 2.6, dynalite_thread: 2.1, other_threads: 1, total: joinCpu },
  },
  status_defaults: {
    latency_ms: { p50: 2, p99: 9 },
    requests_per_s: 9629,
    cpu_ms_per_request: { api_thread: 0.1, dynalite_thread: 0, other_threads: 0.06, total: statusCpu },
  },
  notes: ['p99 target 40'],
});

describe('benchmark figures beside the committed run', () => {
  it('finds CPU per request (total only), latency percentiles and throughput anywhere in a result', () => {
    const paths = figuresOf(result(5.7, 0.16)).map((f) => `${f.kind} ${f.path}`);
    expect(paths).toEqual([
      'latency join_open_loop.latency_ms.p50',
      'latency join_open_loop.latency_ms.p95',
      'latency join_open_loop.latency_ms.p99',
      'throughput join_open_loop.requests_per_s',
      'cpu join_open_loop.cpu_ms_per_request.total',
      'latency status_defaults.latency_ms.p50',
      'latency status_defaults.latency_ms.p99',
      'throughput status_defaults.requests_per_s',
      'cpu status_defaults.cpu_ms_per_request.total',
    ]);
  });

  it(`flags a CPU-per-request figure above ${regressionRatio}× its committed value, and only that`, () => {
    const rows = compareFigures(result(5.7, 0.16), result(5.7 * 1.31, 0.16 * 1.29));
    const flagged = rows.filter((r) => r.regressed).map((r) => r.path);
    expect(flagged).toEqual(['join_open_loop.cpu_ms_per_request.total']);
    const status = rows.find((r) => r.path === 'status_defaults.cpu_ms_per_request.total')!;
    expect(status.ratio).toBeCloseTo(1.29, 5);
    // A slower latency is shown with its ratio but never flagged: latency is noise-prone, CPU per request is the budget.
    const slower = compareFigures(result(5.7, 0.16), {
      ...result(5.7, 0.16),
      status_defaults: { latency_ms: { p99: 90 } },
    });
    expect(slower.find((r) => r.path === 'status_defaults.latency_ms.p99')).toMatchObject({
      ratio: 10,
      regressed: false,
    });
  });

  it('compares nothing where there is no committed run', () => {
    expect(compareFigures(undefined, result(1, 1))).toEqual([]);
  });
});
