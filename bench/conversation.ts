// Conversation: time from a participant's final utterance to the bot's first reply word (local engine, default
// END_OF_TURN_SILENCE_MS included), and the bot-task's CPU share while it converses.
import { readFileSync } from 'node:fs';
import type { Utterance } from '../core/bots/transcript';
import { LocalConversationEngine } from '../core/engines/rules/conversation/local-engine';
import { type ConversationContext, sentences } from '../core/ports/conversation-engine';
import type { Table } from './run';
import { type BenchOptions, botPid, percentile, verdict, waitFor, withBenchStack } from './support';

const target = { reply_p95_ms: 800, long_meeting_turn_max_ms: 500 };

/**
 * The offline engine's own time per turn late in a long meeting: two hours of others' talk (1,500 lines), then twenty
 * topics each answered after a greeting, so every reply reads the whole transcript. No stack, no end-of-turn wait.
 */
async function longMeetingTurnsMs(): Promise<number[]> {
  const prompt = `Ask these questions:\n${Array.from({ length: 20 }, (_, i) => `${i + 1}. What did you learn in project number ${i + 1}?`).join('\n')}`;
  const engine = new LocalConversationEngine();
  const transcript: Utterance[] = [];
  let t = Date.parse('2026-01-05T10:00:00Z');
  const add = (text: string, bot = false) => {
    t += 2000;
    transcript.push({
      speaker: bot ? 'Iris' : 'Casey',
      participant_id: bot ? 'bot' : 'casey',
      started_at: new Date(t).toISOString(),
      text,
      ...(bot && { is_bot: true }),
    });
  };
  const ctx = (): ConversationContext => ({ botName: 'Iris', prompt, transcript });
  const speak = async (it: AsyncIterable<string>) => {
    for await (const line of sentences(it)) add(line, true);
  };
  await speak(engine.greet(ctx()));
  for (let i = 0; i < 1500; i++) add(`Background chatter line ${i} about the quarterly roadmap and hiring.`);
  const turns: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    add('Hi again!');
    await speak(engine.reply(ctx()));
    add(`In project ${i + 1} I learned to measure before optimising, with real numbers.`);
    await speak(engine.reply(ctx()));
    turns.push(Math.round(performance.now() - t0));
  }
  return turns;
}

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
    const longTurns = await longMeetingTurnsMs();
    return {
      long_meeting_turn_ms: { p50: percentile(longTurns, 50), max: Math.max(...longTurns) },
      long_meeting_pass: Math.max(...longTurns) <= target.long_meeting_turn_max_ms,
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
        'long meeting: the offline engine alone, in this process, after 1,500 lines of others’ talk: each of 20 turns is a greeting and an answer, both replied to (the whole transcript read each time).',
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
    long_meeting_turn_ms: { p50: number; max: number };
    long_meeting_pass: boolean;
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
    [
      'offline engine per turn after 1,500 lines of talk, p50 / max (ms, 20 turns)',
      `${r.long_meeting_turn_ms.p50} / ${r.long_meeting_turn_ms.max}`,
      `max ≤ 500 ${verdict(r.long_meeting_pass, options)}`,
    ],
    ['bot-task CPU while conversing (% of one core)', String(r.bot_cpu_share_pct), ''],
  ];
}
