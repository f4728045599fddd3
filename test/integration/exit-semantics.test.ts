// What a session's end says. No insights_error when insights were not asked for; a bot that never got
// into the room and died (or was lost) sends bot_join_failed, not bot_failed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryMetrics } from '../../core/adapters/metrics/memory-metrics';
import { onTaskStopped } from '../../core/bots/task-stopped';
import type { Utterance } from '../../core/bots/transcript';
import type { ControlPlaneMessage } from '../../core/control/messages';
import type { OutboxMessage } from '../../core/control/outbox';
import { processControl } from '../../core/control/process-control';
import { metricNames, useMetricsSink } from '../../core/metrics';
import { InsightsError } from '../../core/ports/insights-engine';
import { processResults } from '../../core/results/process-results';
import { botJoinFailedSchema } from '../../core/schemas/webhooks';
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
      stack.resultsDeps(
        {
          analyse: async () => {
            throw failure();
          },
        },
        queued,
      ),
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
      stack.resultsDeps({
        analyse: async () => {
          throw new InsightsError('model_error', 'Insights could not be generated: refused.');
        },
      }),
      { kind: 'session_ended', bot_id: botId, exit_reason: 'stop_phrase', left_at: new Date().toISOString() },
    );
    const payload = JSON.parse(
      (await stack.deps.deliveries.get(botId, 'webhook', 'session_complete'))!.payload,
    );
    expect(payload.insights_error).toBe('Insights could not be generated: refused.');
  });
});

describe('a bot that dies or is lost before it ever joined the room', () => {
  const deps = (sent: OutboxMessage[]) => stack.taskStoppedDeps(sent);
  const ends: [string, string][] = [
    ['its task crashed', 'EssentialContainerExited: OutOfMemoryError (exit code 137)'],
    ['the platform stopped it (Spot interruption)', 'SpotInterruption: Your Spot Task was interrupted.'],
    ['its heartbeat went stale', 'no heartbeat since 2026-11-22T10:00:00.000Z'],
    ['it never started', 'the bot never started'],
  ];

  it.each(ends)('sends bot_join_failed (spec §6.2), not bot_failed, when %s', async (_, reason) => {
    const botId = await startedBot(`never-joined-${Math.random().toString(36).slice(2)}`);
    const session = (await stack.deps.sessions.get(botId))!;
    const sent: OutboxMessage[] = [];
    const now = new Date(Date.parse(session.startedAt ?? session.createdAt) + 42_000);
    expect(await onTaskStopped(deps(sent), { botId, reason, clean: false }, now)).toBe('failed');

    expect(sent).toHaveLength(1);
    const message = sent[0]!;
    expect(message.kind).toBe('bot_join_failed');
    if (message.kind !== 'bot_join_failed') return;
    const event = message.event;
    expect(botJoinFailedSchema.parse(event)).toEqual(event);
    expect(event).toEqual({
      event_type: 'bot_join_failed',
      bot_id: botId,
      workflow_thread_id: botId,
      room_url: session.roomUrl,
      error_type: 'unknown',
      error_message: expect.stringContaining(reason),
      timestamp: now.toISOString(),
      duration_seconds: 42,
    });
    const failed = (await stack.deps.sessions.get(botId))!;
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining(reason) });

    // Through the results stage: the webhook carries exactly the spec's bot_join_failed fields (plus bot_id).
    const queued: unknown[] = [];
    await processControl(stack.controlDeps(queued), sent[0] as ControlPlaneMessage);
    expect(queued).toEqual([{ bot_id: botId, channel: 'webhook', event: 'bot_join_failed' }]);
    expect(await stack.deps.deliveries.get(botId, 'webhook', 'bot_failed')).toBeFalsy();
    const payload = JSON.parse(
      (await stack.deps.deliveries.get(botId, 'webhook', 'bot_join_failed'))!.payload,
    );
    expect(Object.keys(payload).sort()).toEqual(
      [
        'bot_id',
        'duration_seconds',
        'error_message',
        'error_type',
        'event_type',
        'room_url',
        'timestamp',
        'workflow_thread_id',
      ].sort(),
    );
  });

  it('a bot that had joined and then died with no replacement left sends bot_failed with its partial transcript', async () => {
    const botId = await startedBot('joined-then-died');
    const at = new Date().toISOString();
    await stack.deps.sessions.updateRunning(botId, {
      joinedAt: at,
      replacements: [
        { at, reason: 'killed by SIGKILL' },
        { at, reason: 'killed by SIGKILL' },
      ],
    });
    await stack.deps.transcripts.saveSegment(botId, 1, interview);
    const sent: OutboxMessage[] = [];
    // The BotTaskFailures alarm counts it (infra/constructs/operations.ts, docs/operations.md).
    const recorded = new MemoryMetrics();
    useMetricsSink(recorded);
    try {
      expect(await onTaskStopped(deps(sent), { botId, reason: 'OutOfMemoryError', clean: false })).toBe(
        'failed',
      );
    } finally {
      useMetricsSink(undefined);
    }
    expect(recorded.named(metricNames.botTaskFailures)).toMatchObject([{ unit: 'Count', value: 1 }]);
    expect(sent).toMatchObject([{ kind: 'bot_failed', event: { event_type: 'bot_failed' } }]);
    const queued: unknown[] = [];
    await processControl(stack.controlDeps(queued), sent[0] as ControlPlaneMessage);
    const payload = JSON.parse((await stack.deps.deliveries.get(botId, 'webhook', 'bot_failed'))!.payload);
    expect(payload.transcript_text).toContain('I like solving problems for people.');
  });

  it('a stop requested before it joined stays force_leave (session_ended), not a failure', async () => {
    const botId = await startedBot('stopped-while-joining');
    await stack.deps.sessions.updateRunning(botId, { stopRequestedAt: new Date().toISOString() });
    const sent: OutboxMessage[] = [];
    expect(await onTaskStopped(deps(sent), { botId, reason: 'SIGTERM', clean: false })).toBe('already_ended');
    expect(sent).toMatchObject([{ kind: 'session_ended', bot_id: botId, exit_reason: 'force_leave' }]);
  });
});
