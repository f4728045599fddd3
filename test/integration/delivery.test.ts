// Results and delivery through the local stack: insights, signed webhooks with retries and DLQ, e-mail via the
// local SES endpoint, idempotency under duplicate queue messages, and the SSRF guard.

import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../core/adapters/aws-clients';
import { MemoryMetrics } from '../../core/adapters/metrics/memory-metrics';
import { redriveDeliveries } from '../../core/adapters/sqs/redrive';
import { deliver } from '../../core/delivery/deliver';
import { createLogger } from '../../core/log';
import { metricNames, useMetricsSink } from '../../core/metrics';
import { MailRefusedError } from '../../core/ports/mailer';
import { addParticipant, joinBotInRoom, lines } from '../support/local-meeting';
import { meetingTestEnv, startTestStack, type TestStack } from '../support/local-stack';
import { recordingLogger } from '../support/recording-logger';
import { quietFor, until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

let stack: TestStack;
let key: string;
let secret: string;

beforeAll(async () => {
  stack = await startTestStack(meetingTestEnv);
  ({ apiKey: key, webhookSecret: secret } = await stack.account(100));
});
afterAll(() => stack?.close());

async function interview(room: string, body: Record<string, unknown>) {
  const { botId } = await joinBotInRoom(stack, key, room, body);
  await addParticipant(stack, room, {
    name: 'Ivy Interviewer',
    lines: lines([
      [100, 'Welcome! Could you tell me about your last project?'],
      [700, 'What was the hardest part of it?'],
    ]),
    leave_at_ms: 1600,
  });
  await addParticipant(stack, room, {
    name: 'Cal Candidate',
    lines: lines([
      [
        350,
        'I rebuilt our billing pipeline in TypeScript, cutting invoice errors by 40 percent over six months.',
      ],
      [
        950,
        'Migrating 2 million customer records without downtime; we ran both systems in parallel for three weeks.',
      ],
    ]),
    leave_at_ms: 1500,
  });
  return botId;
}

const status = async (botId: string) =>
  (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;

describe('end to end: interview → completed with insights → signed webhook → e-mail', () => {
  it('delivers session_complete whose signature verifies with standardwebhooks, and the e-mail', async () => {
    const hook = await webhookReceiver();
    try {
      const botId = await interview('e2e', { webhook_callback_url: hook.url, email: 'team@example.com' });
      const done = await until(async () => {
        const s = await status(botId);
        return s.status === 'completed' && s;
      });
      expect(done.exit_reason).toBe('participant_left');
      expect(done.transcript).toContain('Ivy Interviewer: Welcome!');
      expect(done.qa_pairs.length).toBeGreaterThanOrEqual(2);
      expect(done.qa_pairs[0]).toMatchObject({
        question: expect.stringContaining('last project'),
        answer: expect.stringContaining('billing'),
      });
      expect(done.insights).toMatchObject({ summary: expect.any(String), overall_score: expect.any(Number) });

      const delivered = await until(async () => hook.received[0]);
      const payload = new Webhook(secret).verify(delivered.body, {
        'webhook-id': String(delivered.headers['webhook-id']),
        'webhook-timestamp': String(delivered.headers['webhook-timestamp']),
        'webhook-signature': String(delivered.headers['webhook-signature']),
      }) as Record<string, unknown>;
      expect(payload).toMatchObject({
        event: 'session_complete',
        bot_id: botId,
        room_name: 'e2e',
        exit_reason: 'participant_left',
        transcript_text: done.transcript,
        summary: done.insights.summary,
        insights: done.insights,
        qa_pairs: done.qa_pairs,
        started_at: done.started_at,
        completed_at: done.completed_at,
        duration_seconds: expect.any(Number),
      });
      expect(payload).not.toHaveProperty('insights_error');

      const mails = await until(async () => {
        const store = (await (await fetch(`${stack.sesEndpoint}/store`)).json()) as {
          emails: { destination: { to: string[] }; subject: string; body: { html: string } }[];
        };
        return store.emails.find((m) => m.destination.to.includes('team@example.com')) && store.emails;
      });
      const mail = mails.find((m) => m.destination.to.includes('team@example.com'))!;
      expect(mail.subject).toMatch(/^Meeting results: e2e \(\d{4}-\d\d-\d\d\)$/);
      expect(mail.body.html).toContain('billing pipeline');

      const deliveries = await until(async () => {
        const d = (await stack.request('GET', `/api/bot/${botId}/deliveries`, { key })).body;
        return (
          d.deliveries.length === 2 &&
          d.deliveries.every((x: { status: string }) => x.status === 'delivered') &&
          d
        );
      });
      const webhook = deliveries.deliveries.find((d: { channel: string }) => d.channel === 'webhook');
      expect(webhook).toMatchObject({
        event: 'session_complete',
        target: hook.url,
        webhook_id: delivered.headers['webhook-id'],
      });
      expect(webhook.attempts).toEqual([
        { at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null },
      ]);
    } finally {
      await hook.close();
    }
  });

  it('process_insights false: Q&A pairs kept, no insights in the status or the webhook', async () => {
    const hook = await webhookReceiver();
    try {
      const botId = await interview('no-insights', {
        webhook_callback_url: hook.url,
        process_insights: false,
      });
      const done = await until(async () => {
        const s = await status(botId);
        return s.status === 'completed' && s;
      });
      expect(done.insights).toBeNull();
      const payload = JSON.parse((await until(async () => hook.received[0])).body);
      expect(payload).not.toHaveProperty('insights');
      expect(payload).not.toHaveProperty('insights_error');
      expect(payload.summary).toBe('');
    } finally {
      await hook.close();
    }
  });
});

describe('webhook retries', () => {
  it('a receiver failing 3 times then succeeding: delivered once, 4 attempts recorded', async () => {
    const hook = await webhookReceiver({ script: [500, 503, 429] });
    // The results and delivery stages run in this process: their metrics land here (core/metrics.ts).
    const recorded = new MemoryMetrics();
    useMetricsSink(recorded);
    try {
      const botId = await interview('flaky', { webhook_callback_url: hook.url });
      const d = await until(async () => {
        const list = (await stack.request('GET', `/api/bot/${botId}/deliveries`, { key })).body.deliveries;
        return list[0]?.status === 'delivered' && list[0];
      });
      expect(d.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 429, 200]);
      expect(d.attempts[0].error).toBe('HTTP 500');
      expect(hook.received).toHaveLength(4);
      // Every attempt carries the same webhook-id, so the receiver can deduplicate.
      expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      // No attempt after the one that succeeded.
      await quietFor(500);
      expect(hook.received).toHaveLength(4);
      expect(recorded.named(metricNames.webhookAttempts, { outcome: 'retry' }).length).toBeGreaterThanOrEqual(
        3,
      );
      expect(
        recorded.named(metricNames.webhookAttempts, { outcome: 'delivered' }).length,
      ).toBeGreaterThanOrEqual(1);
      expect(recorded.named(metricNames.webhookDeliveryAge)[0]).toMatchObject({ unit: 'Seconds' });
      expect(
        recorded.named(metricNames.sessionsEnded, { exit_reason: 'participant_left' }).length,
      ).toBeGreaterThan(0);
      expect(recorded.named(metricNames.botMinutes)[0]!.value).toBeGreaterThan(0);
      expect(recorded.named(metricNames.insightsLatency).length).toBeGreaterThan(0);
    } finally {
      useMetricsSink(undefined);
      await hook.close();
    }
  });

  it('a receiver that always fails: after the whole schedule the delivery is failed and in the DLQ', async () => {
    const answers = Array(50).fill(500);
    const hook = await webhookReceiver({ script: answers });
    try {
      const botId = await interview('down', { webhook_callback_url: hook.url });
      const d = await until(async () => {
        const list = (await stack.request('GET', `/api/bot/${botId}/deliveries`, { key })).body.deliveries;
        return list[0]?.status === 'failed' && list[0];
      }, 60_000);
      expect(d.attempts).toHaveLength(15);
      expect(hook.received).toHaveLength(15);
      const { ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
      const sqs = sqsClient(stack.config);
      const dlq = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: stack.config.DELIVERY_DLQ_URL,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 0,
        }),
      );
      // The parked job still names the join it came from (its correlation_id, the join's request id).
      expect((dlq.Messages ?? []).map((m) => JSON.parse(m.Body!))).toContainEqual({
        bot_id: botId,
        channel: 'webhook',
        event: 'session_complete',
        correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });

      // The receiver recovers; the operator redrives the DLQ (npm run admin -- deliveries redrive).
      answers.length = 0;
      const { redriven } = await redriveDeliveries(
        {
          sqs,
          queueUrl: stack.config.DELIVERY_QUEUE_URL,
          dlqUrl: stack.config.DELIVERY_DLQ_URL,
          deliveries: stack.deps.deliveries,
        },
        { botId },
      );
      expect(redriven).toEqual([
        { bot_id: botId, channel: 'webhook', event: 'session_complete', correlation_id: expect.any(String) },
      ]);
      const after = await until(async () => {
        const list = (await stack.request('GET', `/api/bot/${botId}/deliveries`, { key })).body.deliveries;
        return list[0]?.status === 'delivered' && list[0];
      });
      expect(after.attempts).toHaveLength(16);
    } finally {
      await hook.close();
    }
  });
});

describe('idempotency', () => {
  it('a duplicated delivery job sends one e-mail and one successful webhook', async () => {
    const hook = await webhookReceiver();
    try {
      const botId = await interview('dupes', { webhook_callback_url: hook.url, email: 'dupes@example.com' });
      await until(async () => {
        const list = (await stack.request('GET', `/api/bot/${botId}/deliveries`, { key })).body.deliveries;
        return list.length === 2 && list.every((d: { status: string }) => d.status === 'delivered');
      });
      const sqs = sqsClient(stack.config);
      for (const channel of ['webhook', 'email', 'webhook', 'email']) {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: stack.config.DELIVERY_QUEUE_URL,
            MessageBody: JSON.stringify({ bot_id: botId, channel, event: 'session_complete' }),
          }),
        );
      }
      // And the results message again, as SQS may deliver it twice.
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: stack.config.RESULTS_QUEUE_URL,
          MessageBody: JSON.stringify({
            kind: 'session_ended',
            bot_id: botId,
            exit_reason: 'participant_left',
            left_at: new Date().toISOString(),
          }),
        }),
      );
      // Every duplicate handled: the results queue, then the delivery queue its handling feeds, empty.
      const inQueue = async (QueueUrl: string) => {
        const { Attributes: a = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
      };
      await until(
        async () =>
          (await inQueue(stack.config.RESULTS_QUEUE_URL)) === 0 &&
          (await inQueue(stack.config.DELIVERY_QUEUE_URL)) === 0,
      );
      expect(hook.received).toHaveLength(1);
      const store = (await (await fetch(`${stack.sesEndpoint}/store`)).json()) as {
        emails: { destination: { to: string[] } }[];
      };
      expect(store.emails.filter((m) => m.destination.to.includes('dupes@example.com'))).toHaveLength(1);
    } finally {
      await hook.close();
    }
  });
});

describe('SSRF guard', () => {
  it('refuses a webhook whose host resolves to a private or metadata address, without a request', async () => {
    const hook = await webhookReceiver();
    try {
      const acct = await stack.account(5);
      const botId = '11111111-1111-4111-8111-111111111111';
      for (const [i, address] of ['169.254.169.254', '127.0.0.1', '10.0.0.7'].entries()) {
        const event = `probe_${i}`;
        await stack.deps.deliveries.create({
          botId,
          accountId: acct.accountId,
          channel: 'webhook',
          event,
          target: hook.url.replace('127.0.0.1', 'hooks.example.com').replace('http:', 'https:'),
          payload: '{}',
          messageId: `msg_${i}`,
          createdAt: new Date().toISOString(),
        });
        const outcome = await deliver(
          {
            stores: stack.deps,
            mailer: { send: async () => ({ messageId: 'x' }) },
            config: { ...stack.config, ALLOW_INSECURE_WEBHOOKS: false },
            log: createLogger('silent'),
            now: () => new Date(),
            resolve: async () => [address],
          },
          { bot_id: botId, channel: 'webhook', event },
        );
        expect(outcome).toMatchObject({
          kind: 'failed',
          reason: expect.stringContaining('not a public address'),
        });
        const d = await stack.deps.deliveries.get(botId, 'webhook', event);
        expect(d).toMatchObject({
          status: 'failed',
          attempts: [{ status_code: null, error: expect.stringMatching(/^blocked:/) }],
        });
      }
      expect(hook.received).toHaveLength(0);
    } finally {
      await hook.close();
    }
  });
});

describe('insights failure', () => {
  it('never loses the transcript: completed with insights null, and the webhook carries insights_error', async () => {
    const { processResults } = await import('../../core/results/process-results');
    const { InsightsError } = await import('../../core/ports/insights-engine');
    stack.deps.runner = { start: async (id) => ({ taskRef: `t:${id}` }), stop: async () => {} };
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        room_url: 'https://a.daily.co/failing-insights',
        webhook_callback_url: 'http://127.0.0.1:9/hook',
      },
    });
    const botId = res.body.bot_id as string;
    await stack.deps.transcripts.saveSegment(botId, 1, [
      {
        speaker: 'Ann',
        participant_id: 'a',
        started_at: new Date().toISOString(),
        text: 'What did we decide?',
      },
      {
        speaker: 'Ben',
        participant_id: 'b',
        started_at: new Date().toISOString(),
        text: 'We ship on Friday.',
      },
    ]);
    const queued: unknown[] = [];
    await processResults(
      stack.resultsDeps(
        {
          analyse: async () => {
            throw new InsightsError(
              'model_error',
              'Insights could not be generated: the model refused the request.',
            );
          },
        },
        queued,
      ),
      { kind: 'session_ended', bot_id: botId, exit_reason: 'stop_phrase', left_at: new Date().toISOString() },
    );
    const view = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    expect(view).toMatchObject({
      status: 'completed',
      insights: null,
      transcript: 'Ann: What did we decide?\nBen: We ship on Friday.',
    });
    expect(queued).toEqual([{ bot_id: botId, channel: 'webhook', event: 'session_complete' }]);
    const payload = JSON.parse(
      (await stack.deps.deliveries.get(botId, 'webhook', 'session_complete'))!.payload,
    );
    expect(payload.insights_error).toBe('Insights could not be generated: the model refused the request.');
    expect(payload).not.toHaveProperty('insights');
    expect(payload.transcript_text).toBe(view.transcript);
  });
});

describe('bot_failed', () => {
  it('the webhook carries the partial transcript from its segments, not from the queue message', async () => {
    const { failSession } = await import('../../core/bots/finish-session');
    stack.deps.runner = { start: async (id) => ({ taskRef: `t:${id}` }), stop: async () => {} };
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: { room_url: 'https://a.daily.co/crashing', webhook_callback_url: 'http://127.0.0.1:9/hook' },
    });
    const botId = res.body.bot_id as string;
    const now = new Date();
    await stack.deps.transcripts.saveSegment(botId, 1, [
      { speaker: 'Ann', participant_id: 'p-ann', started_at: now.toISOString(), text: 'half a thought' },
    ]);
    await failSession(
      { ...stack.deps, config: stack.config },
      botId,
      { error: 'the bot stopped unexpectedly: OutOfMemory', chargeUsage: true },
      now,
    );
    const queued: unknown[] = [];
    const event = {
      event_type: 'bot_failed' as const,
      bot_id: botId,
      room_url: 'https://a.daily.co/crashing',
      error_message: 'the bot stopped unexpectedly: OutOfMemory',
      timestamp: now.toISOString(),
      duration_seconds: 61,
    };
    const { processControl } = await import('../../core/control/process-control');
    await processControl(stack.controlDeps(queued), { kind: 'bot_failed', bot_id: botId, event });
    expect(queued).toEqual([{ bot_id: botId, channel: 'webhook', event: 'bot_failed' }]);
    const payload = JSON.parse((await stack.deps.deliveries.get(botId, 'webhook', 'bot_failed'))!.payload);
    expect(payload).toEqual({ ...event, transcript_text: 'Ann: half a thought' });
  });
});

describe('a 4-hour meeting (DynamoDB items are capped at 400 KB)', () => {
  it('completes with the whole transcript, and its webhook and e-mail are stored whole for delivery', async () => {
    const { processResults } = await import('../../core/results/process-results');
    const { LocalInsightsEngine } = await import('../../core/engines/rules/insights/local-engine');
    stack.deps.runner = { start: async (id) => ({ taskRef: `t:${id}` }), stop: async () => {} };
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        room_url: 'https://a.daily.co/all-day-offsite',
        webhook_callback_url: 'http://127.0.0.1:9/hook',
        email: 'organiser@example.com',
      },
    });
    const botId = res.body.bot_id as string;
    // Four hours at about 180 words a minute: 43,000 words from a seeded 600-word vocabulary (less repetitive,
    // so less compressible, than real speech), saved as the bot does: one segment per 3-second flush.
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const vocabulary = Array.from(
      { length: 600 },
      (_, i) => `${'bcdfghjklmnprstvw'[i % 17]}${'aeiou'[i % 5]}${i.toString(36)}`,
    );
    const start = Date.parse('2026-11-22T09:00:00Z');
    let words = 0;
    let seq = 0;
    const lines: string[] = [];
    while (words < 43_000) {
      seq++;
      const segment = Array.from({ length: 3 }, (_, j) => {
        const n = 3 + Math.floor(random() * 6);
        words += n;
        const text = `${Array.from({ length: n }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ')}${j === 1 ? '?' : '.'}`;
        const speaker = ['Ann', 'Ben', 'Chloe', 'Dev'][(seq + j) % 4]!;
        lines.push(`${speaker}: ${text}`);
        return {
          speaker,
          participant_id: speaker.toLowerCase(),
          started_at: new Date(start + seq * 3000 + j * 1000).toISOString(),
          text,
        };
      });
      await stack.deps.transcripts.saveSegment(botId, seq, segment);
    }
    const transcript = lines.join('\n');
    expect(transcript.length).toBeGreaterThan(250_000);

    const queued: unknown[] = [];
    await processResults(stack.resultsDeps(new LocalInsightsEngine(), queued), {
      kind: 'session_ended',
      bot_id: botId,
      exit_reason: 'max_duration',
      left_at: new Date().toISOString(),
    });
    const session = (await stack.deps.sessions.get(botId))!;
    expect(session.status).toBe('completed');
    // The transcript is kept once, in its segments; the status view reads it from there, whole.
    expect(session).not.toHaveProperty('transcript');
    const view = await stack.request('GET', `/api/bot/${botId}/status`, { key });
    expect(view.body.transcript).toBe(transcript);
    expect(session.qaPairs!.length).toBeGreaterThan(100);
    expect(queued).toHaveLength(2);

    const webhook = JSON.parse(
      (await stack.deps.deliveries.get(botId, 'webhook', 'session_complete'))!.payload,
    );
    expect(webhook.transcript_text).toBe(transcript);
    expect(webhook.qa_pairs).toEqual(session.qaPairs);
    const mail = JSON.parse((await stack.deps.deliveries.get(botId, 'email', 'session_complete'))!.payload);
    expect(mail.text).toContain(lines.at(-1));
    expect(mail.html.length + mail.text.length).toBeGreaterThan(2 * transcript.length);
  }, 60_000);
});

describe('long retry delays (SQS limits)', () => {
  async function pendingDue(inSeconds: number, event: string) {
    const acct = await stack.account(1);
    const botId = '22222222-2222-4222-8222-222222222222';
    await stack.deps.deliveries.create({
      botId,
      accountId: acct.accountId,
      channel: 'webhook',
      event,
      target: 'http://127.0.0.1:9/hook',
      payload: '{}',
      messageId: `msg_${event}`,
      createdAt: new Date().toISOString(),
    });
    const d = (await stack.deps.deliveries.get(botId, 'webhook', event))!;
    const claimed = await stack.deps.deliveries.claim(botId, 'webhook', event, Date.now() + 1000, Date.now());
    expect(claimed).not.toBeNull();
    const next = new Date(Date.now() + inSeconds * 1000).toISOString();
    await stack.deps.deliveries.recordAttempt(
      d,
      { at: new Date().toISOString(), status_code: 500, latency_ms: 1, error: 'HTTP 500' },
      { status: 'pending', nextAttemptAt: next },
    );
    return { botId, event };
  }
  const deps = () => ({
    stores: stack.deps,
    mailer: { send: async () => ({ messageId: 'x' }) },
    config: stack.config,
    log: createLogger('silent'),
    now: () => new Date(),
  });

  it('a job that arrives before its attempt is due sends nothing and waits for the rest', async () => {
    const { botId, event } = await pendingDue(600, 'early');
    const outcome = await deliver(deps(), { bot_id: botId, channel: 'webhook', event });
    expect(outcome.kind).toBe('retry');
    expect((outcome as { delaySeconds: number }).delaySeconds).toBeGreaterThan(590);
    expect((await stack.deps.deliveries.get(botId, 'webhook', event))?.attempts).toHaveLength(1);
  });

  it('a job that finds the send claimed by another worker comes back when the claim ends, not dropped', async () => {
    const acct = await stack.account(1);
    const botId = '33333333-3333-4333-8333-333333333333';
    await stack.deps.deliveries.create({
      botId,
      accountId: acct.accountId,
      channel: 'webhook',
      event: 'claimed',
      target: 'http://127.0.0.1:9/hook',
      payload: '{}',
      messageId: 'msg_claimed',
      createdAt: new Date().toISOString(),
    });
    // A worker claimed it and died before recording anything.
    expect(
      await stack.deps.deliveries.claim(botId, 'webhook', 'claimed', Date.now() + 40_000, Date.now()),
    ).not.toBeNull();
    const outcome = await deliver(deps(), { bot_id: botId, channel: 'webhook', event: 'claimed' });
    expect(outcome.kind).toBe('retry');
    expect((outcome as { delaySeconds: number }).delaySeconds).toBeGreaterThan(35);
    expect((outcome as { delaySeconds: number }).delaySeconds).toBeLessThanOrEqual(40);
    expect((await stack.deps.deliveries.get(botId, 'webhook', 'claimed'))?.status).toBe('pending');
  });

  it('a failed delivery whose message comes back (its DLQ send failed) is parked again, not dropped', async () => {
    const { botId, event } = await pendingDue(0, 'parked');
    const d = (await stack.deps.deliveries.get(botId, 'webhook', event))!;
    await stack.deps.deliveries.recordAttempt(
      d,
      { at: new Date().toISOString(), status_code: 500, latency_ms: 1, error: 'HTTP 500' },
      { status: 'failed' },
    );
    expect(await deliver(deps(), { bot_id: botId, channel: 'webhook', event })).toEqual({
      kind: 'failed',
      reason: 'HTTP 500',
    });
  });

  it('a wait beyond the 12-hour visibility budget continues in a fresh, delayed copy of the job', async () => {
    const { mockClient } = await import('aws-sdk-client-mock');
    const { ChangeMessageVisibilityCommand, SQSClient } = await import('@aws-sdk/client-sqs');
    const { makeDeliveryHandler } = await import('../../functions/delivery/handler');
    const { botId, event } = await pendingDue(11 * 3600, 'long-wait');
    const sqs = mockClient(SQSClient);
    sqs.onAnyCommand().resolves({});
    const client = new SQSClient({ region: 'us-east-1' });
    const handler = makeDeliveryHandler(deps(), {
      sqs: client,
      queueUrl: 'https://sqs/q',
      dlqUrl: 'https://sqs/dlq',
    });
    const body = JSON.stringify({ bot_id: botId, channel: 'webhook', event });
    const record = {
      messageId: 'm1',
      receiptHandle: 'r1',
      body,
      attributes: {
        ApproximateFirstReceiveTimestamp: String(Date.now() - 2 * 3600_000),
        ApproximateReceiveCount: '3',
      },
    };
    const out = await handler({ Records: [record] } as never);
    expect(out.batchItemFailures).toEqual([]); // this copy is done…
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
    const sent = sqs.commandCalls(SendMessageCommand);
    expect(sent).toHaveLength(1); // …and a fresh one continues the wait
    expect(sent[0]!.args[0].input).toMatchObject({
      QueueUrl: 'https://sqs/q',
      MessageBody: body,
      DelaySeconds: 900,
    });
    sqs.restore();
  });
});

describe('SES refusals (core/adapters/ses/ses-refusals.ts)', () => {
  /** A pending e-mail delivery of a fresh bot, sent by a mailer that refuses as SES would. */
  async function refusedBy(refusal: MailRefusedError, event: string) {
    const acct = await stack.account(1);
    const botId = '44444444-4444-4444-8444-444444444444';
    await stack.deps.deliveries.create({
      botId,
      accountId: acct.accountId,
      channel: 'email',
      event,
      target: 'team@acme.example',
      payload: JSON.stringify({ subject: 's', html: '<p>h</p>', text: 't' }),
      messageId: `msg_${event}`,
      createdAt: new Date().toISOString(),
    });
    const lines: string[] = [];
    const sink = new MemoryMetrics();
    useMetricsSink(sink);
    try {
      const outcome = await deliver(
        {
          stores: stack.deps,
          mailer: {
            send: async () => {
              throw refusal;
            },
          },
          config: stack.config,
          log: recordingLogger(lines),
          now: () => new Date(),
        },
        { bot_id: botId, channel: 'email', event },
      );
      const delivery = await stack.deps.deliveries.get(botId, 'email', event);
      return { outcome, delivery, lines, sink };
    } finally {
      useMetricsSink(undefined);
    }
  }

  it('a permanent refusal (the sandbox’s unverified recipient) is failed after one attempt, with the reason, counted and logged', async () => {
    const reason =
      'SES refused the message: MessageRejected: Email address is not verified. The following identities failed ' +
      'the check in region US-EAST-1: team@acme.example';
    const { outcome, delivery, lines, sink } = await refusedBy(
      new MailRefusedError('MessageRejected', reason, true),
      'refused-for-good',
    );
    expect(outcome).toEqual({ kind: 'failed', reason });
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attempts.map((a) => a.error)).toEqual([reason]);
    expect(sink.named(metricNames.emailRefusals, { kind: 'permanent' })).toHaveLength(1);
    expect(sink.named(metricNames.emails, { outcome: 'failed' })).toHaveLength(1);
    expect(lines).toContain('error e-mail refused by SES for good; recorded failed, not retried');
  });

  it('a transient refusal (throttling) stays pending on the retry schedule, counted as transient', async () => {
    const { outcome, delivery, sink } = await refusedBy(
      new MailRefusedError('TooManyRequestsException', 'SES refused the message: too many requests', false),
      'refused-for-now',
    );
    expect(outcome.kind).toBe('retry');
    expect(delivery?.status).toBe('pending');
    expect(delivery?.nextAttemptAt).toBeDefined();
    expect(sink.named(metricNames.emailRefusals, { kind: 'transient' })).toHaveLength(1);
  });
});
