// API latency against the local stack: join at an offered 200 requests/s on a fixed schedule (open loop, the join
// target), status at 32 connections (the status target), and closed-loop saturation figures for context: join and
// status at 32 and 1 connections, with the shipped caches and with both caches off.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { TaskRunner } from '../core/ports/task-runner';
import { type LocalStack, startLocalStack } from '../local/stack';
import { type OpenLoopRequest, runOpenLoop } from './open-loop';
import type { Table } from './run';
import { type BenchOptions, percentile, threadCpuMs, verdict } from './support';

const full = {
  connections: 32,
  warmupS: 2,
  durationS: 10,
  seedBots: 100,
  openLoop: { ratePerS: 200, warmupS: 5, durationS: 30 },
};
const quick: typeof full = {
  connections: 32,
  warmupS: 0.5,
  durationS: 2,
  seedBots: 10,
  openLoop: { ratePerS: 200, warmupS: 0.5, durationS: 3 },
};
type Sizes = typeof full;

/** Targets: status p99 at 32 connections (shipped caches), and join p99 at the offered open-loop rate. */
const targets = { status_p99_ms: 15, join_open_loop_p99_ms: 40 };
const runnerNote = 'no-op (process spawn excluded)';
const keyCacheModes = [
  { label: 'defaults', ttlMs: '5000', statusTtlMs: '1000' },
  { label: 'uncached', ttlMs: '0', statusTtlMs: '0' },
] as const;

/**
 * The limits the join accounts are sized against: the shipped defaults (docs/configuration.md), whatever the stack
 * under test allows, so no join case depends on a raised limit. Each account gets at most half of either.
 */
const shippedLimits = { ratePerMinutePerKey: 600, runningBotsPerAccount: 100 };
/** Closed-loop joins have no set rate: pools assume at most this many joins/s (this machine does 250-1,000). */
const closedLoopJoinCeilingPerS = { many: 2000, one: 500 };

/** Stands in for LocalTaskRunner: a join would otherwise spawn a bot process (~1 s of CPU each). */
const noopRunner: TaskRunner = {
  start: async (botId) => ({ taskRef: `bench:${botId}` }),
  stop: async () => {},
};

type Percentiles = { p50: number; p90: number; p95?: number; p99: number; max: number; mean: number };

interface CaseFigures {
  endpoint: 'status' | 'join';
  /** closed: `connections` clients each waiting for its answer; open: requests sent on a fixed schedule. */
  loop: 'closed' | 'open';
  key_cache_ttl_ms: number;
  /** Closed loop: the connections; open loop: how many connections the generator opened in all. */
  connections: number;
  warmup_s: number;
  duration_s: number;
  /** Join cases: how many accounts (one API key each) the joins are spread over. */
  accounts?: number;
  latency_ms: Percentiles;
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
  /** Only the cases with a target have these; the others are context. */
  target_p99_ms?: number;
  pass?: boolean;
  valid: boolean;
}

interface OpenLoopFigures extends CaseFigures {
  loop: 'open';
  offered_per_s: number;
  scheduled: number;
  /** The `error` codes of non-2xx answers (e.g. rate_limited), to tell the limits apart. */
  error_codes: Record<string, number>;
  /** From the actual send instead of the schedule: what a closed-loop tool would have reported. */
  service_time_ms: { p50: number; p99: number; max: number };
  /** How late the generator sent (actual − scheduled); included in latency_ms. */
  send_lag_ms: { p50: number; p99: number; max: number };
  max_in_flight: number;
}

/** The dynalite worker's OS thread in the stack under test, for the per-thread CPU split. */
let dynamoThreadId: number | undefined;

/** Other processes using more than this share of the machine make the figures unreliable. */
const maxOtherCpuPct = 15;

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const sizes = options.quick ? quick : full;
  const figures: Record<string, CaseFigures> = {};

  // Open loop first, on a stack with every shipped default, the per-key rate limit included.
  await withApiStack({ LOG_LEVEL: 'silent' }, async (stack) => {
    const o = sizes.openLoop;
    const accounts = poolSize(o.ratePerS * (o.warmupS + o.durationS), o.ratePerS);
    progress(
      `[open loop] ${accounts} accounts; join at ${o.ratePerS}/s: ${o.warmupS} s warm-up + ${o.durationS} s`,
    );
    const requests = await joinRequests(stack, accounts);
    figures.join_open_loop = await openLoopJoin(stack, requests, accounts, o);
  });

  for (const mode of keyCacheModes) {
    const env = {
      LOG_LEVEL: 'silent',
      // Status is read with one key at ~20,000 requests/s: the limiter still counts every request but never
      // rejects. Joins do not rely on this: they are spread over enough accounts for the shipped 600/min.
      RATE_LIMIT_PER_MINUTE: '100000000',
      KEY_CACHE_TTL_MS: mode.ttlMs,
      STATUS_CACHE_TTL_MS: mode.statusTtlMs,
    };
    await withApiStack(env, async (stack) => {
      const { account, apiKey } = await stack.deps.accounts.create('bench');
      await stack.deps.ledger.grant(account.accountId, 1_000_000, 'bench');
      const authorization = `Bearer ${apiKey}`;
      progress(`[${mode.label}] seeding ${sizes.seedBots} bots`);
      const botIds = await seed(stack, authorization, sizes.seedBots);
      const statusRequests = botIds.map((id) => ({
        method: 'GET' as const,
        path: `/api/bot/${id}/status`,
        headers: { authorization },
      }));
      const ttl = Number(mode.ttlMs);
      const closed = (
        endpoint: CaseFigures['endpoint'],
        requests: autocannon.Request[],
        connections: number,
      ) => closedLoop(endpoint, ttl, stack.baseUrl, requests, connections, sizes);
      const window = sizes.warmupS + sizes.durationS;

      progress(
        `[${mode.label}] status, ${sizes.connections} connections: ${sizes.warmupS} s warm-up + ${sizes.durationS} s`,
      );
      const status = await closed('status', statusRequests, sizes.connections);
      if (mode.label === 'defaults') withTarget(status, targets.status_p99_ms);
      figures[`status_${mode.label}`] = status;

      // Joins come from many customers, as in production; each join case gets fresh accounts, because these bots
      // never end (no-op runner) and count against MAX_RUNNING_BOTS_PER_ACCOUNT.
      const many = poolSize(closedLoopJoinCeilingPerS.many * window, closedLoopJoinCeilingPerS.many);
      progress(`[${mode.label}] join, ${sizes.connections} connections over ${many} accounts`);
      figures[`join_${mode.label}`] = {
        ...(await closed('join', await joinRequests(stack, many), sizes.connections)),
        accounts: many,
      };

      if (mode.label === 'defaults') {
        // One connection: the latency of a single request without queueing behind 31 others (context only).
        progress(`[${mode.label}] status and join with 1 connection`);
        figures.status_defaults_1conn = await closed('status', statusRequests, 1);
        const one = poolSize(closedLoopJoinCeilingPerS.one * window, closedLoopJoinCeilingPerS.one);
        figures.join_defaults_1conn = {
          ...(await closed('join', await joinRequests(stack, one), 1)),
          accounts: one,
        };
      }
    });
  }

  const all = Object.values(figures);
  const warnings: string[] = [];
  for (const [key, f] of Object.entries(figures)) {
    if (!f.valid) {
      const codes = 'error_codes' in f ? `, error codes ${JSON.stringify(f.error_codes)}` : '';
      warnings.push(
        `${key}: INVALID - ${f.non_2xx} non-2xx, ${f.errors} errors, ${f.timeouts} timeouts (status codes ${JSON.stringify(f.status_codes)}${codes})`,
      );
    }
    if (f.cpu_pct.other_processes > maxOtherCpuPct) {
      warnings.push(
        `${key}: other processes used ${f.cpu_pct.other_processes}% of the machine's CPU while it ran - figures are noisy, rerun on an idle machine`,
      );
    }
  }
  const o = sizes.openLoop;
  return {
    valid: all.every((f) => f.valid),
    machine_quiet: all.every((f) => f.cpu_pct.other_processes <= maxOtherCpuPct),
    targets_met: all.every((f) => f.pass !== false),
    warnings,
    runner: runnerNote,
    connections: sizes.connections,
    warmup_s: sizes.warmupS,
    duration_s: sizes.durationS,
    open_loop: { offered_per_s: o.ratePerS, warmup_s: o.warmupS, duration_s: o.durationS },
    status_seed_bots: sizes.seedBots,
    targets,
    latency_resolution_ms: { closed_loop: 1, open_loop: 0.1 },
    max_other_cpu_pct: maxOtherCpuPct,
    notes: [
      'Targets: join p99 ≤ 40 ms at an offered 200 joins/s (open loop, every shipped default); status p99 < 15 ms at 32 connections (shipped caches). The closed-loop join cases are saturation figures (throughput and CPU per join) without a target.',
      'Open loop: a hand-rolled generator (bench/open-loop.ts) in a worker thread sends request n at start + n/rate whatever the server does, over node:http keep-alive connections opened as needed; latency runs from the scheduled send to the end of the response, so time spent queued behind a slow server counts (no coordinated omission). service_time_ms (from the actual send) shows what a closed-loop tool would report. The generator thread has ended when CPU is read, so cpu_ms_per_request leaves it out.',
      'Closed loop: autocannon in a worker thread of the same process as the stack (API server on the main thread, dynalite in its own worker thread); its latency runs from the actual send.',
      `Joins: no Idempotency-Key, a 1-credit hold each, spread over fresh accounts per case, sized so no API key exceeds half of the shipped ${shippedLimits.ratePerMinutePerKey} requests/min and no account half of ${shippedLimits.runningBotsPerAccount} running bots (closed loop assumes at most ${closedLoopJoinCeilingPerS.many} joins/s at 32 connections, ${closedLoopJoinCeilingPerS.one} at 1). The open-loop stack keeps RATE_LIMIT_PER_MINUTE at its default.`,
      'The closed-loop stacks raise RATE_LIMIT_PER_MINUTE to 100000000 for the status cases (one key at ~20,000 requests/s); the limiter still runs on every request. The benchmark measures latency, not the limiter.',
      'Modes: defaults (KEY_CACHE_TTL_MS 5000, STATUS_CACHE_TTL_MS 1000) and uncached (both 0), each on a fresh stack and data directory.',
      'cpu_pct: share of the whole machine (all cores) during the recorded window; other_processes above max_other_cpu_pct means the machine was not quiet.',
    ],
    ...figures,
  };
}

/** A fresh stack and data directory with the no-op runner; always torn down. */
async function withApiStack(env: Record<string, string>, fn: (stack: LocalStack) => Promise<void>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-api-latency-'));
  let stack: LocalStack | undefined;
  try {
    // No warm pool (as on AWS today): its idle bots would claim the joins, and its fallback start bots.
    stack = await startLocalStack({ port: 0, dataDir, env: { BOT_POOL_SIZE: '0', ...env } });
    stack.deps.runner = noopRunner;
    dynamoThreadId = stack.dynamoThreadId;
    await fn(stack);
    if (stack.runner.running > 0) throw new Error(`${stack.runner.running} bot processes were spawned`);
  } finally {
    await stack?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Accounts needed so `joins` joins at up to `peakPerS` stay within half of each shipped limit. */
function poolSize(joins: number, peakPerS: number): number {
  const byRunningBots = joins / (shippedLimits.runningBotsPerAccount / 2);
  // Fixed one-minute windows: a key's count in one window is at most its share of a minute's joins.
  const byRateLimit = (Math.min(joins, peakPerS * 60) / shippedLimits.ratePerMinutePerKey) * 2;
  return Math.max(1, Math.ceil(Math.max(byRunningBots, byRateLimit)));
}

/** One join request per fresh account (funded, one API key each); the generators cycle through them. */
async function joinRequests(stack: LocalStack, accounts: number): Promise<OpenLoopRequest[]> {
  const body = JSON.stringify({ provider: 'local', room_url: `${stack.baseUrl}/rooms/bench` });
  const requests: OpenLoopRequest[] = [];
  const one = async (i: number) => {
    const { account, apiKey } = await stack.deps.accounts.create(`bench joiner ${i}`);
    await stack.deps.ledger.grant(account.accountId, 1_000_000, 'bench');
    requests.push({
      method: 'POST',
      path: '/api/bot/join',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body,
    });
  };
  for (let i = 0; i < accounts; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, accounts - i) }, (_, k) => one(i + k)));
  }
  return requests;
}

/** Creates the bots that the status cases read (eight at a time). */
async function seed(stack: LocalStack, authorization: string, count: number): Promise<string[]> {
  const body = JSON.stringify({ provider: 'local', room_url: `${stack.baseUrl}/rooms/bench` });
  const ids: string[] = [];
  const one = async () => {
    const res = await fetch(`${stack.baseUrl}/api/bot/join`, {
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
  for (let i = 0; i < count; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, count - i) }, one));
  }
  return ids;
}

async function openLoopJoin(
  stack: LocalStack,
  requests: OpenLoopRequest[],
  accounts: number,
  o: Sizes['openLoop'],
): Promise<OpenLoopFigures> {
  let before: CpuSnapshot | undefined;
  let threadsBefore = new Map<number, number>();
  const r = await runOpenLoop(
    {
      url: stack.baseUrl,
      requests,
      ratePerS: o.ratePerS,
      warmupS: o.warmupS,
      durationS: o.durationS,
      maxSockets: 512,
      timeoutMs: 10_000,
    },
    () => {
      before = cpuSnapshot();
      threadsBefore = threadCpuMs();
    },
  );
  const cpu = cpuShare(before ?? cpuSnapshot(), cpuSnapshot());
  const ok = Object.entries(r.statusCodes)
    .filter(([code]) => code.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  const responses = r.latenciesMs.length;
  const perRequest = threadSplit(threadsBefore, threadCpuMs(), responses);
  const valid = ok === r.scheduled && r.errors === 0 && r.timeouts === 0;
  const p99 = round1(percentile(r.latenciesMs, 99));
  return {
    endpoint: 'join',
    loop: 'open',
    key_cache_ttl_ms: stack.config.KEY_CACHE_TTL_MS,
    connections: r.socketsOpened,
    warmup_s: o.warmupS,
    duration_s: o.durationS,
    accounts,
    offered_per_s: o.ratePerS,
    scheduled: r.scheduled,
    latency_ms: {
      p50: round1(percentile(r.latenciesMs, 50)),
      p90: round1(percentile(r.latenciesMs, 90)),
      p95: round1(percentile(r.latenciesMs, 95)),
      p99,
      max: round1(Math.max(...r.latenciesMs)),
      mean: round1(r.latenciesMs.reduce((a, b) => a + b, 0) / Math.max(1, responses)),
    },
    service_time_ms: summary3(r.serviceMs),
    send_lag_ms: summary3(r.sendLagMs),
    requests_per_s: round(ok / Math.max(0.001, r.windowMs / 1000)),
    total_requests: responses,
    non_2xx: responses - ok,
    errors: r.errors,
    timeouts: r.timeouts,
    status_codes: r.statusCodes,
    error_codes: r.errorCodes,
    max_in_flight: r.maxInFlight,
    cpu_pct: cpu,
    ...(perRequest && { cpu_ms_per_request: perRequest }),
    target_p99_ms: targets.join_open_loop_p99_ms,
    pass: valid && p99 <= targets.join_open_loop_p99_ms,
    valid,
  };
}

async function closedLoop(
  endpoint: CaseFigures['endpoint'],
  keyCacheTtlMs: number,
  url: string,
  requests: autocannon.Request[],
  connections: number,
  sizes: Sizes,
): Promise<CaseFigures> {
  // Its own thread, so the load generator does not share the API server's event loop.
  const base = { url, requests, connections, workers: 1 } as autocannon.Options;
  await autocannon({ ...base, duration: sizes.warmupS });
  const before = cpuSnapshot();
  const threadsBefore = threadCpuMs();
  const result = await autocannon({ ...base, duration: sizes.durationS });
  const cpu = cpuShare(before, cpuSnapshot());
  const perRequest = threadSplit(threadsBefore, threadCpuMs(), result.requests.total);
  const codes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(
    (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
  )) {
    codes[code] = stat.count;
  }
  const valid =
    result.non2xx === 0 && result.errors === 0 && result.timeouts === 0 && result.requests.total > 0;
  return {
    endpoint,
    loop: 'closed',
    key_cache_ttl_ms: keyCacheTtlMs,
    connections,
    warmup_s: sizes.warmupS,
    duration_s: sizes.durationS,
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
    valid,
  };
}

/** Gives a case its p99 target (status at 32 connections is judged here; autocannon reports whole ms). */
function withTarget(f: CaseFigures, targetP99Ms: number) {
  f.target_p99_ms = targetP99Ms;
  f.pass = f.valid && f.latency_ms.p99 < targetP99Ms;
}

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const rows: Table = [
    [
      'case',
      'p50 ms',
      'p90 ms',
      'p95 ms',
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
  const cases = Object.values(result).filter(isFigures);
  for (const f of cases) {
    const cacheLabel = f.key_cache_ttl_ms ? 'defaults' : 'caches off';
    const label =
      f.loop === 'open'
        ? `${f.endpoint} open loop ${(f as OpenLoopFigures).offered_per_s}/s (defaults)`
        : `${f.endpoint} (${cacheLabel}, ${f.connections} conn)`;
    rows.push([
      label,
      String(f.latency_ms.p50),
      String(f.latency_ms.p90),
      f.latency_ms.p95 === undefined ? '-' : String(f.latency_ms.p95),
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
      f.target_p99_ms === undefined ? '(context)' : `${f.loop === 'open' ? '≤' : '<'} ${f.target_p99_ms}`,
      !f.valid ? 'INVALID' : f.pass === undefined ? '' : verdict(f.pass, options),
    ]);
  }
  for (const f of cases) {
    if (f.loop !== 'open') continue;
    const o = f as OpenLoopFigures;
    rows.push([
      `open loop: ${o.scheduled} joins scheduled at ${o.offered_per_s}/s over ${o.accounts} accounts; latency from the scheduled send (from the actual send: p99 ${o.service_time_ms.p99} ms; generator lag p99 ${o.send_lag_ms.p99} ms); up to ${o.max_in_flight} in flight, ${o.connections} connections opened`,
    ]);
  }
  rows.push([
    `runner: ${runnerNote}; closed loop: ${String(result.duration_s)} s after ${String(result.warmup_s)} s warm-up`,
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

function cpuShare(a: CpuSnapshot, b: CpuSnapshot): CaseFigures['cpu_pct'] {
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
): CaseFigures['cpu_ms_per_request'] {
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

function isFigures(value: unknown): value is CaseFigures {
  return typeof value === 'object' && value !== null && 'latency_ms' in value && 'endpoint' in value;
}

function summary3(values: number[]) {
  return {
    p50: round1(percentile(values, 50)),
    p99: round1(percentile(values, 99)),
    max: round1(values.length ? Math.max(...values) : Number.NaN),
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

function progress(message: string) {
  process.stderr.write(`  ${message}\n`);
}
