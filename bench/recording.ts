// Recording's cost: two Daily bots in Chromium through the local stack, side by side for the same meeting length, one
// started with recording.audio and one without, each in a room of the daily-js stand-in where two people talk in
// turn (espeak-ng speech played into their tracks, bench/talking-room-stub.ts). For each bot's process tree (the
// bot-task process and its Chromium) the CPU used, as a percentage of one vCPU, and its memory (sums of RSS and of
// PSS) over the meeting; the difference is what recording costs, against the targets of +10 % of one vCPU and
// +50 MiB. Side by side, so the machine's other load weighs on both bots alike.
import { stubbedDailyBots } from '../test/browser/daily-stub-module';
import { espeakWav } from '../test/support/espeak';
import { cpuMsByPid, processRole, sampleTree, type TreeSample, treeCpuMs } from './process-tree';
import type { Table } from './run';
import {
  type BenchAccount,
  type BenchOptions,
  botPid,
  percentile,
  verdict,
  waitFor,
  withBenchStack,
} from './support';
import type { TalkingScenario } from './talking-room-stub';

const sizes = {
  full: { warmupMs: 30_000, meetingMs: 600_000, sampleMs: 5_000 },
  quick: { warmupMs: 3_000, meetingMs: 20_000, sampleMs: 1_000 },
};
const targets = { cpu_points_of_one_vcpu: 10, memory_mib: 50 };
/** Launching two Chromiums on two shared cores: generous, so a slow run still yields figures. */
const joinWaitMs = 180_000;

interface TreeFigures {
  bot_id: string;
  processes: number;
  /** CPU time of the tree over the measured stretch, as a percentage of one vCPU. */
  cpu_percent_of_one_vcpu: number;
  cpu_ms: number;
  measured_s: number;
  /** Steady: the median of the readings; peak: the largest. */
  pss_mib: { steady: number; peak: number };
  rss_mib: { steady: number; peak: number };
  /** The CPU by kind of process (node, browser, renderer, gpu-process, utility:<service>), % of one vCPU. */
  cpu_percent_by_role: Record<string, number>;
  /** One point per tenth of the meeting: CPU over that stretch and PSS at its end (growth shows here). */
  series: { at_s: number; cpu_percent: number; pss_mib: number }[];
}

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const size = options.quick ? sizes.quick : sizes.full;
  const scenario: TalkingScenario = {
    present: [
      { id: 'p-ann', name: 'Ann' },
      { id: 'p-bob', name: 'Bob' },
    ],
    talk: {
      wavs: [
        espeakWav('Thanks for joining. Let us go through the plan for the next release, one item at a time.'),
        espeakWav(
          'Sure. The migration is done, the tests pass, and we ship the new API on Friday.',
          'en-us+m3',
        ),
      ].map((wav) => wav.toString('base64')),
      pauseMs: 1000,
    },
  };
  const daily = await stubbedDailyBots(scenario, '../../bench/talking-room-stub');
  try {
    return await withBenchStack(
      'recording',
      10_000,
      async (s, account) => {
        const [plain, recorded] = await Promise.all([
          join(s.baseUrl, account, 'plain', false),
          join(s.baseUrl, account, 'recorded', true),
        ]);
        const joined = async (botId: string) =>
          waitFor(async () => {
            const session = await s.deps.sessions.get(botId);
            if (session && session.status !== 'running' && !session.joinedAt)
              throw new Error(`bot ${botId} ended without joining: ${session.status}`);
            return session?.joinedAt;
          }, joinWaitMs);
        await Promise.all([joined(plain), joined(recorded)]);
        await new Promise((r) => setTimeout(r, size.warmupMs));

        const roots = { plain: botPid(s, plain), recorded: botPid(s, recorded) };
        const samples: Record<'plain' | 'recorded', TreeSample[]> = { plain: [], recorded: [] };
        const end = Date.now() + size.meetingMs;
        for (;;) {
          samples.plain.push(sampleTree(roots.plain));
          samples.recorded.push(sampleTree(roots.recorded));
          if (Date.now() >= end) break;
          await new Promise((r) => setTimeout(r, Math.min(size.sampleMs, Math.max(0, end - Date.now()))));
        }
        const still = await Promise.all([plain, recorded].map((id) => s.deps.sessions.get(id)));
        // Before they leave: the kind of each process is read from its command line.
        const without = figures(plain, samples.plain);
        const withRec = figures(recorded, samples.recorded);
        const leftEarly = still.filter((x) => x?.status !== 'running').map((x) => x?.botId);

        await Promise.all([plain, recorded].map((id) => leave(s.baseUrl, account, id)));
        const finished = await waitFor(async () => {
          const x = await s.deps.sessions.get(recorded);
          return x && x.status !== 'running' && (x.recordingFile || x.status === 'failed') && x;
        }, 60_000).catch(() => undefined);
        const file = finished?.recordingFile;
        const delta = {
          cpu_points_of_one_vcpu: round1(withRec.cpu_percent_of_one_vcpu - without.cpu_percent_of_one_vcpu),
          pss_steady_mib: round1(withRec.pss_mib.steady - without.pss_mib.steady),
          pss_peak_mib: round1(withRec.pss_mib.peak - without.pss_mib.peak),
          rss_steady_mib: round1(withRec.rss_mib.steady - without.rss_mib.steady),
          rss_peak_mib: round1(withRec.rss_mib.peak - without.rss_mib.peak),
        };
        const warnings = [
          ...(leftEarly.length ? [`bot(s) left before the end of the meeting: ${leftEarly.join(', ')}`] : []),
          ...(file ? [] : ['the recorded session has no recording file']),
        ];
        return {
          meeting_s: size.meetingMs / 1000,
          without_recording: without,
          with_recording: withRec,
          delta,
          targets,
          cpu_pass: delta.cpu_points_of_one_vcpu <= targets.cpu_points_of_one_vcpu,
          memory_pass: Math.max(delta.pss_steady_mib, delta.pss_peak_mib) <= targets.memory_mib,
          recording: file
            ? {
                duration_s: file.durationSeconds,
                size_bytes: file.sizeBytes,
                kbit_per_s: round1((file.sizeBytes * 8) / 1000 / file.durationSeconds),
                gaps: file.gaps.length,
              }
            : null,
          valid: warnings.length === 0,
          warnings,
          notes: [
            `Two bots at once, each in its own room of the daily-js stand-in (the page loads test/browser/daily-stub.ts wrapped by bench/talking-room-stub.ts) where Ann and Bob say an espeak-ng sentence (about 5 s) in turn with 1 s between turns, with remote audio levels every 200 ms; one bot was started with recording.audio (RECORDING_PIECE_MS default, pieces stored under the stack's DATA_DIR), the other without. Neither converses (no transcription arrives); Polly is unreachable, so the recording notice is not spoken.`,
            `Measured after ${size.warmupMs / 1000} s in the room, for ${size.meetingMs / 1000} s, reading every ${size.sampleMs / 1000} s the bot-task process and its descendants (Chromium's browser, GPU, utility and renderer processes): CPU = user + system time of the tree over the stretch / its wall time; memory = the sum of the processes' RSS (shared pages counted in each) and of their PSS (shared pages divided out; the two bots' Chromiums share library pages, so each tree's PSS is lower than a lone bot's). Steady = the median reading, peak = the largest.`,
            'Not measured here: decoding the participants’ WebRTC audio (in the stand-in their tracks come from the page itself), which a bot pays with or without recording.',
          ],
        };
      },
      { ...daily.env, LOG_LEVEL: 'warn' },
    );
  } finally {
    daily.close();
  }
}

async function join(
  baseUrl: string,
  { apiKey }: BenchAccount,
  name: string,
  record: boolean,
): Promise<string> {
  const res = await fetch(`${baseUrl}/api/bot/join`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      provider: 'daily',
      room_url: `https://bench.daily.co/${name}`,
      bot_config: { name: 'Scribe' },
      ...(record && { recording: { audio: true } }),
    }),
  });
  if (res.status !== 201) throw new Error(`join: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { bot_id: string }).bot_id;
}

async function leave(baseUrl: string, { apiKey }: BenchAccount, botId: string): Promise<void> {
  await fetch(`${baseUrl}/v1/bots/leave/${botId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
  });
}

function figures(botId: string, samples: TreeSample[]): TreeFigures {
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const wallMs = Math.max(1, last.at - first.at);
  const cpuMs = treeCpuMs(samples);
  const pss = samples.map((x) => x.pssKb / 1024);
  const rss = samples.map((x) => x.rssKb / 1024);
  const byRole: Record<string, number> = {};
  for (const [pid, ms] of cpuMsByPid(samples)) {
    if (!ms) continue;
    const role = processRole(pid);
    byRole[role] = round1((byRole[role] ?? 0) + (ms / wallMs) * 100);
  }
  const series: TreeFigures['series'] = [];
  const step = Math.max(1, Math.floor((samples.length - 1) / 10));
  for (let i = step; i < samples.length; i += step) {
    const stretch = samples.slice(i - step, i + 1);
    const ms = Math.max(1, samples[i]!.at - samples[i - step]!.at);
    series.push({
      at_s: Math.round((samples[i]!.at - first.at) / 1000),
      cpu_percent: round1((treeCpuMs(stretch) / ms) * 100),
      pss_mib: round1(pss[i]!),
    });
  }
  return {
    bot_id: botId,
    processes: last.cpuMs.size,
    cpu_percent_of_one_vcpu: round1((cpuMs / wallMs) * 100),
    cpu_ms: cpuMs,
    cpu_percent_by_role: byRole,
    measured_s: Math.round(wallMs / 1000),
    pss_mib: { steady: round1(percentile(pss, 50)), peak: round1(Math.max(...pss)) },
    rss_mib: { steady: round1(percentile(rss, 50)), peak: round1(Math.max(...rss)) },
    series,
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as {
    meeting_s: number;
    without_recording: TreeFigures;
    with_recording: TreeFigures;
    delta: Record<string, number>;
    cpu_pass: boolean;
    memory_pass: boolean;
    recording: { duration_s: number; size_bytes: number; kbit_per_s: number; gaps: number } | null;
  };
  const a = r.without_recording;
  const b = r.with_recording;
  const d = r.delta;
  return [
    [`bot process tree, ${r.meeting_s} s meeting`, 'without', 'with', 'delta', 'target'],
    [
      'CPU (% of one vCPU)',
      String(a.cpu_percent_of_one_vcpu),
      String(b.cpu_percent_of_one_vcpu),
      String(d.cpu_points_of_one_vcpu),
      `≤ +${targets.cpu_points_of_one_vcpu} ${verdict(r.cpu_pass, options)}`,
    ],
    [
      'PSS steady / peak (MiB)',
      `${a.pss_mib.steady} / ${a.pss_mib.peak}`,
      `${b.pss_mib.steady} / ${b.pss_mib.peak}`,
      `${d.pss_steady_mib} / ${d.pss_peak_mib}`,
      `≤ +${targets.memory_mib} ${verdict(r.memory_pass, options)}`,
    ],
    [
      'RSS sum steady / peak (MiB)',
      `${a.rss_mib.steady} / ${a.rss_mib.peak}`,
      `${b.rss_mib.steady} / ${b.rss_mib.peak}`,
      `${d.rss_steady_mib} / ${d.rss_peak_mib}`,
      '',
    ],
    ['processes', String(a.processes), String(b.processes), '', ''],
    ...[...new Set([...Object.keys(a.cpu_percent_by_role), ...Object.keys(b.cpu_percent_by_role)])].flatMap(
      (role) => {
        const x = a.cpu_percent_by_role[role] ?? 0;
        const y = b.cpu_percent_by_role[role] ?? 0;
        // Processes that used no measurable CPU in either tree are left out.
        return x || y ? [[`  CPU of ${role}`, String(x), String(y), String(round1(y - x)), '']] : [];
      },
    ),
    [
      r.recording
        ? `recording: ${r.recording.duration_s} s, ${r.recording.size_bytes} bytes (${r.recording.kbit_per_s} kb/s), ${r.recording.gaps} gap(s)`
        : 'recording: none',
    ],
  ];
}
