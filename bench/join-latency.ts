// Join latency: join request → bot in the room, for the local provider and for the Daily provider in
// Chromium, each with the warm pool off (every join starts a bot process) and on (an idle pooled bot, warmed for that
// provider, claims the session), in the same run. p50/p95 over sequential joins (the pool refilled between them, as
// when joins are spaced out) and a burst of concurrent joins (the pool sized to the burst), and the ratio off/on.
// The Daily bots run real Chromium and load a daily-js module, the typed stand-in of the browser tests
// (test/browser/daily-stub.ts) served as DAILY_JS_MODULE_PATH: Daily's servers are past the network, nothing else is.
import type { BotSession } from '../core/bots/session';
import type { Provider } from '../core/schemas/api';
import type { LocalStack } from '../local/stack';
import { stubbedDailyBots } from '../test/browser/daily-stub-module';
import type { Table } from './run';
import {
  type BenchAccount,
  type BenchOptions,
  percentile,
  verdict,
  waitFor,
  withBenchStack,
} from './support';

interface Figures {
  p50: number;
  p95: number;
  max: number;
  all_ms: number[];
  /** How the bots started (pool or cold), by count. */
  start_paths: Record<string, number>;
  /** Join → claim (the session's claimed_at − created_at): pooled bots only. */
  claim_ms_p50: number | null;
}

interface Mode {
  pool_size: number;
  sequential: Figures;
  concurrent: Figures;
}

interface ProviderResult {
  pool_off: Mode;
  pool_on: Mode;
  ratio_off_to_on: Record<'sequential_p50' | 'sequential_p95' | 'concurrent_p50' | 'concurrent_p95', number>;
}

/** The target: locally, with the pool, a Daily bot is in the room within 1 s at p95. */
const dailyPoolP95TargetMs = 1000;
/** A bot in Chromium on two shared cores, ten at once: generous, so a slow run still yields figures. */
const joinWaitMs = 180_000;

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const sequential = options.quick ? 2 : 20;
  const concurrent = options.quick ? 2 : 10;
  const daily = await stubbedDailyBots();
  try {
    const local = await measureProvider('local', {}, sequential, concurrent);
    const dailyResult = await measureProvider('daily', daily.env, sequential, concurrent);
    const p95 = dailyResult.pool_on.sequential.p95;
    return {
      sequential_joins: sequential,
      concurrent_joins: concurrent,
      local,
      daily: dailyResult,
      target: {
        what: `Daily provider, pool on, ${sequential} sequential joins: p95 ≤ ${dailyPoolP95TargetMs} ms`,
        p95_ms: p95,
        pass: p95 <= dailyPoolP95TargetMs,
      },
      notes: [
        "Join request → bot in the room: from sending POST /api/bot/join to the session's joined_at, the time the bot's own join resolved (both clocks are this machine's), the same for both providers. Each room has a person in it; each bot is asked to leave after, and gone before the next sequential join.",
        'Pool off: every join spawns a bot-task process (Node start on the esbuild bundle, DynamoDB read, join; for Daily also launching Chromium and loading the page with daily-js). Pool on: idle pooled bots, warmed for the provider (BOT_POOL_PROVIDER), long-poll the pool wake-up queue and the one woken claims the session with a conditional write; between sequential joins the pool is refilled (and warm) first.',
        `Sequential joins with BOT_POOL_SIZE=1 (the local default); the ${concurrent} concurrent joins with BOT_POOL_SIZE=${concurrent}. A join the pool does not claim in POOL_CLAIM_TIMEOUT_MS (2 s) starts cold.`,
        'Daily: a room URL on daily.co (DAILY_ROOM_DOMAINS), no DAILY_API_KEY (the bot joins with the caller’s token, no REST call); the page loads the daily-js stand-in of test/browser/daily-stub.ts (which runs every call options object through the real daily-js createCallObject) with a person already in the room. Polly is unreachable (its endpoint is a closed local port): the greeting, after the measured join, fails.',
        'The pool refills as soon as a bot claims: locally the next pooled bot launches its Chromium on the same two cores while the claimed one joins, which an ECS task on its own machine would not share.',
      ],
    };
  } finally {
    daily.close();
  }
}

async function measureProvider(
  provider: Provider,
  env: Record<string, string>,
  sequential: number,
  concurrent: number,
): Promise<ProviderResult> {
  const off = await measure(provider, env, 0, 0, sequential, concurrent);
  // The local default (one bot) for spaced-out joins; a pool as large as the burst for the concurrent ones.
  const on = await measure(provider, env, 1, concurrent, sequential, concurrent);
  const ratio = (a: number, b: number) => Math.round((a / b) * 10) / 10;
  return {
    pool_off: off,
    pool_on: on,
    ratio_off_to_on: {
      sequential_p50: ratio(off.sequential.p50, on.sequential.p50),
      sequential_p95: ratio(off.sequential.p95, on.sequential.p95),
      concurrent_p50: ratio(off.concurrent.p50, on.concurrent.p50),
      concurrent_p95: ratio(off.concurrent.p95, on.concurrent.p95),
    },
  };
}

async function measure(
  provider: Provider,
  env: Record<string, string>,
  sequentialPool: number,
  concurrentPool: number,
  sequential: number,
  concurrent: number,
): Promise<Mode> {
  const stackEnv = (pool: number) => ({ ...env, BOT_POOL_SIZE: String(pool), BOT_POOL_PROVIDER: provider });
  const seq = await withBenchStack(
    `join-latency-${provider}-${sequentialPool}`,
    1000,
    async (s, account) => {
      await ready(s, sequentialPool);
      const times: number[] = [];
      const ids: string[] = [];
      for (let n = 0; n < sequential; n++) {
        const { ms, botId } = await joinOnce(s, account, provider, `seq-${n}`);
        times.push(ms);
        ids.push(botId);
        await leave(s, account, botId);
        await ready(s, sequentialPool);
      }
      return figures(s, times, ids);
    },
    stackEnv(sequentialPool),
  );
  const conc = await withBenchStack(
    `join-latency-${provider}-${concurrentPool}`,
    1000,
    async (s, account) => {
      await ready(s, concurrentPool);
      const results = await Promise.all(
        Array.from({ length: concurrent }, (_, n) => joinOnce(s, account, provider, `burst-${n}`)),
      );
      await Promise.all(results.map((r) => leave(s, account, r.botId)));
      return figures(
        s,
        results.map((r) => r.ms),
        results.map((r) => r.botId),
      );
    },
    stackEnv(concurrentPool),
  );
  return { pool_size: concurrentPool, sequential: seq, concurrent: conc };
}

/** Waits until `n` pooled bots are idle and warm (the pool is full and ready). */
function ready(s: LocalStack, n: number): Promise<unknown> {
  return waitFor(() => n === 0 || s.runner.pool.filter((b) => !b.botId && b.ready).length >= n, joinWaitMs);
}

/** The room a join names: a local room with a person in it, or a Daily room (the stand-in has Ann in it). */
function roomFor(s: LocalStack, provider: Provider, name: string): string {
  if (provider === 'daily') return `https://bench.daily.co/${name}`;
  const room = s.rooms.createRoom(name, false);
  s.rooms.addScripted(room, { name: 'Ann', lines: [], leave_at_ms: 600_000 });
  return `${s.baseUrl}/rooms/${name}`;
}

async function joinOnce(s: LocalStack, { apiKey }: BenchAccount, provider: Provider, name: string) {
  const roomUrl = roomFor(s, provider, name);
  const started = Date.now();
  const res = await fetch(`${s.baseUrl}/api/bot/join`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider, room_url: roomUrl, bot_config: { name: 'Scribe' } }),
  });
  if (res.status !== 201) throw new Error(`join: ${res.status} ${await res.text()}`);
  const { bot_id: botId } = (await res.json()) as { bot_id: string };
  // The figure is the bot's own join time, so polling more often would only load the machine.
  const joinedAt = await waitFor(async () => {
    const session = await s.deps.sessions.get(botId);
    if (!session) return undefined;
    if (session.status !== 'running' && !session.joinedAt)
      throw new Error(`bot ${botId} ended without joining: ${JSON.stringify(session)}`);
    return session.joinedAt;
  }, joinWaitMs);
  return { ms: Date.parse(joinedAt) - started, botId };
}

async function leave(s: LocalStack, { apiKey }: BenchAccount, botId: string): Promise<void> {
  await fetch(`${s.baseUrl}/v1/bots/leave/${botId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
  });
  await waitFor(async () => (await s.deps.sessions.get(botId))?.status !== 'running', joinWaitMs);
}

async function figures(s: LocalStack, times: number[], botIds: string[]): Promise<Figures> {
  const sessions = (await Promise.all(botIds.map((id) => s.deps.sessions.get(id)))) as BotSession[];
  const paths: Record<string, number> = {};
  for (const x of sessions) paths[x.startPath ?? 'unknown'] = (paths[x.startPath ?? 'unknown'] ?? 0) + 1;
  const claims = sessions
    .filter((x) => x.startPath === 'pool' && x.claimedAt)
    .map((x) => Date.parse(x.claimedAt!) - Date.parse(x.createdAt));
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    max: Math.max(...times),
    all_ms: times,
    start_paths: paths,
    claim_ms_p50: claims.length ? percentile(claims, 50) : null,
  };
}

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as {
    local: ProviderResult;
    daily: ProviderResult;
    sequential_joins: number;
    concurrent_joins: number;
    target: { what: string; p95_ms: number; pass: boolean };
  };
  const paths = (f: Figures) =>
    Object.entries(f.start_paths)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
  const row = (label: string, f: Figures) => [
    label,
    String(f.p50),
    String(f.p95),
    String(f.max),
    paths(f),
    f.claim_ms_p50 === null ? '' : String(f.claim_ms_p50),
  ];
  const rows = (name: string, p: ProviderResult): Table => [
    row(`${name}: ${r.sequential_joins} sequential, pool off`, p.pool_off.sequential),
    row(`${name}: ${r.sequential_joins} sequential, pool of 1`, p.pool_on.sequential),
    row(`${name}: ${r.concurrent_joins} concurrent, pool off`, p.pool_off.concurrent),
    row(`${name}: ${r.concurrent_joins} concurrent, pool of ${p.pool_on.pool_size}`, p.pool_on.concurrent),
    [
      `${name}: ratio off/on: sequential p50 ${p.ratio_off_to_on.sequential_p50}×, p95 ${p.ratio_off_to_on.sequential_p95}×; concurrent p50 ${p.ratio_off_to_on.concurrent_p50}×, p95 ${p.ratio_off_to_on.concurrent_p95}×`,
    ],
  ];
  return [
    ['join request → bot in the room', 'p50 ms', 'p95 ms', 'max ms', 'started', 'claim p50 ms'],
    ...rows('local', r.local),
    ...rows('Daily in Chromium', r.daily),
    [`target: ${r.target.what}: ${r.target.p95_ms} ms — ${verdict(r.target.pass, options)}`],
  ];
}
