// Conversation: time from a participant's final utterance to the bot's first reply word (local engine, default
// END_OF_TURN_SILENCE_MS included), and the bot-task's CPU share while it converses.
import { readFileSync } from 'node:fs';
import type { Table } from './run';
import { type BenchOptions, botPid, percentile, verdict, waitFor, withBenchStack } from './support';

const target = { reply_p95_ms: 800 };

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const questions = options.quick ? 3 : 12;
  return withBenchStack('conversation', 1000, async (s, { apiKey }) => {
    const room = s.rooms.createRoom('bench-talk', false);
    s.rooms.addScripted(room, {
      name: 'Candidate',
      answers: Array.from({ length: questions }, (_, i) => ({
        say: `This is my answer number ${i + 1}.`,
        delay_ms: 150,
      })),
    });
    const prompt = Array.from(
      { length: questions },
      (_, i) => `${i + 1}. What is your view on topic ${i + 1}?`,
    ).join('\n');
    const res = await fetch(`${s.baseUrl}/api/bot/join`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'local',
        room_url: `${s.baseUrl}/rooms/bench-talk`,
        bot_config: { name: 'Interviewer', bot_prompt: prompt },
      }),
    });
    if (res.status !== 201) throw new Error(`join ${res.status}: ${await res.text()}`);
    const { bot_id } = (await res.json()) as { bot_id: string };
    await waitFor(async () => room.log.some((e) => e.type === 'joined' && e.name === 'Interviewer'));
    const pid = botPid(s, bot_id);
    const cpu0 = cpuTicks(pid);
    const t0 = Date.now();
    await waitFor(
      async () =>
        room.log.some((e) => e.type === 'utterance' && e.text.includes('That was my last question')),
      120_000,
    ).catch(() => {
      throw new Error(`the bot did not finish its ${questions} questions within 120 s`);
    });
    const wallMs = Date.now() - t0;
    const cpuMs = (cpuTicks(pid) - cpu0) * 10; // USER_HZ = 100

    const latencies: number[] = [];
    for (const [i, e] of room.log.entries()) {
      if (e.type !== 'utterance' || e.name !== 'Candidate') continue;
      const reply = room.log
        .slice(i + 1)
        .find((x) => x.type === 'speaking' && x.name === 'Interviewer' && x.active);
      if (reply) latencies.push(reply.t_ms - e.t_ms);
    }
    await fetch(`${s.baseUrl}/v1/bots/leave/${bot_id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const p95 = percentile(latencies, 95);
    return {
      replies: latencies.length,
      end_of_turn_silence_ms: s.config.END_OF_TURN_SILENCE_MS,
      reply_latency_ms: { p50: percentile(latencies, 50), p95, max: Math.max(...latencies) },
      reply_pass: p95 <= target.reply_p95_ms,
      target,
      bot_cpu_share_pct: Math.round((cpuMs / wallMs) * 1000) / 10,
      conversation_s: Math.round(wallMs / 100) / 10,
      notes: [
        'reply latency: the candidate’s final utterance in the room log → the bot starts speaking (room log), END_OF_TURN_SILENCE_MS included.',
        'CPU share: the bot-task process’s user+system CPU time over the conversation’s wall time, as % of one core (local provider).',
      ],
    };
  });
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as {
    reply_latency_ms: { p50: number; p95: number; max: number };
    reply_pass: boolean;
    bot_cpu_share_pct: number;
    replies: number;
  };
  return [
    ['figure', 'value', 'target'],
    [
      `final utterance → bot's first word, p50 / p95 / max (ms, ${r.replies} replies)`,
      `${r.reply_latency_ms.p50} / ${r.reply_latency_ms.p95} / ${r.reply_latency_ms.max}`,
      `p95 ≤ 800 ${verdict(r.reply_pass, options)}`,
    ],
    ['bot-task CPU while conversing (% of one core)', String(r.bot_cpu_share_pct), ''],
  ];
}
