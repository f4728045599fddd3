// Each new benchmark figure beside the last committed full run's: the ratio, and a flag on CPU-per-request figures that
// grew past REGRESSION_RATIO, so a slower hot path is visible in every run instead of only in a side-by-side compare.
import { execFileSync } from 'node:child_process';
import type { Table } from './run';

/** A CPU-per-request figure above this many times its committed value is flagged. */
export const regressionRatio = 1.3;

export type FigureKind = 'cpu' | 'latency' | 'throughput';

export interface Figure {
  /** Where the figure is in the result, e.g. `join_open_loop.cpu_ms_per_request.total`. */
  path: string;
  value: number;
  kind: FigureKind;
}

/**
 * The figures worth comparing, found by name anywhere in a benchmark's result, so every benchmark takes part without
 * code of its own: CPU per request (its total), latency percentiles (p50, p95, p99) and throughput.
 */
export function figuresOf(result: unknown, prefix = ''): Figure[] {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return [];
  const found: Figure[] = [];
  for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    // Targets are settings, not measurements.
    if (key.includes('target')) continue;
    if (key === 'cpu_ms_per_request' && value && typeof value === 'object') {
      const total = (value as Record<string, unknown>).total;
      if (typeof total === 'number') found.push({ path: `${path}.total`, value: total, kind: 'cpu' });
      continue;
    }
    if (typeof value === 'number' && Number.isFinite(value)) {
      if (/(^|_)p(50|95|99)(_ms)?$/.test(key) && /latency|_ms/.test(path))
        found.push({ path, value, kind: 'latency' });
      else if (key === 'requests_per_s' || key.endsWith('_per_s_measured'))
        found.push({ path, value, kind: 'throughput' });
      continue;
    }
    found.push(...figuresOf(value, path));
  }
  return found;
}

export interface Comparison extends Figure {
  baseline: number;
  /** current / baseline. */
  ratio: number;
  /** A CPU-per-request figure above regressionRatio × its baseline. */
  regressed: boolean;
}

export function compareFigures(baseline: unknown, current: unknown): Comparison[] {
  const before = new Map(figuresOf(baseline).map((f) => [f.path, f.value]));
  const rows: Comparison[] = [];
  for (const f of figuresOf(current)) {
    const base = before.get(f.path);
    if (base === undefined || base <= 0) continue;
    const ratio = f.value / base;
    rows.push({ ...f, baseline: base, ratio, regressed: f.kind === 'cpu' && ratio > regressionRatio });
  }
  return rows;
}

/**
 * The committed full run of a benchmark (`bench/results/<name>.json` at HEAD), or undefined where there is none or
 * git cannot tell (a copy without history): the working tree's file may already be this run's.
 */
export function committedResult(name: string, cwd: string): unknown {
  try {
    const text = execFileSync('git', ['show', `HEAD:bench/results/${name}.json`], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const outcome = JSON.parse(text) as { ok?: boolean; quick?: boolean; result?: unknown };
    return outcome.ok && !outcome.quick ? outcome.result : undefined;
  } catch {
    return undefined;
  }
}

/** The rows printed under a benchmark's own table; a quick run is compared too, but its ratios mean little. */
export function comparisonTable(rows: Comparison[], quick: boolean): Table {
  if (!rows.length) return [];
  const table: Table = [['figure', 'committed', 'now', 'ratio', '']];
  for (const r of rows) {
    table.push([
      r.path,
      round(r.baseline),
      round(r.value),
      `${r.ratio.toFixed(2)}×`,
      r.regressed && !quick ? 'REGRESSION' : '',
    ]);
  }
  table.push([
    quick
      ? '(beside the committed full run; quick sizes make the ratios only indicative, so nothing is flagged)'
      : `(beside the committed full run; CPU per request above ${regressionRatio}× its committed value is flagged)`,
  ]);
  return table;
}

function round(n: number): string {
  return String(Math.round(n * 1000) / 1000);
}
