// Local SQS: fauxqs in-process, with the queues and dead-letter queues the AWS stack defines.
//
// fauxqs keeps messages in memory only. With a state file (the local stack puts it under DATA_DIR) the messages
// are saved every second and on stop, and sent again on the next start, each due when it was: a delivery waiting
// hours for its next retry (a message kept invisible) is not lost by restarting `npm start`. A message that was
// being handled when the process died comes back when its visibility would have ended, as SQS would redeliver it.
import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { sqsClient } from '../core/adapters/aws-clients';
import { type QueueLimits, queueLimits } from '../infra/limits';

/** Each queue's visibility, redrive and retention: the deployed ones (infra/limits.ts) unless a test changes one. */
export type LocalQueueLimits = { [K in keyof typeof queueLimits]: QueueLimits };

export interface LocalQueue {
  url: string;
  arn: string;
}

export type LocalQueues = Awaited<ReturnType<typeof startLocalQueues>>;

/** One saved message: its queue's name, body, attributes, and when it becomes visible (epoch ms). */
interface SavedMessage {
  queue: string;
  body: string;
  /** String and Number attributes (the service sends no binary ones). */
  attributes?: Record<string, { DataType: string; StringValue: string }>;
  /** A FIFO queue's message group. */
  group?: string;
  due_at: number;
}

interface QueueState {
  version: 1;
  saved_at: string;
  messages: SavedMessage[];
}

/** SendMessage can delay a message by at most 15 minutes; later ones wait in this process until then. */
const sqsMaxDelayMs = 900_000;

type SqsMessage = NonNullable<ReturnType<FauxqsServer['inspectQueue']>>['messages']['ready'][number];
const saveEveryMs = 1_000;

export async function startLocalQueues(
  options: {
    stateFile?: string;
    /** SendMessage's longest delay (15 minutes); tests shorten it. */
    maxDelayMs?: number;
    /** The queues' limits: the deployed ones by default. */
    limits?: LocalQueueLimits;
  } = {},
) {
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' } as Parameters<
    typeof startFauxqs
  >[0]);
  const urls = new Map<string, string>();
  const limits = options.limits ?? queueLimits;
  const withDlq = (name: string, own: QueueLimits, fifo = false) => {
    // A FIFO queue's name ends in .fifo, and so does its DLQ's (SQS requires a FIFO DLQ for it).
    const suffix = fifo ? '.fifo' : '';
    const fifoAttributes: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
    const dlq = server.createQueue(`${name}-dlq${suffix}`, { attributes: fifoAttributes });
    name = `${name}${suffix}`;
    const queue = server.createQueue(name, {
      attributes: {
        ...fifoAttributes,
        VisibilityTimeout: String(own.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(own.retentionSeconds),
        MaximumMessageSize: String(own.maxMessageBytes),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlq.queueArn,
          maxReceiveCount: String(own.maxReceiveCount),
        }),
      },
    });
    urls.set(name, queue.queueUrl);
    urls.set(dlq.queueName, dlq.queueUrl);
    return [
      { url: queue.queueUrl, arn: queue.queueArn },
      { url: dlq.queueUrl, arn: dlq.queueArn },
    ] as const;
  };
  // The deployed visibility timeouts: a failed or timed-out batch comes back as late here as on AWS (6 minutes for
  // the control plane's), and a message goes to its DLQ after the deployed number of receives.
  const [results, resultsDlq] = withDlq('results', limits.results);
  // The control plane's decisions (cold starts, replacements).
  const [control, controlDlq] = withDlq('control', limits.control);
  // Events of a bot's life: FIFO, one group per bot (fauxqs keeps a group's order and holds it while one is in flight).
  const [botEvents, botEventsDlq] = withDlq('bot-events', limits.botEvents, true);
  const [delivery, deliveryDlq] = withDlq('delivery', limits.delivery);
  // As the stack's: no DLQ (a wake-up that keeps failing only wakes again until it expires), short retention, and
  // left out of `urls`, so it is never saved: after a restart the fallback has served every offer anyway.
  const poolQueue = server.createQueue('pool', {
    attributes: {
      VisibilityTimeout: String(limits.pool.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(limits.pool.retentionSeconds),
      MaximumMessageSize: String(limits.pool.maxMessageBytes),
    },
  });
  const pool: LocalQueue = { url: poolQueue.queueUrl, arn: poolQueue.queueArn };

  const stateFile = options.stateFile;
  const maxDelayMs = options.maxDelayMs ?? sqsMaxDelayMs;
  const sqs = sqsClient({ AWS_REGION: 'local', SQS_ENDPOINT: server.address });
  /** Restored messages due more than 15 minutes from now: held here (and saved) until SendMessage can take them. */
  const held = new Map<SavedMessage, NodeJS.Timeout>();

  const send = async (m: SavedMessage) => {
    const url = urls.get(m.queue);
    if (!url) return;
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: m.body,
        // A FIFO queue takes no per-message delay: its saved messages (at most in flight when saved) go back at once.
        ...(m.group
          ? { MessageGroupId: m.group, MessageDeduplicationId: randomUUID() }
          : {
              DelaySeconds: Math.min(
                maxDelayMs / 1000,
                Math.max(0, Math.ceil((m.due_at - Date.now()) / 1000)),
              ),
            }),
        ...(m.attributes && Object.keys(m.attributes).length > 0 && { MessageAttributes: m.attributes }),
      }),
    );
  };
  let stopped = false;
  /** Sends a held message once it is due within SendMessage's reach; it stays held (and saved) until sent. */
  const release = async (m: SavedMessage) => {
    try {
      await send(m);
      held.delete(m);
    } catch {
      // fauxqs runs in this process, so this fails only while it stops; otherwise try again shortly.
      if (!stopped) held.set(m, setTimeout(() => void release(m), saveEveryMs).unref());
    }
  };
  const schedule = async (m: SavedMessage) => {
    if (m.due_at - Date.now() <= maxDelayMs) return send(m);
    held.set(m, setTimeout(() => void release(m), m.due_at - Date.now() - maxDelayMs).unref());
  };

  let restored = 0;
  const state = stateFile ? readState(stateFile) : { messages: [] };
  for (const m of state.messages) {
    await schedule(m);
    restored++;
  }

  let lastSaved = '';
  const save = () => {
    if (!stateFile) return;
    const messages: SavedMessage[] = [...held.keys()];
    for (const name of urls.keys()) {
      const q = server.inspectQueue(name);
      if (!q) continue;
      const now = Date.now();
      const saved = (m: SqsMessage, due: number): SavedMessage => {
        const attributes: NonNullable<SavedMessage['attributes']> = {};
        for (const [k, v] of Object.entries(m.messageAttributes ?? {})) {
          if (typeof v.StringValue === 'string')
            attributes[k] = { DataType: v.DataType, StringValue: v.StringValue };
        }
        return {
          queue: name,
          body: m.body,
          ...(Object.keys(attributes).length > 0 && { attributes }),
          ...(m.messageGroupId && { group: m.messageGroupId }),
          due_at: due,
        };
      };
      // Ready: due at once (0, not now, so an unchanged queue saves the same text and is not rewritten).
      // In the order they were sent, whatever their state now, so a restart sends them again in that order (a message
      // made visible again by releaseUnreceived sits behind later ones in fauxqs' ready list).
      const all = [
        ...q.messages.ready.map((m) => [m, 0] as const),
        ...q.messages.delayed.map((m) => [m, m.delayUntil ?? now] as const),
        ...q.messages.inflight.map((e) => [e.message, e.visibilityDeadline] as const),
      ].sort(([a], [b]) => a.sentTimestamp - b.sentTimestamp);
      for (const [m, due] of all) messages.push(saved(m, due));
    }
    const text = JSON.stringify(messages);
    if (text === lastSaved) return;
    const state: QueueState = { version: 1, saved_at: new Date().toISOString(), messages };
    writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
    renameSync(`${stateFile}.tmp`, stateFile);
    lastSaved = text;
  };
  // The restored messages are in the queues now: write them back at once, so a crash right after start keeps them.
  save();
  // A failed write (disk full) must not take the local stack down: the next tick tries again.
  let saveError: unknown;
  const saver = stateFile
    ? setInterval(() => {
        try {
          save();
          saveError = undefined;
        } catch (err) {
          if (!saveError) process.emitWarning(`local queues: could not save ${stateFile}: ${String(err)}`);
          saveError = err;
        }
      }, saveEveryMs).unref()
    : undefined;

  return {
    endpoint: server.address,
    results,
    resultsDlq,
    control,
    controlDlq,
    botEvents,
    botEventsDlq,
    delivery,
    deliveryDlq,
    /** The warm pool's wake-up (POOL_QUEUE_URL): not saved across restarts, an offer is stale in seconds. */
    pool,
    /** How many saved messages the start put back (0 without a state file). */
    restored,
    /** Set when the state file could not be read: where it was moved aside. */
    damagedStateFile: state.movedAside,
    /**
     * Makes visible again the messages of `queueUrl` that are in flight though no poller received them: fauxqs keeps a
     * long poll's wait after its client gave up (a stopped poller), and hands the next message to it, hidden for the
     * whole visibility timeout. The stack calls this once its pollers stopped, so a message sent during shutdown (a
     * bot's replacement request) is kept as ready, not hidden for 6 minutes. Resolves with how many it released.
     */
    async releaseUnreceived(queueUrl: string, received: (receipt: string) => boolean): Promise<number> {
      const name = [...urls].find(([, url]) => url === queueUrl)?.[0];
      const inflight = (name && server.inspectQueue(name)?.messages.inflight) || [];
      const lost = inflight.filter((e) => !received(e.receiptHandle));
      for (const e of lost) {
        await sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queueUrl,
            ReceiptHandle: e.receiptHandle,
            VisibilityTimeout: 0,
          }),
        );
      }
      return lost.length;
    },
    /** Every message of every queue (the pool's too), whatever its state (ready, delayed, in flight): its queue and body. */
    messages() {
      const all: { queue: string; body: string }[] = [];
      for (const name of [...urls.keys(), 'pool']) {
        const q = server.inspectQueue(name);
        if (!q) continue;
        const { ready, delayed, inflight } = q.messages;
        for (const m of [...ready, ...delayed, ...inflight.map((e) => e.message)])
          all.push({ queue: name, body: m.body });
      }
      for (const m of held.keys()) all.push({ queue: m.queue, body: m.body });
      return all;
    },
    async stop() {
      stopped = true;
      clearInterval(saver);
      save();
      for (const timer of held.values()) clearTimeout(timer);
      held.clear();
      sqs.destroy();
      await server.stop();
    },
  };
}

/**
 * The saved messages; none when there is no state file yet. A file that cannot be read as one is moved aside
 * (kept for inspection, never overwritten) and the queues start empty.
 */
function readState(file: string): { messages: SavedMessage[]; movedAside?: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [] };
    throw err;
  }
  try {
    const state = JSON.parse(text) as Partial<QueueState>;
    if (state.version === 1 && Array.isArray(state.messages)) {
      const messages = state.messages.filter(
        (m): m is SavedMessage =>
          typeof m?.queue === 'string' && typeof m.body === 'string' && Number.isFinite(m.due_at),
      );
      return { messages };
    }
  } catch {}
  const aside = `${file}.damaged-${Date.now()}`;
  renameSync(file, aside);
  return { messages: [], movedAside: aside };
}
