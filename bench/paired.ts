// `npm run bench -- compare <git-ref> --paired`: the API's CPU per request of two trees measured in alternation. Both
// stacks run at once, each in its own process (bench/paired-server.ts); short windows of load go to one and then the
// other (A B, then B A), many rounds, and each window's CPU per request is our code's CPU time (the process's threads:
// API, GC, libuv — all but the local DynamoDB's worker thread, which does not ship to AWS) over the requests it
// answered. The load generator runs here, outside both. A machine whose
// speed drifts (a shared VM; two sequential runs of one commit here differed by 1.8x) moves both sides of a round
// alike, so the ratio of each round's pair holds where sequential old-new-old runs do not.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { runOpenLoop } from './open-loop';
import type { Table } from './run';
import { median, percentile, processCpuMs, threadOfProcessCpuMs } from './support';

/** The stack process's CPU without its dynalite worker's: the code that ships. */
const ourCpuMs = (side: Pick<Side, 'pid' | 'dynamoThreadId'>) =>
  processCpuMs(side.pid) - threadOfProcessCpuMs(side.pid, side.dynamoThreadId);

interface Side {
  label: string;
  pid: number;
  /** The stack's dynalite worker thread: its CPU is not ours, and is left out. */
  dynamoThreadId?: number;
  baseUrl: string;
  joinKeys: string[];
  statusKey: string;
  botIds: string[];
  /** The next join account, across all windows: each takes the next key, so no account nears its running limit. */
  nextKey: number;
  stop(): void;
}

const full = { rounds: 10, windowS: 3, openLoopS: 5, accounts: 600, statusBots: 100 };
const quick: typeof full = { rounds: 2, windowS: 0.5, openLoopS: 1, accounts: 60, statusBots: 10 };
const openLoopRatePerS = 200;

type CaseName = 'join_32conn' | 'status_32conn' | 'join_1conn' | 'join_open_loop_200';
const cases: CaseName[] = ['join_32conn', 'status_32conn', 'join_1conn', 'join_open_loop_200'];

interface Window {
  cpuMsPerRequest: number;
  answered: number;
  failed: number;
  /** Status codes of the answers, and `errors`/`timeouts` of requests without one. */
  codes: Record<string, number>;
  latenciesMs?: number[];
}

export async function pairedCompare(
  trees: { label: string; dir: string }[],
  quickMode: boolean,
): Promise<{ table: Table; figures: Record<string, unknown> }> {
  const sizes = quickMode ? quick : full;
  const windows = new Map<string, Window[]>();
  let sides: Side[] = [];
  let round = 0;
  // Half the rounds with the old stack started first, half with the new: a side's place in the start order (the
  // calibration of one commit against itself favoured the second by up to 11 %) then weighs on both alike.
  for (const starting of [trees, [...trees].reverse()]) {
    try {
      sides = [];
      // One at a time: starting two stacks at once would time each other's start-up, not the windows.
      for (const tree of starting) sides.push(await startSide(tree.label, tree.dir, sizes));
      for (const side of sides) await settled(side);
      for (const end = round + Math.ceil(sizes.rounds / 2); round < end && round < sizes.rounds; round++) {
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const name of cases) {
          for (const side of order) {
            const w = await measure(side, name, sizes);
            const key = `${name}|${side.label}`;
            windows.set(key, [...(windows.get(key) ?? []), w]);
          }
        }
        console.log(`  [paired] round ${round + 1}/${sizes.rounds} done`);
      }
    } finally {
      for (const side of sides) side.stop();
    }
  }
  return summarize(trees[0]!.label, trees[1]!.label, windows, sizes);
}

async function startSide(label: string, dir: string, sizes: typeof full): Promise<Side> {
  const server = fileURLToPath(new URL('./paired-server.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', server, dir, String(sizes.accounts), String(sizes.statusBots)],
    { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`the ${label} stack exited (${code}) before it was ready`)),
    );
  });
  const ready = JSON.parse(line) as Omit<Side, 'label' | 'stop' | 'nextKey'>;
  console.log(`  [paired] ${label}: stack up (pid ${ready.pid})`);
  return { ...ready, label, nextKey: 0, stop: () => child.kill('SIGTERM') };
}

/**
 * Waits until a started stack is idle: right after seeding, LevelDB compacts on background threads, and that burst
 * would land in the first window (a quick run measured 317 ms of CPU per join there). Idle is under a tenth of a
 * core: an idle stack uses about 20 ms/s (mostly its queue pollers, which on AWS run outside the API's functions).
 */
async function settled(side: Side): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = ourCpuMs(side);
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = ourCpuMs(side);
    if (now - last < 100) return;
    last = now;
  }
  console.log(`  [paired] ${side.label}: still busy 30 s after start-up; measuring anyway`);
}

const joinBody = (side: Side) =>
  JSON.stringify({ provider: 'local', room_url: `${side.baseUrl}/rooms/bench` });

/** The open-loop generator's requests (request n is requests[n % length]): the keys from where the last window left. */
function joinRequests(side: Side, count: number) {
  const body = joinBody(side);
  return Array.from({ length: count }, () => ({
    method: 'POST' as const,
    path: '/api/bot/join',
    headers: {
      authorization: `Bearer ${side.joinKeys[side.nextKey++ % side.joinKeys.length]}`,
      'content-type': 'application/json',
    },
    body,
  }));
}

async function measure(side: Side, name: CaseName, sizes: typeof full): Promise<Window> {
  if (name === 'join_open_loop_200') {
    let before = 0;
    const r = await runOpenLoop(
      {
        url: side.baseUrl,
        requests: joinRequests(side, Math.ceil(openLoopRatePerS * (sizes.openLoopS + 0.5))),
        ratePerS: openLoopRatePerS,
        warmupS: 0.5,
        durationS: sizes.openLoopS,
        maxSockets: 512,
        timeoutMs: 10_000,
      },
      () => {
        before = ourCpuMs(side);
      },
    );
    const cpu = ourCpuMs(side) - before;
    const answered = r.latenciesMs.length;
    const ok = Object.entries(r.statusCodes)
      .filter(([code]) => code.startsWith('2'))
      .reduce((sum, [, n]) => sum + n, 0);
    return {
      cpuMsPerRequest: cpu / Math.max(1, answered),
      answered,
      failed: r.scheduled - ok,
      codes: { ...r.statusCodes, errors: r.errors, timeouts: r.timeouts },
      latenciesMs: r.latenciesMs,
    };
  }
  const requests =
    name === 'status_32conn'
      ? side.botIds.map((id) => ({
          method: 'GET' as const,
          path: `/api/bot/${id}/status`,
          headers: { authorization: `Bearer ${side.statusKey}` },
        }))
      : [
          {
            method: 'POST' as const,
            path: '/api/bot/join',
            headers: { 'content-type': 'application/json' },
            body: joinBody(side),
            // Every join takes the next account's key (autocannon would start each connection at the first).
            setupRequest: (req: autocannon.Request) => ({
              ...req,
              headers: {
                ...req.headers,
                authorization: `Bearer ${side.joinKeys[side.nextKey++ % side.joinKeys.length]}`,
              },
            }),
          },
        ];
  const connections = name === 'join_1conn' ? 1 : 32;
  const base = { url: side.baseUrl, requests, connections } as autocannon.Options;
  await autocannon({ ...base, duration: 0.3 });
  const before = ourCpuMs(side);
  const result = await autocannon({ ...base, duration: sizes.windowS });
  const cpu = ourCpuMs(side) - before;
  const answered = result.requests.total;
  return {
    cpuMsPerRequest: cpu / Math.max(1, answered),
    answered,
    failed: result.non2xx + result.errors + result.timeouts,
    codes: {
      ...Object.fromEntries(
        Object.entries(
          (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
        ).map(([code, stat]) => [code, stat.count]),
      ),
      errors: result.errors,
      timeouts: result.timeouts,
    },
  };
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

function summarize(
  oldLabel: string,
  newLabel: string,
  windows: Map<string, Window[]>,
  sizes: typeof full,
): { table: Table; figures: Record<string, unknown> } {
  const table: Table = [
    ['case', `${oldLabel} ms/req`, `${newLabel} ms/req`, 'new / old (median)', 'range of rounds', 'failed'],
  ];
  const figures: Record<string, unknown> = { rounds: sizes.rounds, window_s: sizes.windowS };
  for (const name of cases) {
    const a = windows.get(`${name}|${oldLabel}`) ?? [];
    const b = windows.get(`${name}|${newLabel}`) ?? [];
    const ratios = a.map((w, i) => b[i]!.cpuMsPerRequest / w.cpuMsPerRequest).sort((x, y) => x - y);
    const failed = [...a, ...b].reduce((sum, w) => sum + w.failed, 0);
    const codes: Record<string, number> = {};
    for (const w of [...a, ...b])
      for (const [code, n] of Object.entries(w.codes)) if (n) codes[code] = (codes[code] ?? 0) + n;
    const oldMs = median(a.map((w) => w.cpuMsPerRequest));
    const newMs = median(b.map((w) => w.cpuMsPerRequest));
    table.push([
      `${name}: CPU per request`,
      String(r3(oldMs)),
      String(r3(newMs)),
      `${median(ratios).toFixed(2)}×`,
      `${ratios[0]!.toFixed(2)}–${ratios.at(-1)!.toFixed(2)}`,
      failed ? `${failed} ${JSON.stringify(codes)}` : '0',
    ]);
    const entry: Record<string, unknown> = {
      old_cpu_ms_per_request: r3(oldMs),
      new_cpu_ms_per_request: r3(newMs),
      ratio_median: r3(median(ratios)),
      ratios: ratios.map(r3),
      failed,
      codes,
    };
    if (name === 'join_open_loop_200') {
      const p99 = (ws: Window[]) =>
        percentile(
          ws.flatMap((w) => w.latenciesMs ?? []),
          99,
        );
      const [oldP99, newP99] = [p99(a), p99(b)];
      entry.old_p99_ms = r3(oldP99);
      entry.new_p99_ms = r3(newP99);
      table.push([
        `${name}: p99 latency (all rounds, ms)`,
        String(r3(oldP99)),
        String(r3(newP99)),
        `${(newP99 / oldP99).toFixed(2)}×`,
        '',
        '',
      ]);
    }
    figures[name] = entry;
  }
  table.push([
    `(${sizes.rounds} rounds, ${sizes.windowS} s windows (open loop ${sizes.openLoopS} s at ${openLoopRatePerS}/s), A B then B A, half the rounds with each stack started first; CPU of the stack process without its dynalite worker thread; background timers pushed out of the windows)`,
  ]);
  return { table, figures };
}
