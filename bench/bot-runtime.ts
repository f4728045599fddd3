// Bot runtime: 20 concurrent bots in one local room — join latency (join request → bot in the room), stop latency
// (leave request → bot out of the room), peak RSS of each bot-task process, and whether any failed.
import { readFileSync } from 'node:fs';
import type { Table } from './run';
import { type BenchOptions, botPid, percentile, verdict, waitFor, withBenchStack } from './support';

const sizes = { full: { bots: 20, solo: 5 }, quick: { bots: 3, solo: 1 } };
const targets = { stop_p95_ms: 1000, stop_spec_limit_ms: 5000 };

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const { bots, solo } = options.quick ? sizes.quick : sizes.full;
  return withBenchStack('bot-runtime', 10_000, async (s, { apiKey }) => {
    const room = s.rooms.createRoom('bench-room', false);
    // Someone stays in the room so no bot leaves for participant_left.
    s.rooms.addScripted(room, { name: 'Host', lines: [] });
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };

    const names = Array.from({ length: bots }, (_, i) => `Bench bot ${i + 1}`);
    const joinedAt = (name: string) => room.log.find((e) => e.type === 'joined' && e.name === name);
    const leftAt = (name: string) => room.log.find((e) => e.type === 'left' && e.name === name);

    // One at a time first: the latency of a single join and stop on an otherwise idle stack.
    const singleJoin: number[] = [];
    const singleStop: number[] = [];
    for (let i = 0; i < solo; i++) {
      const name = `Solo bot ${i + 1}`;
      const t0 = Date.now();
      const res = await fetch(`${s.baseUrl}/api/bot/join`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          provider: 'local',
          room_url: `${s.baseUrl}/rooms/bench-room`,
          bot_config: { name },
        }),
      });
      const { bot_id } = (await res.json()) as { bot_id: string };
      await waitFor(() => Boolean(joinedAt(name)), 30_000);
      singleJoin.push(Date.parse(joinedAt(name)!.at) - t0);
      await new Promise((r) => setTimeout(r, 300));
      const t1 = Date.now();
      await fetch(`${s.baseUrl}/v1/bots/leave/${bot_id}`, { method: 'POST', headers });
      await waitFor(() => Boolean(leftAt(name)), 30_000);
      singleStop.push(Date.parse(leftAt(name)!.at) - t1);
    }

    // Then all at once, as a burst.
    const started = await Promise.all(
      names.map(async (name) => {
        const t0 = Date.now();
        const res = await fetch(`${s.baseUrl}/api/bot/join`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            provider: 'local',
            room_url: `${s.baseUrl}/rooms/bench-room`,
            bot_config: { name },
          }),
        });
        if (res.status !== 201) throw new Error(`join ${res.status}: ${await res.text()}`);
        const { bot_id } = (await res.json()) as { bot_id: string };
        return { name, botId: bot_id, t0 };
      }),
    );
    await waitFor(() => started.every((b) => joinedAt(b.name)), 60_000);
    const joinMs = started.map((b) => Date.parse(joinedAt(b.name)!.at) - b.t0);

    // Let every bot settle into its steady state, then read each process's peak RSS.
    await new Promise((r) => setTimeout(r, 2000));
    const rss: number[] = [];
    for (const b of started) rss.push(peakRssMiB(botPid(s, b.botId)));

    // Stop: all at once.
    const stops = await Promise.all(
      started.map(async (b) => {
        const t0 = Date.now();
        const res = await fetch(`${s.baseUrl}/v1/bots/leave/${b.botId}`, { method: 'POST', headers });
        if (res.status !== 202) throw new Error(`leave ${res.status}`);
        return { ...b, stopT0: t0 };
      }),
    );
    await waitFor(() => stops.every((b) => leftAt(b.name)), 30_000);
    const stopMs = stops.map((b) => Date.parse(leftAt(b.name)!.at) - b.stopT0);

    await waitFor(async () => {
      const sessions = await Promise.all(stops.map((b) => s.deps.sessions.get(b.botId)));
      return sessions.every((x) => x?.status !== 'running');
    }, 30_000);
    const outcomes = await Promise.all(stops.map((b) => s.deps.sessions.get(b.botId)));
    const failures = outcomes.filter(
      (o) => o?.status !== 'completed' || o.exitReason !== 'force_leave',
    ).length;

    return {
      bots,
      provider: 'local',
      join_latency_single_ms: summary(singleJoin),
      stop_latency_single_ms: summary(singleStop),
      join_latency_ms: summary(joinMs),
      stop_latency_ms: summary(stopMs),
      stop_targets: targets,
      stop_p95_pass: percentile(stopMs, 95) <= targets.stop_p95_ms,
      bot_task_peak_rss_mib: summary(rss),
      concurrent_bots_failed: failures,
      notes: [
        `join latency: join request sent → the bot appears in the local room (spawning node on the bot bundle included); *_single: one bot at a time, ${solo} runs; the others: ${bots} bots started at once.`,
        'stop latency: leave request sent → the bot is out of the room (room log); STOP_POLL_MS 500 and SIGTERM.',
        "peak RSS: VmHWM of each bot-task process (local provider) after 2 s in the room; the process is the local task runner's child for the bot id (the session does not record a task id).",
      ],
      daily_adapter: await dailyAdapterRss(),
    };
  });
}

/** Peak RSS of one bot-task with the Daily adapter: its Node process and its Chromium, against the stub. */
async function dailyAdapterRss(): Promise<Record<string, unknown>> {
  const { spawn } = await import('node:child_process');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./daily-rss-probe.ts', import.meta.url).pathname],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) return { error: `probe exited with ${code}`, output: out.slice(-500) };
  return JSON.parse(out.trim().split('\n').pop()!);
}

export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

function summary(values: number[]) {
  return {
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    max: Math.max(...values),
    min: Math.min(...values),
    n: values.length,
  };
}

/** A table row of a latency or size summary: p50, p95, max. */
const row = (label: string, f: { p50: number; p95: number; max: number }, target: string) => [
  label,
  String(f.p50),
  String(f.p95),
  String(f.max),
  target,
];

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as {
    bots: number;
    join_latency_single_ms: ReturnType<typeof summary>;
    stop_latency_single_ms: ReturnType<typeof summary>;
    join_latency_ms: ReturnType<typeof summary>;
    stop_latency_ms: ReturnType<typeof summary>;
    bot_task_peak_rss_mib: ReturnType<typeof summary>;
    concurrent_bots_failed: number;
    stop_p95_pass: boolean;
    daily_adapter: Record<string, number | string>;
  };
  const daily = r.daily_adapter;
  return [
    ['figure', 'p50', 'p95', 'max', 'target'],
    row('one bot: join → in room (ms)', r.join_latency_single_ms, ''),
    row('one bot: leave → out (ms)', r.stop_latency_single_ms, ''),
    row(`${r.bots} at once: join → in room (ms)`, r.join_latency_ms, ''),
    row(
      `${r.bots} at once: leave → out (ms)`,
      r.stop_latency_ms,
      `p95 ≤ 1000 ${verdict(r.stop_p95_pass, options)}`,
    ),
    row('bot-task peak RSS, local (MiB)', r.bot_task_peak_rss_mib, ''),
    daily.error === undefined
      ? [
          'daily adapter: node / chromium RSS (MiB)',
          String(daily.node_peak_rss_mib),
          String(daily.chromium_rss_mib),
          '',
          '',
        ]
      : [`daily adapter: no figures (${String(daily.error)})`],
    [`${r.bots} concurrent bots, failures: ${r.concurrent_bots_failed}`],
  ];
}
