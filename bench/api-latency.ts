// API latency: p50/p99 and requests/s of status and join against the local stack at 32 connections,
// with the shipped defaults (5 s API-key cache, 1 s status cache for running bots) and with both caches off.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { TaskRunner } from '../core/ports/task-runner';
import { type LocalStack, startLocalStack } from '../local/stack';
import type { Table } from './run';
import { threadCpuMs } from './support';

const connections = 32;
const warmupSeconds = 2;
const durationSeconds = 10;
const seedBots = 100;
const targetsP99Ms = { status: 15, join: 40 };
const runnerNote = 'no-op (process spawn excluded)';
const keyCacheModes = [
  { label: 'defaults', ttlMs: '5000', statusTtlMs: '1000' },
  { label: 'uncached', ttlMs: '0', statusTtlMs: '0' },
] as const;

/** Stands in for LocalTaskRunner: a join would otherwise spawn a bot process (~1 s of CPU each). */
const noopRunner: TaskRunner = {
  start: async (botId) => ({ taskRef: `bench:${botId}` }),
  stop: async () => {},
};

export interface LoadFigures {
  endpoint: string;
  key_cache_ttl_ms: number;
  connections: number;
  warmup_s: number;
  duration_s: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number; mean: number };
  requests_per_s: number;
  total_requests: number;
  non_2xx: number;
  errors: number;
  timeouts: number;
  status_codes: Record<string, number>;
  /** Share of the whole machine's CPU during the recorded window: this process, and everything else. */
  cpu_pct: { this_process: number; other_processes: number };
  /**
   * CPU time per request by thread of this process (Linux only): the API server's thread, dynalite's worker
   * thread, and the rest (V8's GC helpers, libuv's pool doing LevelDB I/O, the load generator).
   */
  cpu_ms_per_request?: { api_thread: number; dynalite_thread: number; other_threads: number; total: number };
  target_p99_ms: number;
  pass: boolean;
  valid: boolean;
}

/** The dynalite worker's OS thread in the stack under test, for the per-thread CPU split. */
let dynamoThreadId: number | undefined;

/** Other processes using more than this share of the machine make the figures unreliable. */
const maxOtherCpuPct = 15;

export async function run(): Promise<Record<string, unknown>> {
  const figures: Record<string, LoadFigures> = {};
  for (const mode of keyCacheModes) {
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-api-latency-'));
    let stack: LocalStack | undefined;
    try {
      stack = await startLocalStack({
        port: 0,
        dataDir,
        env: {
          LOG_LEVEL: 'silent',
          RATE_LIMIT_PER_MINUTE: '100000000',
          KEY_CACHE_TTL_MS: mode.ttlMs,
          STATUS_CACHE_TTL_MS: mode.statusTtlMs,
        },
      });
      stack.deps.runner = noopRunner;
      dynamoThreadId = stack.dynamoThreadId;
      const { account, apiKey } = await stack.deps.accounts.create('bench');
      await stack.deps.ledger.grant(account.accountId, 1_000_000, 'bench');
      const authorization = `Bearer ${apiKey}`;
      const joinBody = JSON.stringify({ provider: 'local', room_url: `${stack.baseUrl}/rooms/bench` });

      progress(`[${mode.label}] seeding ${seedBots} bots`);
      const botIds = await seed(stack.baseUrl, authorization, joinBody);

      progress(`[${mode.label}] status: ${warmupSeconds} s warm-up + ${durationSeconds} s`);
      figures[`status_${mode.label}`] = await load('status', Number(mode.ttlMs), {
        url: stack.baseUrl,
        requests: botIds.map((id) => ({
          method: 'GET' as const,
          path: `/api/bot/${id}/status`,
          headers: { authorization },
        })),
      });

      progress(`[${mode.label}] join: ${warmupSeconds} s warm-up + ${durationSeconds} s`);
      // Joins come from many customers, as in production: an account may run MAX_RUNNING_BOTS_PER_ACCOUNT bots at
      // once, and these bots never end (no-op runner), so one account would hit that limit within a second.
      const joinRequests = await joinersRequests(stack, joinBody);
      figures[`join_${mode.label}`] = await load('join', Number(mode.ttlMs), {
        url: stack.baseUrl,
        requests: joinRequests,
      });
      if (mode.label === 'defaults') {
        // One connection: the latency of a single request without queueing behind 31 others (context only).
        progress(`[${mode.label}] status and join with 1 connection`);
        figures.status_defaults_1conn = await load(
          'status',
          Number(mode.ttlMs),
          {
            url: stack.baseUrl,
            requests: botIds.map((id) => ({
              method: 'GET' as const,
              path: `/api/bot/${id}/status`,
              headers: { authorization },
            })),
          },
          1,
        );
        figures.join_defaults_1conn = await load(
          'join',
          Number(mode.ttlMs),
          { url: stack.baseUrl, requests: joinRequests },
          1,
        );
      }
      if (stack.runner.running > 0) throw new Error(`${stack.runner.running} bot processes were spawned`);
    } finally {
      await stack?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  const all = Object.values(figures);
  const warnings: string[] = [];
  for (const [key, f] of Object.entries(figures)) {
    if (!f.valid) {
      warnings.push(
        `${key}: INVALID - ${f.non_2xx} non-2xx, ${f.errors} errors, ${f.timeouts} timeouts (status codes ${JSON.stringify(f.status_codes)})`,
      );
    }
    if (f.cpu_pct.other_processes > maxOtherCpuPct) {
      warnings.push(
        `${key}: other processes used ${f.cpu_pct.other_processes}% of the machine's CPU while it ran - figures are noisy, rerun on an idle machine`,
      );
    }
  }
  return {
    valid: all.every((f) => f.valid),
    machine_quiet: all.every((f) => f.cpu_pct.other_processes <= maxOtherCpuPct),
    targets_met_with_defaults: Object.entries(figures)
      .filter(([k]) => k.endsWith('_defaults'))
      .every(([, f]) => f.pass),
    warnings,
    runner: runnerNote,
    connections,
    warmup_s: warmupSeconds,
    duration_s: durationSeconds,
    status_seed_bots: seedBots,
    targets: { status_p99_ms: targetsP99Ms.status, join_p99_ms: targetsP99Ms.join },
    latency_resolution_ms: 1,
    max_other_cpu_pct: maxOtherCpuPct,
    notes: [
      'cpu_pct: share of the whole machine (all cores) during the recorded window; other_processes above max_other_cpu_pct means the machine was not quiet.',
      'Load generator: autocannon in a worker thread of the same process as the stack (API server on the main thread, dynalite in its own worker thread).',
      'Modes: defaults (KEY_CACHE_TTL_MS 5000, STATUS_CACHE_TTL_MS 1000) and uncached (both 0), each on a fresh stack and data directory; the targets apply to the defaults.',
      'Status cycles through the seeded bots; join has no Idempotency-Key, places a 1-credit hold per request, and cycles through 256 accounts (per-account running-bot limit).',
      'The per-key rate limit still runs on every request (limit set to 100000000/min so it never rejects).',
    ],
    ...figures,
  };
}

/** Creates the bots that the status benchmark reads (eight at a time). */
const joiningAccounts = 256;

/** One join request per account of `joiningAccounts` fresh accounts; autocannon cycles through them. */
async function joinersRequests(stack: LocalStack, body: string) {
  const requests = [];
  for (let i = 0; i < joiningAccounts; i++) {
    const { account, apiKey } = await stack.deps.accounts.create(`bench joiner ${i}`);
    await stack.deps.ledger.grant(account.accountId, 1_000_000, 'bench');
    requests.push({
      method: 'POST' as const,
      path: '/api/bot/join',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body,
    });
  }
  return requests;
}

async function seed(baseUrl: string, authorization: string, body: string): Promise<string[]> {
  const ids: string[] = [];
  const one = async () => {
    const res = await fetch(`${baseUrl}/api/bot/join`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body,
    });
    const json = (await res.json()) as { bot_id?: string };
    if (res.status !== 201 || !json.bot_id) {
      throw new Error(`seeding join failed: ${res.status} ${JSON.stringify(json)}`);
    }
    ids.push(json.bot_id);
  };
  for (let i = 0; i < seedBots; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, seedBots - i) }, one));
  }
  return ids;
}

async function load(
  endpoint: 'status' | 'join',
  keyCacheTtlMs: number,
  options: Partial<autocannon.Options> & { url: string },
  conns = connections,
): Promise<LoadFigures> {
  // Its own thread, so the load generator does not share the API server's event loop.
  const base = { ...options, connections: conns, workers: 1 } as autocannon.Options;
  await autocannon({ ...base, duration: warmupSeconds });
  const before = cpuSnapshot();
  const threadsBefore = threadCpuMs();
  const result = await autocannon({ ...base, duration: durationSeconds });
  const cpu = cpuShare(before, cpuSnapshot());
  const perRequest = threadSplit(threadsBefore, threadCpuMs(), result.requests.total);
  const codes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(
    (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
  )) {
    codes[code] = stat.count;
  }
  const target = targetsP99Ms[endpoint];
  const valid =
    result.non2xx === 0 && result.errors === 0 && result.timeouts === 0 && result.requests.total > 0;
  return {
    endpoint,
    key_cache_ttl_ms: keyCacheTtlMs,
    connections: conns,
    warmup_s: warmupSeconds,
    duration_s: durationSeconds,
    latency_ms: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: round(result.latency.mean),
    },
    requests_per_s: round(result.requests.average),
    total_requests: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: codes,
    cpu_pct: cpu,
    ...(perRequest && { cpu_ms_per_request: perRequest }),
    target_p99_ms: target,
    pass: valid && result.latency.p99 < target,
    valid,
  };
}

export function table(result: Record<string, unknown>): Table {
  const rows: Table = [
    [
      'case',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'req/s',
      'total',
      'non2xx',
      'err/tmo',
      'cpu own/other',
      'cpu ms/req api+db+rest',
      'p99 target',
      '',
    ],
  ];
  for (const value of Object.values(result)) {
    if (!isFigures(value)) continue;
    const f = value;
    rows.push([
      `${f.endpoint} (${f.key_cache_ttl_ms ? 'defaults' : 'caches off'}, ${f.connections} conn)`,
      String(f.latency_ms.p50),
      String(f.latency_ms.p90),
      String(f.latency_ms.p99),
      String(f.latency_ms.max),
      f.requests_per_s.toFixed(0),
      String(f.total_requests),
      String(f.non_2xx),
      `${f.errors}/${f.timeouts}`,
      `${f.cpu_pct.this_process}%/${f.cpu_pct.other_processes}%`,
      f.cpu_ms_per_request
        ? `${f.cpu_ms_per_request.api_thread}+${f.cpu_ms_per_request.dynalite_thread}+${f.cpu_ms_per_request.other_threads}`
        : 'n/a',
      `< ${f.target_p99_ms}`,
      !f.valid ? 'INVALID' : f.pass ? 'pass' : 'FAIL',
    ]);
  }
  rows.push([
    `runner: ${runnerNote}; ${connections} connections, ${durationSeconds} s after ${warmupSeconds} s warm-up`,
  ]);
  return rows;
}

interface CpuSnapshot {
  busyMs: number;
  totalMs: number;
  ownUs: number;
}

function cpuSnapshot(): CpuSnapshot {
  let busyMs = 0;
  let totalMs = 0;
  for (const { times } of cpus()) {
    const busy = times.user + times.nice + times.sys + times.irq;
    busyMs += busy;
    totalMs += busy + times.idle;
  }
  const own = process.cpuUsage();
  return { busyMs, totalMs, ownUs: own.user + own.system };
}

function cpuShare(a: CpuSnapshot, b: CpuSnapshot): LoadFigures['cpu_pct'] {
  const total = Math.max(1, b.totalMs - a.totalMs);
  const own = (b.ownUs - a.ownUs) / 1000;
  const other = Math.max(0, b.busyMs - a.busyMs - own);
  return {
    this_process: Math.round((own / total) * 100),
    other_processes: Math.round((other / total) * 100),
  };
}

function threadSplit(
  before: Map<number, number>,
  after: Map<number, number>,
  requests: number,
): LoadFigures['cpu_ms_per_request'] {
  if (after.size === 0 || requests === 0) return undefined;
  let api = 0;
  let dynalite = 0;
  let other = 0;
  for (const [tid, ms] of after) {
    const used = ms - (before.get(tid) ?? 0);
    if (tid === process.pid) api += used;
    else if (tid === dynamoThreadId) dynalite += used;
    else other += used;
  }
  const per = (ms: number) => Math.round((ms / requests) * 1000) / 1000;
  return {
    api_thread: per(api),
    dynalite_thread: per(dynalite),
    other_threads: per(other),
    total: per(api + dynalite + other),
  };
}

function isFigures(value: unknown): value is LoadFigures {
  return typeof value === 'object' && value !== null && 'latency_ms' in value && 'endpoint' in value;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function progress(message: string) {
  process.stderr.write(`  ${message}\n`);
}
