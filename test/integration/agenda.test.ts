// The bot follows prompts written as prose, through the local stack, a real bot-task and the local room: it asks
// about every topic, small talk and "could you repeat that?" do not move it on, a thin answer gets one follow-up,
// "what are the next steps?" gets the prompt's closing, and the final status pairs each question with its answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agendaOf } from '../../core/engines/rules/conversation/agenda';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack({
    END_OF_TURN_SILENCE_MS: '150',
    LOCAL_SPEECH_MS_PER_CHAR: '1',
    TRANSCRIPT_FLUSH_MS: '200',
  });
  ({ apiKey: key } = await stack.account(50));
});
afterAll(() => stack?.close());

const closing = 'The recruiter will contact you within a week.';
const prompts = {
  'ask-about':
    'You are interviewing a candidate for a backend engineer role. Ask about their last project, a hard bug they fixed, and how they test code.',
  'find-out':
    'You are a friendly screener. Find out what they know about Kubernetes, whether they have been on call, and why they want to leave their current job.',
  cover: 'You run a short technical chat. Cover: system design, databases and caching.',
  screen: `You are a recruiter. Screen them on SQL, Python and communication skills. At the end, tell them the recruiter will contact them within a week.`,
  'want-to-know':
    'Be warm and brief. I want to know about their leadership experience and how they handle conflict, and ask them to describe their biggest failure.',
};

const answers = [
  'I rebuilt our billing pipeline in TypeScript and cut invoice errors by 40 percent.',
  'We ran the old and new systems in parallel for three weeks before switching.',
  'Mostly unit tests, plus contract tests for every external API we call.',
];
const thin = 'Mostly APIs.';
const smallTalk = ['Hi, happy to be here!', 'Sorry, could you repeat that?', 'What are the next steps?'];

/**
 * What the candidate says, one line per bot turn: small talk before the first answer, a thin answer before the
 * second (the bot follows up once), "what are the next steps?" before the third, then each topic's answer.
 */
function script(topics: number): { lines: string[]; expected: string[] } {
  const lines: string[] = [];
  const expected: string[] = [];
  for (let i = 0; i < topics; i++) {
    const answer = answers[i % answers.length]!;
    if (i === 0) lines.push(smallTalk[0]!, smallTalk[1]!);
    if (i === 1) lines.push(thin);
    if (i === 2) lines.push(smallTalk[2]!);
    lines.push(answer);
    expected.push(i === 1 ? `${thin} ${answer}` : answer);
  }
  return { lines, expected };
}

async function interview(name: string, prompt: string) {
  const topics = agendaOf(prompt).topics;
  const { lines, expected } = script(topics.length);
  await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name }) });
  // The candidate is in the room first, so the greeting (with the first question) is heard whole.
  await fetch(`${stack.baseUrl}/rooms/${name}/participants`, {
    method: 'POST',
    body: JSON.stringify({ name: 'Casey', answers: lines.map((say) => ({ say, delay_ms: 100 })) }),
  });
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: {
      provider: 'local',
      room_url: `${stack.baseUrl}/rooms/${name}`,
      process_insights: false,
      bot_config: { name: 'Iris', bot_prompt: prompt },
    },
  });
  expect(res.status).toBe(201);
  const botId = res.body.bot_id as string;
  const room = stack.rooms.rooms.get(name)!;
  const said = () =>
    room.log.flatMap((e) => (e.type === 'utterance' ? [{ name: e.name, text: e.text }] : []));
  await until(
    () =>
      said().some((l) => l.name === 'Iris' && /Thank you very much for your time(?:, Casey)?!/.test(l.text)),
    45_000,
  );
  await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
  const status = await until(async () => {
    const s = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    return s.status === 'completed' && s;
  }, 30_000);
  return { topics, expected, lines: said(), status };
}

/** The bot's turns (its consecutive lines joined), each with the candidate line it followed (null: the greeting). */
function exchanges(lines: { name: string; text: string }[]) {
  const out: { after: string | null; bot: string }[] = [];
  lines.forEach((l, i) => {
    if (l.name !== 'Iris') return;
    const prev = lines[i - 1];
    if (prev?.name === 'Iris') out.at(-1)!.bot += ` ${l.text}`;
    else out.push({ after: prev?.text ?? null, bot: l.text });
  });
  return out;
}

describe('the bot follows prompts written as prose (each interview its own bot-task and room)', () => {
  it.concurrent('asks about every topic of five prose prompts; the Q&A pairs are the answers, never the small talk', async () => {
    const results = await Promise.all(
      Object.entries(prompts).map(async ([name, prompt]) => ({
        name,
        prompt,
        ...(await interview(name, prompt)),
      })),
    );
    for (const r of results) {
      const turns = exchanges(r.lines);
      const botText = turns.map((t) => t.bot).join(' ');
      // Every topic asked, in the agenda's order.
      let at = -1;
      for (const t of r.topics) {
        const i = botText.indexOf(t.question, at + 1);
        expect(i, `${r.name}: ${t.question}`).toBeGreaterThan(at);
        at = i;
      }
      // Small talk and "could you repeat that?" did not move it on: it asked the first topic again.
      const first = r.topics[0]!;
      for (const line of smallTalk.slice(0, 2)) {
        const reply = turns.find((t) => t.after === line)!.bot;
        expect(reply, `${r.name} after "${line}"`).toMatch(
          new RegExp(`(?:${escapeRegExp(first.question)}|${escapeRegExp(first.rephrased)})$`),
        );
      }
      // One follow-up on the thin answer, then the next topic.
      expect(turns.find((t) => t.after === thin)!.bot).toMatch(/^Could you (?:give|say|go)/);
      if (r.topics.length > 2) {
        const nextSteps = turns.find((t) => t.after === smallTalk[2])!.bot;
        expect(nextSteps).toContain(
          r.name === 'screen' ? closing : 'The team will follow up with you about next steps.',
        );
        expect(nextSteps).toContain(r.topics[2]!.rephrased);
      }
      expect(turns.at(-1)!.bot).toContain('That was my last question.');
      if (r.name === 'screen') expect(turns.at(-1)!.bot).toContain(closing);

      // The final status: one pair per topic, the question alone, the answer as given (follow-up appended).
      expect(r.status.exit_reason).toBe('force_leave');
      const pairs = (
        r.status.qa_pairs as { question: string; answer: string; asked_by: string; answered_by: string }[]
      ).filter((p) => p.asked_by === 'Iris');
      expect(
        pairs.map((p) => p.question),
        r.name,
      ).toEqual(r.topics.map((t) => t.question));
      expect(
        pairs.map((p) => p.answer),
        r.name,
      ).toEqual(r.expected);
      for (const p of pairs) {
        expect(p.answered_by).toBe('Casey');
        for (const s of smallTalk) expect(p.answer).not.toContain(s);
      }
    }
  }, 90_000);

  // Runs alongside the five interviews above: talking over the bot.
  it.concurrent('an interruption with no answer in it gets the question again, with no comment, and the pairs stay right', async () => {
    const prompt = prompts['ask-about'];
    const topics = agendaOf(prompt).topics;
    await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: 'over' }) });
    await fetch(`${stack.baseUrl}/rooms/over/participants`, {
      method: 'POST',
      body: JSON.stringify({
        name: 'Casey',
        // Into the greeting's third line (the first question), Casey cuts in.
        barge_in: { on_bot_line: 3, after_ms: 80, say: 'Sorry to cut in!' },
        // Each answer waits until the bot has finished its next turn, and 2.5 s more: "Sorry to cut in!" in reply to an
        // open question is not an answer yet, so the bot waits its long silence (1.5 s) before it asks again.
        answers: answers.map((say) => ({ say, delay_ms: 2_500 })),
      }),
    });
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/over`,
        process_insights: false,
        bot_config: { name: 'Iris', bot_prompt: prompt },
      },
    });
    const botId = res.body.bot_id as string;
    const room = stack.rooms.rooms.get('over')!;
    const lines = () =>
      room.log.flatMap((e) => (e.type === 'utterance' ? [{ name: e.name, text: e.text }] : []));
    await until(
      () => lines().some((l) => /Thank you very much for your time(?:, Casey)?!/.test(l.text)),
      45_000,
    );
    await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
    const turns = exchanges(lines());
    expect(turns.find((t) => t.after === 'Sorry to cut in!')!.bot).toBe(topics[0]!.question);
    expect(lines().filter((l) => /let me finish/i.test(l.text))).toEqual([]);
    const status = await until(async () => {
      const s = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
      return s.status === 'completed' && s;
    }, 30_000);
    expect(
      (status.qa_pairs as { question: string; answer: string }[]).map((p) => [p.question, p.answer]),
    ).toEqual(topics.map((t, i) => [t.question, answers[i]]));
  }, 60_000);
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
