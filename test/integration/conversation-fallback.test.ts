// The bot never goes mute, through the local stack: the conversation model (an OpenAI-compatible server, the fake one)
// refuses every call, as a model without access does. The bot (its own process, in a local room) says the holding line
// once, retries with backoff, and after three failures finishes the interview with the local engine; the session
// completes with the warning in the status view and in the session_complete a webhook receiver gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdingLine } from '../../bot-task/conversation';
import { type FakeLlmServer, startFakeLlmServer } from '../support/fake-llm-server';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

const model = 'fake-interviewer';
const denied = "You don't have access to the model with the specified model ID.";

let server: FakeLlmServer;
let stack: TestStack;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
let account: Awaited<ReturnType<TestStack['account']>>;
beforeAll(async () => {
  server = await startFakeLlmServer({
    model,
    apiKey: null,
    handler: () => ({ status: 403, message: denied }),
  });
  hook = await webhookReceiver();
  stack = await startTestStack({
    LLM_BASE_URL: server.baseUrl,
    LLM_MODEL: model,
    CONVERSATION_RETRY_BACKOFF_MS: '200',
    END_OF_TURN_SILENCE_MS: '300',
    LOCAL_SPEECH_MS_PER_CHAR: '10',
    TRANSCRIPT_FLUSH_MS: '200',
  });
  account = await stack.account(50);
});
afterAll(async () => {
  await stack?.close();
  await server?.close();
  await hook?.close();
});

describe('a conversation model that keeps failing', () => {
  it('gets one holding line and retries, then the local engine finishes the interview; the warning is in the status and session_complete', async () => {
    const key = account.apiKey;
    await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: 'no-model' }) });
    // Casey answers once the bot has been quiet for 1.5 s: longer than the retries take, so not the holding line.
    await fetch(`${stack.baseUrl}/rooms/no-model/participants`, {
      method: 'POST',
      body: JSON.stringify({
        name: 'Casey',
        answers: [
          { say: 'My favourite database is Postgres, for its reliability.', delay_ms: 1500 },
          { say: 'I rehearse every migration on a copy of production first.', delay_ms: 1500 },
        ],
        leave_at_ms: 60_000,
      }),
    });
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/no-model`,
        webhook_callback_url: hook.url,
        process_insights: false,
        bot_config: {
          name: 'Quinn',
          bot_prompt:
            'Interview Casey. Ask:\n1. What is your favourite database?\n2. How do you test a migration?',
        },
      },
    });
    expect(res.status).toBe(201);
    const botId = res.body.bot_id as string;
    const status = async () => (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    // Always present: empty while nothing went wrong.
    expect((await status()).warnings).toEqual([]);

    const closed = await until(async () => {
      const s = await status();
      return s.transcript?.includes('That was my last question.') && s;
    }, 30_000);
    const lines = (closed.transcript as string).split('\n');
    expect(lines.filter((l) => l === `Quinn: ${holdingLine}`)).toHaveLength(1);
    expect(lines.slice(0, 4)).toEqual([
      `Quinn: ${holdingLine}`,
      "Quinn: Hello Casey, I'm Quinn.",
      'Quinn: I have 2 questions for you.',
      'Quinn: What is your favourite database?',
    ]);
    expect(closed.transcript).toContain('Casey: I rehearse every migration on a copy of production first.');
    // Three tries of the greeting, then never again: the local engine asked everything after.
    const conversationCalls = server.calls.filter((c) => !c.body.response_format);
    expect(conversationCalls).toHaveLength(3);
    expect(server.violations).toEqual([]);

    expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key })).status).toBe(202);
    const done = await until(async () => {
      const s = await status();
      return s.status === 'completed' && s;
    }, 30_000);
    const warning = {
      code: 'conversation_model_fallback',
      message: expect.stringMatching(
        /^The conversation model failed 3 times in a row \(last: Conversation model failed \(HTTP 403: 403 You don't have access to the model with the specified model ID\.\)\); the bot finished the interview with the local engine/,
      ),
    };
    expect(done.warnings).toEqual([warning]);

    const complete = await until(async () =>
      hook.delivered(account.webhookSecret).find((b) => b.event === 'session_complete' && b.bot_id === botId),
    );
    expect(complete.warnings).toEqual([warning]);

    // A second report of the same fallback (a replacement that hits it again) adds nothing.
    expect(
      await stack.deps.sessions.addWarning(botId, { code: 'conversation_model_fallback', message: 'again' }),
    ).toBe(false);
    expect(
      await stack.deps.sessions.addWarning(botId, { code: 'speech_fallback', message: 'the voice failed' }),
    ).toBe(true);
    expect((await stack.deps.sessions.get(botId))!.warnings).toEqual([
      { code: 'conversation_model_fallback', message: done.warnings[0].message },
      { code: 'speech_fallback', message: 'the voice failed' },
    ]);
  }, 90_000);
});
