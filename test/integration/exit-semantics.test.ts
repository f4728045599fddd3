// Issue #13 §2: what a session's end says. No insights_error when insights were not asked for; a bot that never got
// into the room and died (or was lost) sends bot_join_failed, not bot_failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Utterance } from '../../core/bots/transcript';
import { createLogger } from '../../core/log';
import { InsightsError } from '../../core/ports/insights-engine';
import { processResults } from '../../core/results/process-results';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = { start: async (id) => ({ taskRef: `t:${id}` }), stop: async () => {} };
  ({ apiKey: key } = await stack.account(50));
});
afterAll(() => stack?.close());

async function startedBot(room: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: {
      room_url: `https://a.daily.co/${room}`,
      webhook_callback_url: 'http://127.0.0.1:9/hook',
      email: 'team@example.com',
      ...body,
    },
  });
  expect(res.status).toBe(201);
  return res.body.bot_id as string;
}

const interview: Utterance[] = [
  {
    speaker: 'Ava',
    participant_id: 'bot',
    started_at: '2026-11-22T10:00:00.000Z',
    text: 'What drew you to support?',
  },
  {
    speaker: 'Casey',
    participant_id: 'c',
    started_at: '2026-11-22T10:00:05.000Z',
    text: 'I like solving problems for people.',
  },
];

/** The ways a model engine's Q&A step fails once the queue has given up retrying. */
const failures: [string, () => Error][] = [
  ['a model error', () => new InsightsError('model_error', 'Insights could not be generated: refused.')],
  [
    'throttling after the last delivery attempt',
    () =>
      new InsightsError('model_throttled', 'Insights could not be generated: throttled.', {
        retryable: true,
      }),
  ],
  [
    'an invalid model answer',
    () => new InsightsError('invalid_model_output', 'Insights could not be generated.'),
  ],
  ['an unexpected fault', () => new TypeError('boom')],
];

describe('process_insights false: insights_error never appears', () => {
  it.each(failures)('the Q&A step failing with %s completes without insights_error', async (_, failure) => {
    const botId = await startedBot(`no-insights-${Math.random().toString(36).slice(2)}`, {
      process_insights: false,
      bot_config: { name: 'Ava' },
    });
    await stack.deps.transcripts.saveSegment(botId, 1, interview);
    const queued: unknown[] = [];
    await processResults(
      {
        stores: stack.deps,
        config: stack.config,
        insights: {
          analyse: async () => {
            throw failure();
          },
        },
        deliveryQueue: { send: async (m) => void queued.push(m) },
        log: createLogger('silent'),
        now: () => new Date(),
      },
      { kind: 'session_ended', bot_id: botId, exit_reason: 'stop_phrase', left_at: new Date().toISOString() },
      3,
    );
    const status = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    expect(status).toMatchObject({ status: 'completed', insights: null });
    expect(status).not.toHaveProperty('insights_error');
    expect(JSON.stringify(status)).not.toMatch(/insights_error|could not be generated/);
    const payload = JSON.parse(
      (await stack.deps.deliveries.get(botId, 'webhook', 'session_complete'))!.payload,
    );
    expect(payload.event).toBe('session_complete');
    expect(payload).not.toHaveProperty('insights_error');
    expect(payload).not.toHaveProperty('insights');
    const mail = (await stack.deps.deliveries.get(botId, 'email', 'session_complete'))!.payload;
    expect(mail).not.toMatch(/could not be generated/);
    // The Q&A pairs the status shows either way come from the rule-based extraction.
    expect(status.qa_pairs).toMatchObject([
      { question: 'What drew you to support?', answer: 'I like solving problems for people.' },
    ]);
  });

  it('with process_insights true the same failure still reports insights_error', async () => {
    const botId = await startedBot('with-insights');
    await stack.deps.transcripts.saveSegment(botId, 1, interview);
    await processResults(
      {
        stores: stack.deps,
        config: stack.config,
        insights: {
          analyse: async () => {
            throw new InsightsError('model_error', 'Insights could not be generated: refused.');
          },
        },
        deliveryQueue: { send: async () => {} },
        log: createLogger('silent'),
        now: () => new Date(),
      },
      { kind: 'session_ended', bot_id: botId, exit_reason: 'stop_phrase', left_at: new Date().toISOString() },
    );
    const payload = JSON.parse(
      (await stack.deps.deliveries.get(botId, 'webhook', 'session_complete'))!.payload,
    );
    expect(payload.insights_error).toBe('Insights could not be generated: refused.');
  });
});
