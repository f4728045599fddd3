// Benchmark driver: `npm run bench [-- [--quick] name...]` runs the named benchmarks (all by default), prints a table
// and writes bench/results/<name>.json per benchmark plus bench/results/latest.json combining them. `--quick` runs
// each at a tiny size into bench/results/quick/ (gitignored) and fails only when a benchmark produces no figures.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { committedResult, compareFigures, comparisonTable, regressionRatio } from './baseline';
import type { BenchOptions } from './support';

/** Rows for the printed table; the first row is the header, and a one-cell row is printed as a note. */
export type Table = string[][];

/** What every benchmark module exports. */
export interface BenchmarkModule {
  run(options: BenchOptions): Promise<Record<string, unknown>>;
  /** Optional: the rows to print; without it the driver prints the result's top-level scalar fields. */
  table?(result: Record<string, unknown>, options: BenchOptions): Table;
}

/** The benchmarks, in the order `npm run bench` runs them; later issues add entries here. */
const benchmarks: Record<string, () => Promise<BenchmarkModule>> = {
  'api-latency': () => import('./api-latency'),
  'bot-runtime': () => import('./bot-runtime'),
  insights: () => import('./insights'),
  delivery: () => import('./delivery'),
  conversation: () => import('./conversation'),
  voice: () => import('./voice'),
  'turn-taking': () => import('./turn-taking'),
  summaries: () => import('./summaries'),
  soak: () => import('./soak'),
  replacement: () => import('./replacement'),
  'live-transcript': () => import('./live-transcript'),
  'join-latency': () => import('./join-latency'),
  storage: () => import('./storage'),
  storm: () => import('./storm'),
  recording: () => import('./recording'),
  retention: () => import('./retention'),
};

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
/** BENCH_RESULTS_DIR: where `compare` has a run write, so it never overwrites the committed figures. */
const resultsRoot = process.env.BENCH_RESULTS_DIR ?? fileURLToPath(new URL('./results/', import.meta.url));
/** Quick runs never overwrite the committed full-size figures. */
const resultsDirFor = (options: BenchOptions) => (options.quick ? join(resultsRoot, 'quick') : resultsRoot);

export function machineInfo() {
  const cpuList = cpus();
  return {
    cpus: cpuList.length,
    cpu_model: cpuList[0]?.model ?? 'unknown',
    total_mem_bytes: totalmem(),
    total_mem_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: platform(),
    release: release(),
    arch: arch(),
    /** 1-minute load average when the run started: above a few tenths per core, other work skews the figures. */
    loadavg_1m_at_start: load1m(),
  };
}

function load1m(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

interface Outcome {
  benchmark: string;
  timestamp: string;
  duration_s: number;
  machine: ReturnType<typeof machineInfo>;
  /** When this benchmark started and ended: other work on the machine meanwhile skews its figures. */
  loadavg_1m: { start: number; end: number };
  quick: boolean;
  ok: boolean;
  error?: string;
  result?: Record<string, unknown>;
}

async function main(): Promise<number> {
  const runStarted = Date.now();
  const args = process.argv.slice(2).filter((a) => a !== '--');
  const flags = args.filter((a) => a.startsWith('-'));
  const requested = args.filter((a) => !a.startsWith('-'));
  const unknownFlags = flags.filter(
    (f) => f !== '--quick' && !(f === '--paired' && requested[0] === 'compare'),
  );
  if (unknownFlags.length) {
    console.error(
      `unknown option(s): ${unknownFlags.join(', ')}; available: --quick (and --paired with compare)`,
    );
    return 2;
  }
  const options: BenchOptions = { quick: flags.includes('--quick') };
  if (requested[0] === 'compare') {
    const [, ref, ...names] = requested;
    if (!ref) {
      console.error(
        'usage: npm run bench -- compare <git-ref> [--quick] [--paired | benchmark...] (default: api-latency)',
      );
      return 2;
    }
    if (flags.includes('--paired')) {
      const { comparePaired } = await import('./compare');
      console.log(`\n${formatTable(await comparePaired(ref, options.quick))}`);
      return 0;
    }
    const { compare } = await import('./compare');
    const { table, regressed } = await compare(ref, names.length ? names : ['api-latency'], options.quick);
    console.log(`\n${formatTable(table)}`);
    return regressed ? 1 : 0;
  }
  const unknown = requested.filter((name) => !(name in benchmarks));
  if (unknown.length) {
    console.error(
      `unknown benchmark(s): ${unknown.join(', ')}; available: ${Object.keys(benchmarks).join(', ')}`,
    );
    return 2;
  }
  const names = requested.length ? [...new Set(requested)] : Object.keys(benchmarks);
  const resultsDir = resultsDirFor(options);
  const shownDir = options.quick ? 'bench/results/quick' : 'bench/results';
  mkdirSync(resultsDir, { recursive: true });
  const machine = machineInfo();
  console.log(
    `machine: ${machine.cpus} x ${machine.cpu_model}, ${machine.total_mem_gib} GiB, node ${machine.node}, ${machine.platform} ${machine.arch}, load ${machine.loadavg_1m_at_start}`,
  );
  if (options.quick) {
    console.log(
      `quick mode: tiny sizes, only to show every benchmark still produces its figures; targets are not judged; results in ${shownDir}/`,
    );
  }
  if (machine.loadavg_1m_at_start > machine.cpus * 0.5) {
    console.log(
      `!!! the machine is busy (1-minute load ${machine.loadavg_1m_at_start}); figures will be noisy`,
    );
  }

  let exitCode = 0;
  for (const name of names) {
    console.log(`\n== ${name}`);
    const started = Date.now();
    const timestamp = new Date(started).toISOString();
    const loadAtStart = load1m();
    let mod: BenchmarkModule | undefined;
    let result: Record<string, unknown> | undefined;
    let error: string | undefined;
    try {
      mod = await benchmarks[name]!();
      result = await mod.run(options);
    } catch (err) {
      error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    }
    const outcome: Outcome = {
      benchmark: name,
      timestamp,
      duration_s: seconds(started),
      machine,
      loadavg_1m: { start: loadAtStart, end: load1m() },
      ...options,
      ok: error === undefined,
      ...(error === undefined ? { result } : { error }),
    };
    writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify(outcome, null, 2)}\n`);

    if (!outcome.ok || !outcome.result) {
      console.log(`!!! ${name} FAILED: ${outcome.error}`);
      exitCode = 1;
      continue;
    }
    console.log(formatTable(mod?.table ? mod.table(outcome.result, options) : scalarTable(outcome.result)));
    const compared = compareFigures(committedResult(name, repoRoot), outcome.result);
    if (compared.length) console.log(`\n${formatTable(comparisonTable(compared, options.quick))}`);
    if (!options.quick)
      for (const r of compared.filter((c) => c.regressed))
        console.log(
          `!!! ${name}: ${r.path} is ${r.ratio.toFixed(2)}× its committed value (above ${regressionRatio}×): confirm side by side with \`npm run bench -- compare <ref>\``,
        );
    const warnings = Array.isArray(outcome.result.warnings) ? (outcome.result.warnings as unknown[]) : [];
    for (const w of warnings) console.log(`!!! ${String(w)}`);
    // Invalid: requests were refused or failed, so there are no figures for what the benchmark measures (the same
    // in a quick run: that is how a benchmark rots, e.g. its joins starting to hit a limit).
    if (outcome.result.valid === false) {
      console.log(`!!! ${name}: INVALID RUN - the figures above are not trustworthy`);
      exitCode = 1;
    }
    console.log(
      `(${outcome.duration_s} s, load ${outcome.loadavg_1m.start} → ${outcome.loadavg_1m.end}; ${shownDir}/${name}.json)`,
    );
  }

  writeLatest(resultsDir, machine);
  console.log(`\nwrote ${shownDir}/latest.json (${seconds(runStarted)} s in all)`);
  return exitCode;
}

/** latest.json: the newest result of every known benchmark (this run's, or an earlier run's file). */
function writeLatest(resultsDir: string, machine: ReturnType<typeof machineInfo>) {
  const combined: Record<string, unknown> = {};
  for (const name of Object.keys(benchmarks)) {
    const file = join(resultsDir, `${name}.json`);
    if (existsSync(file)) combined[name] = JSON.parse(readFileSync(file, 'utf8'));
  }
  const latest = { timestamp: new Date().toISOString(), machine, benchmarks: combined };
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(latest, null, 2)}\n`);
}

function scalarTable(result: Record<string, unknown>): Table {
  const rows: Table = [['field', 'value']];
  for (const [k, v] of Object.entries(result)) {
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) rows.push([k, String(v)]);
  }
  return rows;
}

export function formatTable(rows: Table): string {
  const widths: number[] = [];
  for (const row of rows) {
    if (row.length === 1) continue;
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (row: string[]) =>
    row.length === 1
      ? row[0]!
      : row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const [header, ...body] = rows;
  if (!header) return '';
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function seconds(since: number): number {
  return Math.round((Date.now() - since) / 100) / 10;
}

process.exitCode = await main();
