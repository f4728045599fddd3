// A whole interview through the OpenAI-compatible engines: the local stack configured with LLM_BASE_URL pointing at a
// fake chat-completions server; the bot (its own process) asks the questions the server streams, a scripted
// candidate answers, and the finished session carries the insights the server returned as structured output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngine } from '../../core/adapters/language-engines';
import { converseFixture, toolInputOf } from '../fixtures/insights/fixtures';
import { type FakeLlmCall, type FakeLlmServer, startFakeLlmServer } from '../support/fake-llm-server';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

const model = 'fake-interviewer';
const apiKey = 'sk-integration-test';
const questions = ['What is your favourite database?', 'How do you test a migration?'];
const answers = ['Postgres, for its reliability.', 'I rehearse it on a copy of production first.'];
const closing = 'Thank you, Casey, that was my last question. Goodbye.';
/** The insights the fake model writes (the shared fixture, so it follows the insights schema). */
const insights = toolInputOf(converseFixture('insights'));

/** The fake model: the interviewer's next line from how many answers it has heard; insights from the transcript. */
function interviewer(call: FakeLlmCall) {
  if (call.body.response_format) {
    // "12\tQuinn (bot): What is …?" — the questions' line numbers, and the answer on the line after each.
    const lines = call.lastUser.split('\n').map((l) => /^(\d+)\t([^:]+): (.*)$/.exec(l));
    const qa_pairs = questions.map((question, i) => {
      const asked = lines.find((m) => m?.[3]?.includes(question))!;
      return {
        question,
        answer: answers[i]!,
        line: Number(asked[1]),
        asked_by: 'Quinn',
        answered_by: 'Casey',
        answered: 'yes',
        quality: 4,
        evidence: answers[i]!,
      };
    });
    return { content: JSON.stringify({ qa_pairs, insights }) };
  }
  const heard = call.body.messages.filter((m) => m.role === 'user' && /^Casey: /m.test(m.content));
  const answered = heard.flatMap((m) => m.content.split('\n')).filter((l) => l.startsWith('Casey: ')).length;
  if (/your next message is your opening line/.test(call.system)) {
    return { content: `Hi Casey, I'm Quinn. ${questions[0]}` };
  }
  if (answered === 1) return { content: `Thanks. ${questions[1]}` };
  if (answered === 2) return { content: closing };
  return { content: '[LISTEN]' };
}

let server: FakeLlmServer;
let stack: TestStack;
let key: string;
beforeAll(async () => {
  server = await startFakeLlmServer({ model, apiKey, handler: interviewer });
  stack = await startTestStack({
    LLM_BASE_URL: server.baseUrl,
    LLM_MODEL: model,
    LLM_API_KEY: apiKey,
    END_OF_TURN_SILENCE_MS: '300',
    LOCAL_SPEECH_MS_PER_CHAR: '10',
    TRANSCRIPT_FLUSH_MS: '200',
  });
  ({ apiKey: key } = await stack.account(50));
});
afterAll(async () => {
  await stack?.close();
  await server?.close();
});

describe('the OpenAI-compatible engines in the local stack', () => {
  it('are the ones selected, and say so without the key', () => {
    for (const engine of ['conversation', 'insights'] as const) {
      const line = describeEngine(stack.config, engine);
      expect(line).toBe(`OpenAI-compatible (${model} at ${server.baseUrl})`);
      expect(line).not.toContain(apiKey);
    }
  });

  it("runs an interview: the bot asks the server's questions, the session ends with the server's insights", async () => {
    await fetch(`${stack.baseUrl}/rooms`, {
      method: 'POST',
      body: JSON.stringify({ name: 'llm-interview' }),
    });
    await fetch(`${stack.baseUrl}/rooms/llm-interview/participants`, {
      method: 'POST',
      body: JSON.stringify({
        name: 'Casey',
        answers: answers.map((say) => ({ say, delay_ms: 200 })),
        leave_at_ms: 25_000,
      }),
    });
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/llm-interview`,
        bot_config: {
          name: 'Quinn',
          bot_prompt: `Interview Casey for a backend role. Ask:\n1. ${questions[0]}\n2. ${questions[1]}`,
        },
      },
    });
    expect(res.status).toBe(201);
    const botId = res.body.bot_id as string;
    const status = async () => (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;

    const talked = await until(async () => {
      const s = await status();
      return s.transcript?.includes('that was my last question') && s;
    });
    const speakers = (talked.transcript as string)
      .split('\n')
      .map((l) => l.split(': ')[0])
      .filter((s, i, all) => s !== all[i - 1]);
    expect(speakers).toEqual(['Quinn', 'Casey', 'Quinn', 'Casey', 'Quinn']);
    expect(talked.transcript).toContain(
      "Quinn: Hi Casey, I'm Quinn.\nQuinn: What is your favourite database?",
    );
    expect(talked.transcript).toContain(`Casey: ${answers[0]}`);
    expect(talked.transcript).toContain(`Quinn: ${questions[1]}`);

    expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key })).status).toBe(202);
    const done = await until(async () => {
      const s = await status();
      return s.status === 'completed' && s;
    });
    expect(done.insights).toMatchObject(insights);
    expect(done.insights.question_assessments).toEqual(
      questions.map((question, i) =>
        expect.objectContaining({ question, answered: 'yes', evidence: answers[i] }),
      ),
    );
    expect(done.qa_pairs).toEqual(
      questions.map((question, i) => ({
        question,
        answer: answers[i],
        asked_by: 'Quinn',
        answered_by: 'Casey',
        asked_at: expect.any(String),
      })),
    );

    // What the server was sent: streamed chat for the conversation, structured output for the insights.
    expect(server.violations).toEqual([]);
    const chats = server.calls.filter((c) => !c.body.response_format);
    const analyses = server.calls.filter((c) => c.body.response_format);
    expect(chats.length).toBeGreaterThanOrEqual(3);
    for (const c of chats) {
      expect(c.body).toMatchObject({ model, stream: true });
      expect(c.headers.authorization).toBe(`Bearer ${apiKey}`);
      expect(c.system).toContain(`Interview Casey for a backend role.`);
    }
    expect(analyses).toHaveLength(1);
    expect(analyses[0]!.body.stream).toBeFalsy();
    expect(analyses[0]!.body.response_format!.json_schema).toMatchObject({
      name: 'record_analysis',
      strict: true,
    });
  });
});
