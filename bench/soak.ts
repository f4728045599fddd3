// Soak: bots one after another through one local stack (join a fresh local room with a scripted
// participant, who talks and leaves; the bot leaves with them; wait for completed and its e-mail), measuring the
// stack process's memory at the start, after warm-up and at the end, plus what the bounded local stores hold.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Table } from './run';
import { type BenchOptions, waitFor, withBenchStack } from './support';

/** Idle rooms expire after 10 minutes in normal use; shortened here so expiry shows within the run. */
const soakRoomIdleTtlMs = 2000;

/** A full GC before measuring, so heap figures are live data rather than garbage not yet collected. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

interface Snapshot {
  after_bots: number;
  rss_mib: number;
  heap_used_mib: number;
  mails_stored: number;
  rooms: number;
  scripted_timers: number;
}

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const bots = options.quick ? 10 : 200;
  const warmup = options.quick ? 3 : 20;
  return withBenchStack(
    'soak',
    bots * 10,
    async (s, { apiKey }) => {
      s.rooms.limits.idleTtlMs = soakRoomIdleTtlMs;
      const mails = async () =>
        ((await (await fetch(`${s.sesEndpoint}/store`)).json()) as { emails: unknown[] }).emails.length;
      const snapshot = async (afterBots: number): Promise<Snapshot> => {
        collectGarbage();
        const m = process.memoryUsage();
        return {
          after_bots: afterBots,
          rss_mib: mib(m.rss),
          heap_used_mib: mib(m.heapUsed),
          mails_stored: await mails(),
          rooms: s.rooms.rooms.size,
          scripted_timers: s.rooms.pendingTimers(),
        };
      };
      const start = await snapshot(0);
      let warm: Snapshot | undefined;
      const series: Snapshot[] = [];
      const durations: number[] = [];
      let failures = 0;
      const t0 = Date.now();
      for (let i = 1; i <= bots; i++) {
        const started = Date.now();
        const name = `soak-${i}`;
        const room = s.rooms.createRoom(name, false);
        const res = await fetch(`${s.baseUrl}/api/bot/join`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            provider: 'local',
            room_url: `${s.baseUrl}/rooms/${name}`,
            email: `soak${i}@example.com`,
            bot_config: { name: 'Soak bot' },
          }),
        });
        if (res.status !== 201) throw new Error(`join ${i}: ${res.status} ${await res.text()}`);
        const { bot_id } = (await res.json()) as { bot_id: string };
        await waitFor(() => room.participants.some((p) => p.kind === 'bot'), 30_000);
        s.rooms.addScripted(room, {
          name: `Guest ${i}`,
          lines: [
            { say: 'Hello, this is a soak test.', at_ms: 50 },
            { say: 'We ship on Friday.', at_ms: 250 },
          ],
          answers: [{ say: 'That is all from me.', delay_ms: 100 }],
          leave_at_ms: 600,
        });
        const status = await waitFor(async () => {
          const r = await fetch(`${s.baseUrl}/api/bot/${bot_id}/status`, {
            headers: { authorization: `Bearer ${apiKey}` },
          });
          const body = (await r.json()) as { status: string };
          return ['completed', 'failed'].includes(body.status) && body.status;
        }, 60_000);
        if (status !== 'completed') failures++;
        durations.push(Date.now() - started);
        if (i === warmup) warm = await snapshot(i);
        if (i % Math.max(1, Math.floor(bots / 10)) === 0) series.push(await snapshot(i));
      }
      const seconds = (Date.now() - t0) / 1000;
      // The last mails go out through the delivery queue after completion; give them a moment.
      await waitFor(async () => (await mails()) >= Math.min(bots, 500), 15_000).catch(() => undefined);
      const end = await snapshot(bots);
      return {
        bots,
        failures,
        valid: failures === 0,
        seconds: Math.round(seconds),
        per_bot_s: Math.round((seconds / bots) * 10) / 10,
        rss_mib: { start: start.rss_mib, after_warmup: warm?.rss_mib, end: end.rss_mib },
        heap_used_mib: {
          start: start.heap_used_mib,
          after_warmup: warm?.heap_used_mib,
          end: end.heap_used_mib,
        },
        rss_growth_after_warmup_mib: warm ? round1(end.rss_mib - warm.rss_mib) : null,
        heap_growth_after_warmup_mib: warm ? round1(end.heap_used_mib - warm.heap_used_mib) : null,
        mails_stored: end.mails_stored,
        rooms_at_end: end.rooms,
        scripted_timers_at_end: end.scripted_timers,
        warmup_bots: warmup,
        snapshots: [start, ...series, end],
        notes: [
          'One bot at a time, each in its own new local room with a scripted guest who speaks two lines, answers once and leaves at 600 ms; the bot leaves with them (participant_left) and e-mails its results.',
          `Memory is the stack process's (API, dynalite worker, fauxqs, local SES, room server and task runner share it), after a full GC; room idle expiry shortened to ${soakRoomIdleTtlMs} ms for the run (10 min by default); the SES store keeps the newest 500 mails.`,
        ],
      };
    },
    { END_OF_TURN_SILENCE_MS: '150', LOCAL_SPEECH_MS_PER_CHAR: '1', STOP_POLL_MS: '100' },
  );
}

const mib = (bytes: number) => round1(bytes / 2 ** 20);
const round1 = (n: number) => Math.round(n * 10) / 10;

export function table(result: Record<string, unknown>): Table {
  const r = result as {
    bots: number;
    failures: number;
    per_bot_s: number;
    rss_mib: { start: number; after_warmup?: number; end: number };
    heap_used_mib: { start: number; after_warmup?: number; end: number };
    mails_stored: number;
    rooms_at_end: number;
    scripted_timers_at_end: number;
  };
  const three = (v: { start: number; after_warmup?: number; end: number }) =>
    `${v.start} / ${v.after_warmup ?? '-'} / ${v.end}`;
  return [
    ['figure', 'value'],
    ['bots (one after another) / failures', `${r.bots} / ${r.failures}`],
    ['seconds per bot', String(r.per_bot_s)],
    ['stack RSS start / after warm-up / end (MiB)', three(r.rss_mib)],
    ['heap used start / after warm-up / end (MiB)', three(r.heap_used_mib)],
    ['mails stored (cap 500)', String(r.mails_stored)],
    ['rooms at the end (cap 200)', String(r.rooms_at_end)],
    ['scripted participants’ timers pending at the end', String(r.scripted_timers_at_end)],
  ];
}
