// The offline interviewer through the local stack (a real bot-task, the local room, the local engines): it never
// stalls on a short factual answer, reaches every question and pairs each answer, follows a greeting instruction as
// far as rules can, and says "everyone" only to a room of more than one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

const timing = { END_OF_TURN_SILENCE_MS: '150', LOCAL_SPEECH_MS_PER_CHAR: '1', TRANSCRIPT_FLUSH_MS: '200' };

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack(timing);
  ({ apiKey: key } = await stack.account(50));
});
afterAll(() => stack?.close());

interface Person {
  name: string;
  answers?: string[];
}

/** A room with `people` in it first (each answering the bot's lines in turn), then the bot. */
async function interview(room: string, people: Person[], bot_config: Record<string, unknown>) {
  await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: room }) });
  for (const p of people) {
    await fetch(`${stack.baseUrl}/rooms/${room}/participants`, {
      method: 'POST',
      body: JSON.stringify({
        name: p.name,
        answers: (p.answers ?? []).map((say) => ({ say, delay_ms: 100 })),
      }),
    });
  }
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: {
      provider: 'local',
      room_url: `${stack.baseUrl}/rooms/${room}`,
      bot_config: { name: 'Iris', ...bot_config },
    },
  });
  expect(res.status).toBe(201);
  return { botId: res.body.bot_id as string, log: stack.rooms.rooms.get(room)!.log };
}

type Log = Awaited<ReturnType<typeof interview>>['log'];
const botLines = (log: Log) =>
  log.flatMap((e) => (e.type === 'utterance' && e.name === 'Iris' && e.final ? [e.text] : []));

/** Stops the bot once it said its closing thanks, and returns the completed session's status. */
async function finished(botId: string, log: Log) {
  await until(() => botLines(log).some((l) => /for your time|All the best/.test(l)), 60_000);
  await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
  return until(async () => {
    const s = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    return s.status === 'completed' && s;
  }, 30_000);
}

const followUp = /concrete example|a bit more|more detail|even a small one/i;

describe('the offline interviewer (local stack)', () => {
  it('the three-question screening reaches every question and pairs each answer; the greeting instruction is followed', async () => {
    const answers = [
      'My name is Sam Carter.',
      'I want to build the data platform here, because your team ships pipelines that people rely on.',
      'Debugging slow Spark jobs: I cut our nightly job from 3 hours to 40 minutes.',
    ];
    const { botId, log } = await interview('screening', [{ name: 'Sam Carter', answers }], {
      bot_prompt: 'Ask: What is your name? Why do you want this job? What is your biggest strength?',
      bot_greeting: 'Greet the candidate warmly and introduce yourself as the screening assistant',
    });
    const status = await finished(botId, log);
    const said = botLines(log);
    // The bot speaks sentence by sentence: the room logs each one.
    expect(said.join(' ')).toMatch(
      /^Hello Sam, I'm Iris, the screening assistant\. It's great to have you here\. I have 3 questions for you\. What is your name\?/,
    );
    expect(said.join(' ')).not.toMatch(/everyone/i);
    expect(said.join(' ')).not.toMatch(followUp);
    for (const q of ['What is your name?', 'Why do you want this job?', 'What is your biggest strength?'])
      expect(said).toContain(q);
    // The name once at the greeting and once at the close.
    expect(said.filter((l) => /\bSam\b/.test(l))).toEqual([said[0], expect.stringMatching(/Sam!$/)]);
    expect(status.qa_pairs.map((p: { question: string; answer: string }) => [p.question, p.answer])).toEqual([
      ['What is your name?', answers[0]],
      ['Why do you want this job?', answers[1]],
      ['What is your biggest strength?', answers[2]],
    ]);
    expect(status.insights.engine).toBe('local-rules');
    // What the rules could not do is said in plain words.
    expect(status.insights.engine_notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Judged by rules, not a model: .*cannot judge whether an answer is true/),
        expect.stringMatching(
          /^The bot's local rules \(no model\) followed the greeting instruction "Greet the candidate warmly/,
        ),
      ]),
    );
    // The summary is a digest per question with the facts given.
    expect(status.insights.summary).toMatch(/^Iris interviewed Sam Carter \(3 questions, all answered\)\./);
    expect(status.insights.summary).toContain('from 3 hours to 40 minutes');
  }, 90_000);

  it('a name, a yes/no, a number and a date answer get no follow-up', async () => {
    const { botId, log } = await interview(
      'facts',
      [{ name: 'Sam Carter', answers: ['Sam Carter.', 'Yes.', 'Five years.', 'In March.'] }],
      {
        bot_prompt:
          'Ask: What is your full name? Have you worked with Kafka? How many years of Python do you have? When could you start?',
      },
    );
    const status = await finished(botId, log);
    const said = botLines(log);
    expect(said.join(' ')).not.toMatch(followUp);
    expect(said.join(' ')).toMatch(/That was my last question\. Thank you very much for your time, Sam!$/);
    expect(status.qa_pairs.map((p: { answer: string }) => p.answer)).toEqual([
      'Sam Carter.',
      'Yes.',
      'Five years.',
      'In March.',
    ]);
  }, 90_000);

  it('a two-person room gets "everyone", a one-person room does not', async () => {
    const prompt = 'Ask: What is your name?';
    const [two, one] = await Promise.all([
      interview('two-people', [{ name: 'Sam Carter' }, { name: 'Dana Lee' }], { bot_prompt: prompt }),
      interview('one-person', [{ name: 'Sam Carter' }], { bot_prompt: prompt }),
    ]);
    const greeting = (log: Log) =>
      until(() => botLines(log).join(' ').includes('?') && botLines(log).join(' '), 30_000);
    expect(await greeting(two.log)).toBe(
      "Hello everyone, I'm Iris. I have one question for you. What is your name?",
    );
    expect(await greeting(one.log)).toBe(
      "Hello Sam, I'm Iris. I have one question for you. What is your name?",
    );
    for (const b of [two, one]) await stack.request('POST', `/v1/bots/leave/${b.botId}`, { key });
  }, 60_000);
});
