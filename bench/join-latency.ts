// Join latency (issue 15): join request → bot in the room, for the local provider, with the warm pool off (every join
// starts a bot process) and on (an idle pooled bot claims the session), in the same run. p50/p95 over sequential
// joins (the pool refilled between them, as when joins are spaced out) and a burst of concurrent joins (the pool sized
// to the burst), and the ratio off/on.
import type { BotSession } from '../core/bots/session';
import type { LocalStack } from '../local/stack';
import type { Table } from './run';
import { type BenchAccount, type BenchOptions, percentile, waitFor, withBenchStack } from './support';

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

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const sequential = options.quick ? 3 : 20;
  const concurrent = options.quick ? 2 : 10;
  const off = await measure(0, 0, sequential, concurrent);
  // The local default (one bot) for spaced-out joins; a pool as large as the burst for the concurrent ones.
  const on = await measure(1, concurrent, sequential, concurrent);
  const ratio = (a: number, b: number) => Math.round((a / b) * 10) / 10;
  return {
    provider: 'local',
    sequential_joins: sequential,
    concurrent_joins: concurrent,
    pool_off: off,
    pool_on: on,
    ratio_off_to_on: {
      sequential_p50: ratio(off.sequential.p50, on.sequential.p50),
      sequential_p95: ratio(off.sequential.p95, on.sequential.p95),
      concurrent_p50: ratio(off.concurrent.p50, on.concurrent.p50),
      concurrent_p95: ratio(off.concurrent.p95, on.concurrent.p95),
    },
    notes: [
      'Join request → bot in the room: from sending POST /api/bot/join to the bot being a participant of the local room (the room server’s own list, polled every 10 ms in-process). Each room has a person in it; each bot is asked to leave after, and gone before the next sequential join.',
      'Pool off: every join spawns a bot-task process (Node start on the esbuild bundle, DynamoDB read, join). Pool on: idle pooled bots poll the offers every POOL_POLL_MS (100 ms) and one claims the session with a conditional write; between sequential joins the pool is refilled first.',
      `Sequential joins with BOT_POOL_SIZE=1 (the local default); the ${concurrent} concurrent joins with BOT_POOL_SIZE=${concurrent}. A join the pool does not claim in POOL_CLAIM_TIMEOUT_MS (2 s) starts cold.`,
      'The Daily provider in Chromium (Chromium launch and daily-js load in the figure) is not measured yet: pooled bots do not pre-launch Chromium yet.',
    ],
  };
}

async function measure(
  sequentialPool: number,
  concurrentPool: number,
  sequential: number,
  concurrent: number,
): Promise<Mode> {
  const seq = await withBenchStack(
    `join-latency-${sequentialPool}`,
    1000,
    async (s, account) => {
      await idle(s, sequentialPool);
      const times: number[] = [];
      const ids: string[] = [];
      for (let n = 0; n < sequential; n++) {
        const { ms, botId } = await joinOnce(s, account, `seq-${n}`);
        times.push(ms);
        ids.push(botId);
        await leave(s, account, botId);
        await idle(s, sequentialPool);
      }
      return figures(s, times, ids);
    },
    { BOT_POOL_SIZE: String(sequentialPool) },
  );
  const conc = await withBenchStack(
    `join-latency-${concurrentPool}`,
    1000,
    async (s, account) => {
      await idle(s, concurrentPool);
      const results = await Promise.all(
        Array.from({ length: concurrent }, (_, n) => joinOnce(s, account, `burst-${n}`)),
      );
      await Promise.all(results.map((r) => leave(s, account, r.botId)));
      return figures(
        s,
        results.map((r) => r.ms),
        results.map((r) => r.botId),
      );
    },
    { BOT_POOL_SIZE: String(concurrentPool) },
  );
  return { pool_size: concurrentPool, sequential: seq, concurrent: conc };
}

/** Waits until `n` pooled bots are idle (the pool is full). */
function idle(s: LocalStack, n: number): Promise<unknown> {
  return waitFor(() => s.runner.pool.filter((b) => !b.botId).length >= n || n === 0, 60_000);
}

async function joinOnce(s: LocalStack, { apiKey }: BenchAccount, name: string) {
  const room = s.rooms.createRoom(name, false);
  s.rooms.addScripted(room, { name: 'Ann', lines: [], leave_at_ms: 600_000 });
  const started = Date.now();
  const res = await fetch(`${s.baseUrl}/api/bot/join`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({
      provider: 'local',
      room_url: `${s.baseUrl}/rooms/${name}`,
      bot_config: { name: 'Scribe' },
    }),
  });
  if (res.status !== 201) throw new Error(`join: ${res.status} ${await res.text()}`);
  const { bot_id: botId } = (await res.json()) as { bot_id: string };
  await waitFor(() => room.participants.some((p) => p.kind === 'bot'), 60_000);
  return { ms: Date.now() - started, botId };
}

async function leave(s: LocalStack, { apiKey }: BenchAccount, botId: string): Promise<void> {
  await fetch(`${s.baseUrl}/v1/bots/leave/${botId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
  });
  await waitFor(async () => (await s.deps.sessions.get(botId))?.status !== 'running', 60_000);
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

export function table(result: Record<string, unknown>): Table {
  const r = result as {
    pool_off: Mode;
    pool_on: Mode;
    sequential_joins: number;
    concurrent_joins: number;
    ratio_off_to_on: Record<string, number>;
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
  return [
    ['local provider', 'p50 ms', 'p95 ms', 'max ms', 'started', 'claim p50 ms'],
    row(`${r.sequential_joins} sequential, pool off`, r.pool_off.sequential),
    row(`${r.sequential_joins} sequential, pool of 1`, r.pool_on.sequential),
    row(`${r.concurrent_joins} concurrent, pool off`, r.pool_off.concurrent),
    row(`${r.concurrent_joins} concurrent, pool of ${r.pool_on.pool_size}`, r.pool_on.concurrent),
    [
      `ratio off/on: sequential p50 ${r.ratio_off_to_on.sequential_p50}×, p95 ${r.ratio_off_to_on.sequential_p95}×; concurrent p50 ${r.ratio_off_to_on.concurrent_p50}×, p95 ${r.ratio_off_to_on.concurrent_p95}×`,
    ],
  ];
}
