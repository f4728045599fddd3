// Replacement time: a bot in a local room with a person in it is lost again and again — SIGKILL (a
// crash) and SIGTERM (the platform taking the machine back) — and each time a replacement with the same bot_id
// rejoins. Measured: loss → replacement in the room (the session's replacement joined_at), p50/p95, through the
// local stack's real path (runner exit → task-stopped → control queue → replace_bot → new bot process → join).
// Between losses a participant says a numbered line; at the end each must be in the transcript exactly once.
import type { BotSession } from '../core/bots/session';
import type { Table } from './run';
import { type BenchOptions, percentile, verdict, waitFor, withBenchStack } from './support';

const targetP95Ms = 10_000;

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const kills = options.quick ? 3 : 20;
  const terms = options.quick ? 1 : 5;
  const losses = kills + terms;
  return withBenchStack(
    'replacement',
    1000,
    async (s, { apiKey }) => {
      const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const room = s.rooms.createRoom('replacement', false);
      s.rooms.addScripted(room, { name: 'Ann', lines: [], leave_at_ms: 3_600_000 });
      const res = await fetch(`${s.baseUrl}/api/bot/join`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          provider: 'local',
          room_url: `${s.baseUrl}/rooms/replacement`,
          bot_config: { name: 'Scribe', max_duration_seconds: 3600 },
        }),
      });
      if (res.status !== 201) throw new Error(`join: ${res.status} ${await res.text()}`);
      const { bot_id: botId } = (await res.json()) as { bot_id: string };
      await waitFor(() => room.participants.some((p) => p.kind === 'bot'), 30_000);
      const session = async () => (await s.deps.sessions.get(botId)) as BotSession;
      const transcript = async () => {
        const r = await fetch(`${s.baseUrl}/api/bot/${botId}/status`, { headers: auth });
        return ((await r.json()) as { transcript: string | null }).transcript ?? '';
      };

      const lossToInRoom: Record<'SIGKILL' | 'SIGTERM', number[]> = { SIGKILL: [], SIGTERM: [] };
      const plan: ('SIGKILL' | 'SIGTERM')[] = [
        ...Array.from({ length: kills }, () => 'SIGKILL' as const),
        ...Array.from({ length: terms }, () => 'SIGTERM' as const),
      ];
      for (const [n, signal] of plan.entries()) {
        // A line said before this loss, saved before the bot is lost.
        const marker = `Marker line ${n + 1}.`;
        s.rooms.addScripted(room, {
          name: `Guest ${n + 1}`,
          lines: [{ say: marker, at_ms: 10 }],
          leave_at_ms: 200,
        });
        await waitFor(async () => (await transcript()).includes(marker), 15_000);
        const lostAt = Date.now();
        if (!s.runner.signal(botId, signal)) throw new Error(`no bot process to ${signal}`);
        const joinedAt = await waitFor(async () => (await session()).replacements?.[n]?.joinedAt, 60_000);
        lossToInRoom[signal].push(Date.parse(joinedAt) - lostAt);
        // The bot it replaced is gone before the next loss (a SIGTERM'd one leaves once the replacement is in).
        await waitFor(() => room.participants.filter((p) => p.kind === 'bot').length === 1, 30_000);
      }
      const last = `Marker line ${plan.length + 1}.`;
      s.rooms.addScripted(room, { name: 'Last guest', lines: [{ say: last, at_ms: 10 }], leave_at_ms: 200 });
      await waitFor(async () => (await transcript()).includes(last), 15_000);
      await fetch(`${s.baseUrl}/v1/bots/leave/${botId}`, { method: 'POST', headers: auth });
      const final = await waitFor(async () => {
        const r = await fetch(`${s.baseUrl}/api/bot/${botId}/status`, { headers: auth });
        const body = (await r.json()) as { status: string; transcript: string; replacements: unknown[] };
        return body.status !== 'running' && body;
      }, 60_000);
      const lines = final.transcript.split('\n');
      const markers = Array.from({ length: plan.length + 1 }, (_, i) => `Marker line ${i + 1}.`);
      const missing = markers.filter((m) => !lines.some((l) => l.endsWith(`: ${m}`)));
      const twice = markers.filter((m) => lines.filter((l) => l.endsWith(`: ${m}`)).length > 1);
      const all = [...lossToInRoom.SIGKILL, ...lossToInRoom.SIGTERM];
      const p95 = percentile(lossToInRoom.SIGKILL, 95);
      return {
        kills,
        sigterms: terms,
        sigkill_loss_to_in_room_ms: {
          p50: percentile(lossToInRoom.SIGKILL, 50),
          p95,
          max: Math.max(...lossToInRoom.SIGKILL),
        },
        sigterm_loss_to_in_room_ms: {
          p50: percentile(lossToInRoom.SIGTERM, 50),
          p95: percentile(lossToInRoom.SIGTERM, 95),
          max: Math.max(...lossToInRoom.SIGTERM),
        },
        all_ms: all,
        target_p95_ms: targetP95Ms,
        meets_target: p95 <= targetP95Ms,
        final_status: final.status,
        replacements_recorded: final.replacements.length,
        marker_lines: markers.length,
        marker_lines_missing: missing.length,
        marker_lines_twice: twice.length,
        valid: final.status === 'completed' && missing.length === 0 && twice.length === 0,
        notes: [
          'One bot in one local room with a person who stays; before each loss a guest says a numbered line (saved first), then the bot process gets the signal. Loss → in the room: from the signal to the replacement’s joined_at on the session.',
          'SIGKILL path: the runner sees the exit → task-stopped → replace_bot on the control queue (1 s long poll) → a new bot process (Node start, DynamoDB read, join). SIGTERM path: the bot asks for its replacement itself and leaves once it is in.',
          `MAX_REPLACEMENTS raised to ${losses} for the run (2 by default).`,
        ],
      };
    },
    { MAX_REPLACEMENTS: String(losses), STOP_POLL_MS: '100', HEARTBEAT_MS: '1000' },
  );
}

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as {
    kills: number;
    sigterms: number;
    sigkill_loss_to_in_room_ms: { p50: number; p95: number; max: number };
    sigterm_loss_to_in_room_ms: { p50: number; p95: number; max: number };
    meets_target: boolean;
    marker_lines: number;
    marker_lines_missing: number;
    marker_lines_twice: number;
    valid: boolean;
  };
  const k = r.sigkill_loss_to_in_room_ms;
  const t = r.sigterm_loss_to_in_room_ms;
  return [
    ['loss', 'count', 'p50 ms', 'p95 ms', 'max ms', 'target'],
    [
      'SIGKILL',
      String(r.kills),
      String(k.p50),
      String(k.p95),
      String(k.max),
      `p95 ≤ ${targetP95Ms} ms: ${verdict(r.meets_target, options)}`,
    ],
    ['SIGTERM', String(r.sigterms), String(t.p50), String(t.p95), String(t.max), ''],
    [
      `transcript: ${r.marker_lines} numbered lines, ${r.marker_lines_missing} missing, ${r.marker_lines_twice} twice (${r.valid ? 'valid' : 'INVALID'})`,
    ],
  ];
}
