// People who do not wait their turn, through the local stack, a real bot-task and the local room at the room's
// speaking pace: an eager candidate who answers 0.4 s after each question appears (over the rest of it) gets the same
// Q&A pairs, summary and evaluation as one who waits, or one who takes their time; a "Sure." over a question lets the
// bot finish it, with no comment and no repeat; the bot never asks anyone to let it finish.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  // The room's default speaking pace (55 ms a character): a question takes a second or more to say.
  stack = await startTestStack({ TRANSCRIPT_FLUSH_MS: '200', RATE_LIMIT_PER_MINUTE: '100000' });
  ({ apiKey: key } = await stack.account(50));
});
afterAll(() => stack?.close());

const prompt = `You are interviewing a nurse for a ward position. Ask:
1. What is your name?
2. What can you tell me about a difficult patient you cared for?
3. How many hours a week are you available?`;

const answers = [
  'My name is Dana Reyes.',
  "At St. Mary's Hospital a confused patient kept pulling out his IV, so Maria sat with him and we calmed him down together.",
  "I'm available 36 hours a week, including weekends.",
];

type Pace = { early: true; delay_ms: number } | { early?: false; delay_ms: number };

/** One interview in its own room; returns the room's lines and the completed status. */
async function interview(room: string, pace: Pace, extra: Record<string, unknown> = {}) {
  await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: room }) });
  const added = await fetch(`${stack.baseUrl}/rooms/${room}/participants`, {
    method: 'POST',
    body: JSON.stringify({ name: 'Dana', answers: answers.map((say) => ({ say, ...pace })), ...extra }),
  });
  expect(added.status).toBe(201);
  const join = await stack.request('POST', '/api/bot/join', {
    key,
    body: {
      provider: 'local',
      room_url: `${stack.baseUrl}/rooms/${room}`,
      bot_config: { name: 'Iris', bot_prompt: prompt },
    },
  });
  expect(join.status).toBe(201);
  const botId = join.body.bot_id as string;
  const log = stack.rooms.rooms.get(room)!.log;
  const lines = () => log.flatMap((e) => (e.type === 'utterance' ? [{ name: e.name, text: e.text }] : []));
  await until(
    () => lines().some((l) => l.name === 'Iris' && /That was my last question/.test(l.text)),
    60_000,
  );
  await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
  const status = await until(async () => {
    const s = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    return s.status === 'completed' && s;
  }, 60_000);
  return { lines: lines(), log, status };
}

describe('people who do not wait their turn', () => {
  it('an eager candidate who answers over each question gets the same results as one who waits, or one who is slow', async () => {
    const [early, onTime, late] = await Promise.all([
      interview('eager', { early: true, delay_ms: 400 }),
      interview('on-time', { delay_ms: 400 }),
      interview('slow', { delay_ms: 2_500 }),
    ]);
    // The eager candidate did talk over the bot: its questions were cut off.
    expect(early.log.filter((e) => e.type === 'speaking' && e.cut).length).toBeGreaterThanOrEqual(2);
    for (const run of [early, onTime, late]) {
      expect(run.lines.filter((l) => /let me finish/i.test(l.text))).toEqual([]);
      const pairs = run.status.qa_pairs as { question: string; answer: string }[];
      expect(pairs.map((p) => p.answer)).toEqual(answers);
      const insights = run.status.insights as {
        unanswered: unknown[];
        summary: string;
        weaknesses: string[];
      };
      expect(insights.unanswered).toEqual([]);
      expect(insights.summary).toMatch(/3 questions, (?:all|3) answered/);
      expect(`${insights.summary} ${insights.weaknesses.join(' ')}`).not.toMatch(
        /did not answer|not answered/i,
      );
      // Each question put once.
      for (const q of ['What is your name?', 'difficult patient', 'hours a week'])
        expect(run.lines.filter((l) => l.name === 'Iris' && l.text.includes(q))).toHaveLength(1);
    }
    const results = (s: Record<string, unknown>) => ({
      qa_pairs: (s.qa_pairs as { question: string; answer: string }[]).map((p) => [p.question, p.answer]),
      summary: s.summary,
      evaluation: s.evaluation,
    });
    expect(results(early.status)).toEqual(results(onTime.status));
    expect(results(late.status)).toEqual(results(onTime.status));
  }, 150_000);

  it('"Sure." over a question: the bot finishes it, says nothing to it, and does not ask again', async () => {
    const run = await interview(
      'sure',
      { delay_ms: 400 },
      // Into the greeting's third line (the first question), 300 ms in.
      { barge_in: { on_bot_line: 3, after_ms: 300, say: 'Sure.' } },
    );
    const sure = run.lines.findIndex((l) => l.text === 'Sure.');
    const answer = run.lines.findIndex((l) => l.text === answers[0]);
    expect(sure).toBeGreaterThan(0);
    // Nothing from the bot between "Sure." and the answer, and the question was not cut off.
    expect(run.lines.slice(sure + 1, answer).filter((l) => l.name === 'Iris')).toEqual([]);
    const close = run.log.findIndex(
      (e) => e.type === 'utterance' && /That was my last question/.test(e.text),
    );
    expect(run.log.slice(0, close).filter((e) => e.type === 'speaking' && e.cut)).toEqual([]);
    expect(run.lines.filter((l) => l.text.includes('What is your name?'))).toHaveLength(1);
    expect((run.status.qa_pairs as { answer: string }[]).map((p) => p.answer)).toEqual(answers);
  }, 90_000);
});
