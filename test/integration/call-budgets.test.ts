// What each hot path costs, counted rather than timed: AWS SDK calls by kind (through every client's middleware stack),
// log lines and metric records, per operation, through the local stack. Each count is held to a budget written here
// with the reason for every call beside it. A change that adds a call changes its budget in the same commit, visibly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotContext, liveTranscriptSender } from '../../bot-task/bot';
import { joinedRoom } from '../../bot-task/bot-life';
import { TranscriptRecorder } from '../../bot-task/transcript-recorder';
import { captureClientsWith } from '../../core/adapters/aws-clients';
import { completeSession } from '../../core/bots/finish-session';
import { BotLife } from '../../core/bots/lifecycle';
import type { BotSession } from '../../core/bots/session';
import { lifecycleEvent } from '../../core/control/messages';
import { createLogger } from '../../core/log';
import { useMetricsSink } from '../../core/metrics';
import type { TaskRunner } from '../../core/ports/task-runner';
import { startTestStack, type TestStack } from '../support/local-stack';
import { elapse, until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

/** `Client.Command` → how many calls, since the last reset. Pollers' long polls are not an operation's cost. */
const calls = new Map<string, number>();
/** Queue name → messages sent to it, since the last reset (which stage's queue an operation loads). */
const sentTo = new Map<string, number>();
const ignored = new Set(['SQSClient.ReceiveMessageCommand']);
/** The `type` of each item of each BatchWriteItem put, since the last reset: what a batched write carries. */
const batched: string[][] = [];
/** An attribute's value as the document client or the low-level client holds it. */
const plain = (v: unknown) => (v && typeof v === 'object' && 'S' in v ? (v as { S: string }).S : v);
captureClientsWith((client) => {
  const stack = (client as { middlewareStack?: { add: (m: unknown, o: unknown) => void } }).middlewareStack;
  stack?.add(
    (next: (args: unknown) => Promise<unknown>, context: { clientName?: string; commandName?: string }) =>
      (args: unknown) => {
        const kind = `${context.clientName}.${context.commandName}`;
        if (!ignored.has(kind)) calls.set(kind, (calls.get(kind) ?? 0) + 1);
        const requests = (
          args as {
            input?: { RequestItems?: Record<string, { PutRequest?: { Item?: Record<string, unknown> } }[]> };
          }
        ).input?.RequestItems;
        if (kind === 'DynamoDBClient.BatchWriteItemCommand' && requests)
          batched.push(
            Object.values(requests)
              .flat()
              .map((r) => String(plain(r.PutRequest?.Item?.type))),
          );
        const queueUrl = (args as { input?: { QueueUrl?: string } }).input?.QueueUrl;
        if (kind === 'SQSClient.SendMessageCommand' && queueUrl) {
          const queue = queueUrl.slice(queueUrl.lastIndexOf('/') + 1);
          sentTo.set(queue, (sentTo.get(queue) ?? 0) + 1);
        }
        return next(args);
      },
    { step: 'initialize', name: 'callBudgetCounter' },
  );
  return client;
});

/** Metric records by name (on AWS each invocation writes its records as one EMF document). */
const metricRecords: string[] = [];
useMetricsSink({ record: (name) => void metricRecords.push(name), flush: () => {} });

/** Log lines at the shipped level (info), counted where Powertools writes them (and kept out of the test's output). */
let logLines = 0;
const logged: string[] = [];
for (const out of [process.stdout, process.stderr]) {
  const write = out.write.bind(out) as (...a: unknown[]) => boolean;
  out.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    if (!text.startsWith('{"level"')) return write(chunk, ...rest);
    const lines = text.split('\n').filter(Boolean);
    logLines += lines.length;
    logged.push(...lines);
    return true;
  }) as typeof out.write;
}

interface Cost {
  calls: Record<string, number>;
  logLines: number;
  metricRecords: string[];
}

function reset() {
  logged.length = 0;
  batched.length = 0;
  calls.clear();
  sentTo.clear();
  logLines = 0;
  metricRecords.length = 0;
}

/** DynamoDB calls of every kind, since the last reset. */
function dynamoCalls(): number {
  return [...calls].filter(([kind]) => kind.startsWith('DynamoDBClient.')).reduce((n, [, c]) => n + c, 0);
}

function cost(): Cost {
  return {
    calls: Object.fromEntries([...calls].sort(([a], [b]) => a.localeCompare(b))),
    logLines,
    metricRecords: [...metricRecords].sort(),
  };
}

/** Stands in for the task runner: the bot process (its own calls, another process) is not the API's cost. */
const noopRunner: TaskRunner = {
  start: async (botId) => ({ taskRef: `budget:${botId}` }),
  stop: async () => {},
};

let stack: TestStack;
let key: string;
let botId: string;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
let secret: string;

beforeAll(async () => {
  receiver = await webhookReceiver();
  stack = await startTestStack({
    LOG_LEVEL: 'info',
    // The key and status caches as shipped; no background sweep inside the measured windows.
    KEY_CACHE_TTL_MS: '5000',
    HEARTBEAT_MS: '3600000',
    // Nor the scheduler's run (a Query per minute of its horizon), which a loaded machine can move into a window.
    SCHEDULE_TICK_MS: '3600000',
    // The pooled join's fallback stays queued (delayed) until the stack closes: no cold start inside a window.
    POOL_CLAIM_TIMEOUT_MS: '600000',
    // The signing secret read once per account per process (shipped: for 60 s): kept warm across the windows, however
    // long a loaded machine takes between them, so the utterance's window counts a warm delivery stage's calls.
    WEBHOOK_SECRET_CACHE_MS: '3600000',
  });
  stack.deps.runner = noopRunner;
  const account = await stack.account(50);
  key = account.apiKey;
  secret = account.webhookSecret;
  // One request before the measured ones: the key is then in its cache, as for any customer's second request.
  await stack.request('GET', '/api/bots', { key });
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** A join of a bot in the demo room whose webhook is this test's receiver, for `events`. */
const joinWith = (events: string[]) =>
  stack.request('POST', '/api/bot/join', {
    key,
    body: {
      room_url: `${stack.baseUrl}/rooms/demo`,
      provider: 'local',
      webhook_callback_url: receiver.url,
      webhook_events: events,
    },
  });

describe('hot-path budgets (calls, log lines, metric records per operation)', () => {
  it('join: the conditional credit hold and one batched session write; the pool is off, so nothing is queued', async () => {
    reset();
    const res = await joinWith(['bot.in_call']);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    botId = res.body.bot_id;
    expect(cost()).toEqual({
      calls: {
        // The hold: one conditional UpdateItem on the account item (balance and running count together).
        'DynamoDBClient.UpdateItemCommand': 1,
        // The session, the account's list entry of the bot and the hold's ledger entry, in one request.
        'DynamoDBClient.BatchWriteItemCommand': 1,
      },
      // "bot started", with bot_id and account_id.
      logLines: 1,
      // The joins-by-outcome record is the Lambda entry's (functions/http/join.ts), one EMF document per invocation.
      metricRecords: [],
    } satisfies Cost);
    // Was four items: the retention sweep's entry is written by the session's end (finish-session.ts), not the join.
    expect(batched).toEqual([['session', 'account_bot', 'ledger']]);
  });

  it('status read: the session and its new transcript segments on a miss, nothing on a cache hit', async () => {
    reset();
    expect((await stack.request('GET', `/api/bot/${botId}/status`, { key })).status).toBe(200);
    const missBeforeSpeech = cost();
    reset();
    expect((await stack.request('GET', `/api/bot/${botId}/status`, { key })).status).toBe(200);
    const hit = cost();
    // The session item (small: the transcript is not on it), and nothing else while the bot saved no line: the session
    // says so (its transcript mark, written before the first segment).
    expect(missBeforeSpeech).toEqual({
      calls: { 'DynamoDBClient.GetItemCommand': 1 },
      logLines: 0,
      metricRecords: [],
    });
    expect(hit).toEqual({ calls: {}, logLines: 0, metricRecords: [] });

    await stack.deps.transcripts.saveSegment(botId, 1, [
      { speaker: 'Ada', participant_id: 'p-ada', started_at: new Date().toISOString(), text: 'Hello.' },
    ]);
    // The status cache's entry expires.
    await elapse(Number(stack.deps.config.STATUS_CACHE_TTL_MS) + 50);
    reset();
    const res = await stack.request('GET', `/api/bot/${botId}/status`, { key });
    expect(res.body.transcript).toBe('Ada: Hello.');
    expect(cost()).toEqual({
      calls: {
        'DynamoDBClient.GetItemCommand': 1,
        // The transcript: the segments saved since this process last read them (one Query per task of the bot).
        'DynamoDBClient.QueryCommand': 1,
      },
      logLines: 0,
      metricRecords: [],
    });
  });

  it('a lifecycle event, from the bot’s message to the signed POST: 4 DynamoDB and 4 SQS calls', async () => {
    const session = (await stack.deps.sessions.get(botId)) as BotSession;
    reset();
    // What the bot sends (bot-task/bot.ts sendBotEvent): one message on the bot-events queue, addressed by the bot.
    await stack.outbox.send(lifecycleEvent(session, { event: 'bot.in_call', data: {} }));
    await until(() => receiver.delivered(secret).length === 1, 10_000);
    // The delivery stage deletes its message after the POST: give it the moment.
    await until(() => (calls.get('SQSClient.DeleteMessageBatchCommand') ?? 0) >= 2, 5_000);
    expect(cost()).toEqual({
      calls: {
        // The delivery stage's read of the account's signing secret (then kept for WEBHOOK_SECRET_CACHE_MS). The
        // control stage reads nothing: the bot wrote the webhook URL and events into its message, and a first
        // receipt from the FIFO queue was never handled before (a redelivered or old one looks).
        'DynamoDBClient.GetItemCommand': 1,
        // Control stage: status change and event number on the session, in one conditional write (the same event
        // received again right after gets its first number back). Delivery stage: the claim, which also creates
        // the delivery record the job carries (was a separate conditional put by the control stage), and the
        // attempt recorded. Gone: the order mark (first attempts in seq order come from the FIFO bot-events queue
        // and the delivery stage taking a bot's jobs of a batch one after another).
        'DynamoDBClient.UpdateItemCommand': 3,
        // Each stage deletes the message it handled.
        'SQSClient.DeleteMessageBatchCommand': 2,
        // The bot's message to the bot-events queue; the delivery job.
        'SQSClient.SendMessageCommand': 2,
      },
      // The delivery stage's line for the attempt.
      logLines: 1,
      // Webhook attempts by outcome, and the delivery's latency.
      metricRecords: expect.any(Array),
    } satisfies Cost);
    expect(cost().metricRecords).toHaveLength(2);
    expect(Object.fromEntries(sentTo)).toEqual({ 'bot-events.fifo': 1, delivery: 1 });
  });

  it('leave: the session read (its owner, its state), the stop request on it and in its own item', async () => {
    reset();
    expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key })).status).toBe(202);
    expect(cost()).toEqual({
      calls: {
        'DynamoDBClient.GetItemCommand': 1,
        // The session's stop_requested_at (what the pool's claim, replacements and the sweeper check).
        'DynamoDBClient.UpdateItemCommand': 1,
        // The small stop item the running bot polls every STOP_POLL_MS instead of its whole session.
        'DynamoDBClient.PutItemCommand': 1,
      },
      logLines: 0,
      metricRecords: [],
    } satisfies Cost);
  });

  it('the end: the session read, the credits settled, the retention entry, the completion', async () => {
    reset();
    expect(
      await completeSession({ ...stack.deps, config: stack.deps.config }, botId, {
        exitReason: 'force_leave',
      }),
    ).toBe(true);
    expect(cost()).toEqual({
      calls: {
        // The session (its state, its account, when it joined); the settle's read of the account's hold; the
        // account's retention_days, which dates the retention entry (so the sweep looks at the meeting once, when due).
        'DynamoDBClient.GetItemCommand': 3,
        // The settle's decision (its `release` entry, conditional). One more than the join used to pay for: the
        // retention sweep's entry, which the end writes (before the completion, so a retry writes it again) instead
        // of every join's batch (was one item of it), so only a session that ended is ever listed.
        'DynamoDBClient.PutItemCommand': 2,
        // The hold released on the account item; the completion itself (conditional on the session running).
        'DynamoDBClient.UpdateItemCommand': 2,
      },
      logLines: 0,
      metricRecords: expect.any(Array),
    } satisfies Cost);
  });

  it('a transcript utterance, from the bot’s save to its signed transcript.data: 4 DynamoDB and 4 SQS calls, the first one too', async () => {
    const res = await joinWith(['transcript.data']);
    expect(res.status).toBe(201);
    const session = (await stack.deps.sessions.get(res.body.bot_id)) as BotSession;
    const log = createLogger('silent');
    const ctx = {
      session,
      stores: stack.deps,
      outbox: stack.outbox,
      log,
      attempt: 0,
    } as unknown as BotContext;
    // The bot's own recorder and live sender (bot-task), on this stack's stores: the bot process's calls, counted here.
    const live = liveTranscriptSender(ctx);
    const recorder = new TranscriptRecorder(session.botId, stack.deps, 60_000, log, 0, live);
    const line = (text: string) => ({
      speaker: 'Ada',
      participant_id: 'p-ada',
      started_at: new Date().toISOString(),
      text,
    });
    // The bot gets into the room (not an utterance's cost): its join write (joined_at, and the transcript mark that
    // tells status reads there may be segments) and bot.in_call, whose status change the control stage records.
    reset();
    joinedRoom(ctx, new BotLife('joining', session.botId), recorder);
    await until(() => (calls.get('SQSClient.DeleteMessageBatchCommand') ?? 0) >= 1, 10_000);
    expect(await stack.deps.sessions.get(session.botId)).toMatchObject({
      joinedAt: expect.any(String),
      transcriptAt: expect.any(String),
    });

    const utterance = async (text: string) => {
      const before = receiver.delivered(secret).length;
      reset();
      recorder.add(line(text));
      await recorder.flush();
      await until(() => receiver.delivered(secret).length === before + 1, 10_000);
      await until(() => (calls.get('SQSClient.DeleteMessageBatchCommand') ?? 0) >= 2, 5_000);
      return { cost: cost(), sent: Object.fromEntries(sentTo), dynamo: dynamoCalls() };
    };
    const expected = {
      cost: {
        calls: {
          // No read: the signing secret read for the lifecycle event above is reused (WEBHOOK_SECRET_CACHE_MS; a cold
          // delivery stage reads it once per account), and the control stage reads nothing, as for a lifecycle event.
          // Bot: the segment, the transcript's only copy. The task's first segment no longer marks the session first
          // (was one UpdateItem more, 5 calls for the first line): the join write above carries the mark.
          'DynamoDBClient.PutItemCommand': 1,
          // Control stage: the event number on the session. Delivery stage: the attempt recorded. Was 4 updates and 2
          // puts: the control stage's put of the delivery record and the order mark are gone, as is the bot's rewrite
          // of the whole live transcript on the session at every save.
          'DynamoDBClient.UpdateItemCommand': 2,
          // Delivery stage: the claim, which creates the delivery record (webhook-id, seq, body) the job carried. Was
          // an UpdateItem: the body is meeting content, so it is stored in a transaction with a check on the session
          // that its data is not deleted (a job queued before a deletion never stores or sends it again). Same count.
          'DynamoDBClient.TransactWriteItemsCommand': 1,
          // Each stage deletes the message it handled.
          'SQSClient.DeleteMessageBatchCommand': 2,
          // Bot: the batch's event to the bot-events queue; control stage: the delivery job.
          'SQSClient.SendMessageCommand': 2,
        },
        logLines: 1,
        metricRecords: expect.any(Array),
      } satisfies Cost,
      sent: { 'bot-events.fifo': 1, delivery: 1 },
      // The target for an utterance, end to end: at most 4 DynamoDB calls.
      dynamo: 4,
    };
    expect(await utterance('Hello.')).toEqual(expected);
    expect(await utterance('We ship on Friday.')).toEqual(expected);
    expect(receiver.delivered(secret).at(-1)).toMatchObject({
      event: 'transcript.data',
      data: { utterances: [{ text: 'We ship on Friday.', seq: 2 }] },
    });
    // The first line was never hidden from a status read by the missing segment mark.
    await recorder.stop();
    expect((await stack.request('GET', `/api/bot/${session.botId}/status`, { key })).body.transcript).toBe(
      'Ada: Hello.\nAda: We ship on Friday.',
    );
  });

  it('join with the warm pool on: the same two writes, the offer’s wake-up and its fallback; nothing on the results queue', async () => {
    const { config } = stack.deps;
    stack.deps.config = { ...config, BOT_POOL_SIZE: 1 };
    try {
      // The key into its cache again (the windows before took longer than its 5 s), as in the first join's window.
      await stack.request('GET', '/api/bots', { key });
      reset();
      const res = await joinWith(['bot.in_call']);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(cost()).toEqual({
        calls: {
          // The hold, then the session (offered to the pool), its list entry and the hold's entry in one batch.
          'DynamoDBClient.UpdateItemCommand': 1,
          'DynamoDBClient.BatchWriteItemCommand': 1,
          // The cold-start fallback, delayed by POOL_CLAIM_TIMEOUT_MS; the wake-up of an idle pooled bot.
          'SQSClient.SendMessageCommand': 2,
        },
        logLines: 1,
        metricRecords: [],
      } satisfies Cost);
      // Was `results: 1` (the fallback rode the results queue and its Lambda just to find the session claimed):
      // the fallback is the control plane's, on its own queue.
      expect(Object.fromEntries(sentTo)).toEqual({ control: 1, pool: 1 });
    } finally {
      stack.deps.config = config;
    }
  });
});
