// Storage: DynamoDB read and write units per bot-hour for a 30-minute and a 3-hour meeting, measured from the
// ConsumedCapacity DynamoDB (here dynalite) returns for every call. The meeting's storage traffic is driven through
// the real code on a virtual clock: the bot's transcript recorder, stop poll and heartbeat, a client polling the
// status view, the leave, the results stage and a last read of the finished transcript. Linear storage means the
// 3-hour meeting costs about what the 30-minute one does per hour (docs/operations.md, "Cost model").
import { beat, JoinTimes } from '../bot-task/heartbeat';
import { TranscriptRecorder } from '../bot-task/transcript-recorder';
import { captureClientsWith } from '../core/adapters/aws-clients';
import { loadConfig } from '../core/config';
import { createLogger } from '../core/log';
import type { LocalStack } from '../local/stack';
import type { Table } from './run';
import { type BenchAccount, type BenchOptions, verdict, waitFor, withBenchStack } from './support';

/** The target: units per bot-hour of the 3-hour meeting at most this many times the 30-minute one's. */
const maxRatio = 3.3;
/** One final utterance every 6 s (about 150 words a minute in lines of 15 words), each saved as its own segment. */
const utteranceEveryMs = 6_000;
/** A client following the bot polls its status every 10 s. */
const statusPollEveryMs = 10_000;
/** US East on-demand prices per million request units (2024-11), for the cost column only. */
const usdPerMillion = { read: 0.125, write: 0.625 };

interface Units {
  read: number;
  write: number;
  calls: number;
}

/** Sums ConsumedCapacity of every DynamoDB call while `on` (each call asks for it: ReturnConsumedCapacity TOTAL). */
const meter = { on: false, units: { read: 0, write: 0, calls: 0 } as Units };
const dataCommands = new Set([
  'GetItemCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'BatchWriteItemCommand',
]);
const readCommands = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand']);

function installMeter(): void {
  captureClientsWith((client) => {
    const stack = (client as { middlewareStack?: { add: (m: unknown, o: unknown) => void } }).middlewareStack;
    stack?.add(
      (
        next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>,
        context: { clientName?: string; commandName?: string },
      ) =>
        async (args: { input: Record<string, unknown> }) => {
          const command = context.commandName ?? '';
          if (context.clientName !== 'DynamoDBClient' || !dataCommands.has(command)) return next(args);
          args.input.ReturnConsumedCapacity = 'TOTAL';
          const result = await next(args);
          if (meter.on) {
            const consumed = result.output.ConsumedCapacity as
              | { CapacityUnits?: number }
              | { CapacityUnits?: number }[]
              | undefined;
            if (consumed === undefined) throw new Error(`${command} returned no ConsumedCapacity`);
            const units = (Array.isArray(consumed) ? consumed : [consumed]).reduce(
              (sum, c) => sum + (c.CapacityUnits ?? 0),
              0,
            );
            meter.units[readCommands.has(command) ? 'read' : 'write'] += units;
            meter.units.calls++;
          }
          return result;
        },
      { step: 'initialize', name: 'consumedCapacityMeter' },
    );
    return client;
  });
}

/** The units `fn` consumed. */
async function measured(fn: () => Promise<void>): Promise<Units> {
  meter.units = { read: 0, write: 0, calls: 0 };
  meter.on = true;
  try {
    await fn();
  } finally {
    meter.on = false;
  }
  return { ...meter.units };
}

const words =
  'we could ship the first part on friday if the review goes well and the tests stay green next week'.split(
    ' ',
  );

/** A line of about 15 words, as a participant or the bot says it. */
function utterance(n: number, at: number) {
  const speaker = ['Ada', 'Ben', 'Scribe'][n % 3]!;
  const text = Array.from({ length: 15 }, (_, i) => words[(n * 7 + i) % words.length]).join(' ');
  return {
    speaker,
    participant_id: `p-${speaker.toLowerCase()}`,
    started_at: new Date(at).toISOString(),
    text: `${text[0]!.toUpperCase()}${text.slice(1)}.`,
    ...(speaker === 'Scribe' && { is_bot: true }),
  };
}

interface MeetingResult {
  minutes: number;
  utterances: number;
  status_polls: number;
  stop_polls: number;
  heartbeats: number;
  /** Units by phase: the meeting (bot and status polls), the end (leave, results, the final reads). */
  units: { meeting: Units; end: Units; total: Units };
  per_bot_hour: { read: number; write: number; usd: number };
}

async function meeting(s: LocalStack, account: BenchAccount, minutes: number): Promise<MeetingResult> {
  const config = loadConfig({});
  const auth = { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' };
  const res = await fetch(`${s.baseUrl}/api/bot/join`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ provider: 'local', room_url: `${s.baseUrl}/rooms/storage` }),
  });
  if (res.status !== 201) throw new Error(`join: ${res.status} ${await res.text()}`);
  const { bot_id: botId } = (await res.json()) as { bot_id: string };
  const log = createLogger('silent');
  const recorder = new TranscriptRecorder(botId, s.deps, 60_000, log, 0);
  const heartbeat = { sessions: s.deps.sessions, log, joinTimes: new JoinTimes() };
  const start = Date.now();
  const durationMs = minutes * 60_000;
  // The API's caches run on the meeting's clock: a running session is reused STATUS_CACHE_TTL_MS of meeting time.
  let virtualMs = start;
  const realNow = s.deps.now;
  s.deps.now = () => new Date(virtualMs);
  const counts = { utterances: 0, status: 0, stop: 0, heartbeats: 0 };
  const status = async () => {
    const r = await fetch(`${s.baseUrl}/api/bot/${botId}/status`, { headers: auth });
    if (r.status !== 200) throw new Error(`status: ${r.status} ${await r.text()}`);
    return (await r.json()) as { status: string; transcript: string | null };
  };
  try {
    const during = await measured(async () => {
      for (let t = 0; t < durationMs; t += config.STOP_POLL_MS) {
        virtualMs = start + t;
        if (await s.deps.sessions.stopRequested(botId)) throw new Error('stop requested mid-meeting');
        counts.stop++;
        if (t % config.HEARTBEAT_MS === 0) {
          await beat(heartbeat, botId, new Date(virtualMs));
          counts.heartbeats++;
        }
        if (t % utteranceEveryMs === 0) {
          recorder.add(utterance(counts.utterances++, virtualMs));
          await recorder.flush();
        }
        if (t % statusPollEveryMs === 0) {
          await status();
          counts.status++;
        }
      }
    });
    const end = await measured(async () => {
      virtualMs = start + durationMs;
      const leave = await fetch(`${s.baseUrl}/v1/bots/leave/${botId}`, { method: 'POST', headers: auth });
      if (leave.status !== 202) throw new Error(`leave: ${leave.status}`);
      await recorder.stop();
      await s.deps.sessions.updateRunning(botId, {
        exitReason: 'force_leave',
        leftAt: new Date(virtualMs).toISOString(),
      });
      await s.outbox.send({
        kind: 'session_ended',
        bot_id: botId,
        exit_reason: 'force_leave',
        left_at: new Date(virtualMs).toISOString(),
      });
      // Waited for in memory (not by polling the status, which would meter the machine's speed), then read once.
      await waitFor(
        () => s.messagesSeen.some((m) => m.kind === 'session_ended' && m.bot_id === botId),
        120_000,
      );
      virtualMs += 60_000;
      const done = await status();
      if (done.status !== 'completed') throw new Error(`the session is ${done.status} after its results`);
      const lines = done.transcript?.split('\n').length ?? 0;
      if (lines !== counts.utterances)
        throw new Error(`the transcript has ${lines} of ${counts.utterances} lines`);
    });
    const total = {
      read: during.read + end.read,
      write: during.write + end.write,
      calls: during.calls + end.calls,
    };
    const hours = minutes / 60;
    const read = total.read / hours;
    const write = total.write / hours;
    return {
      minutes,
      utterances: counts.utterances,
      status_polls: counts.status,
      stop_polls: counts.stop,
      heartbeats: counts.heartbeats,
      units: { meeting: round(during), end: round(end), total: round(total) },
      per_bot_hour: {
        read: Math.round(read),
        write: Math.round(write),
        usd: Math.round(((read * usdPerMillion.read + write * usdPerMillion.write) / 1e6) * 1e6) / 1e6,
      },
    };
  } finally {
    s.deps.now = realNow;
  }
}

function round(u: Units): Units {
  return { read: Math.round(u.read * 10) / 10, write: Math.round(u.write * 10) / 10, calls: u.calls };
}

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  installMeter();
  // Quick: the same two meetings at a tenth of their length (the ratio is what is checked).
  const scale = options.quick ? 0.1 : 1;
  const [short, long] = [30 * scale, 180 * scale];
  try {
    return await withBenchStack(
      'storage',
      1000,
      async (s, account) => {
        // No bot processes: this process plays the bot's storage part, so every call is metered here.
        s.deps.runner = { start: async (botId) => ({ taskRef: `storage:${botId}` }), stop: async () => {} };
        const a = await meeting(s, account, short);
        const b = await meeting(s, account, long);
        const ratio = {
          read: Math.round((b.per_bot_hour.read / a.per_bot_hour.read) * 100) / 100,
          write: Math.round((b.per_bot_hour.write / a.per_bot_hour.write) * 100) / 100,
        };
        return {
          valid: true,
          meetings: { short: a, long: b },
          ratio_long_to_short_per_hour: ratio,
          max_ratio: maxRatio,
          meets_target: ratio.read <= maxRatio && ratio.write <= maxRatio,
          notes: [
            `Units from the ConsumedCapacity dynalite returns for each call (ReturnConsumedCapacity TOTAL), computed from item sizes as DynamoDB does: a write 1 unit per KB (rounded up) of the larger of the old and new item, a read 1 unit per 4 KB (a Query per 4 KB of all items read), half for an eventually consistent read. Not counted: index writes (the running index is keys-only, written at the join and the end) and failed conditional writes (none in a meeting).`,
            `Per meeting: one line every ${utteranceEveryMs / 1000} s (15 words, one segment each), the stop poll every STOP_POLL_MS (500 ms), the heartbeat every HEARTBEAT_MS (15 s), the status view polled every ${statusPollEveryMs / 1000} s, then the leave, the results stage (local insights) and one status read of the completed session.`,
            `Cost at on-demand prices of $${usdPerMillion.read} per million read and $${usdPerMillion.write} per million write units (us-east-1, 2024-11).`,
          ],
        };
      },
      // No sweep and no key re-reads on the stack's own clock: the meeting's traffic is what is measured.
      { HEARTBEAT_MS: '3600000', KEY_CACHE_TTL_MS: '86400000' },
    );
  } finally {
    captureClientsWith((client) => client);
  }
}

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as {
    meetings: Record<'short' | 'long', MeetingResult>;
    ratio_long_to_short_per_hour: { read: number; write: number };
    meets_target: boolean;
  };
  const row = (m: MeetingResult) => [
    `${m.minutes} min`,
    String(m.utterances),
    String(m.units.total.calls),
    String(m.units.total.read),
    String(m.units.total.write),
    String(m.per_bot_hour.read),
    String(m.per_bot_hour.write),
    `$${m.per_bot_hour.usd}`,
  ];
  return [
    ['meeting', 'lines', 'calls', 'RRU', 'WRU', 'RRU/bot-h', 'WRU/bot-h', 'cost/bot-h'],
    row(r.meetings.short),
    row(r.meetings.long),
    [
      `per bot-hour, long ÷ short: reads ${r.ratio_long_to_short_per_hour.read}×, writes ${r.ratio_long_to_short_per_hour.write}× (≤ ${maxRatio}×: ${verdict(r.meets_target, options)})`,
    ],
  ];
}
