// Plays the Lambda SQS event source mapping locally: batches, ReportBatchItemFailures, visibility-based retry,
// and the queue's own redrive to its DLQ — driving the same handler the Lambda runs, within the function's timeout:
// a handler past it is abandoned as Lambda stops it, and its whole batch comes back after the visibility timeout.
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { longPollOptions } from '../core/adapters/aws-clients';
import type { Logger } from '../core/log';
import { timedOut, within } from '../core/within';

/** What the local stand-in gives a handler of Lambda's context: the time left before its timeout. */
export type LocalContext = Pick<Context, 'getRemainingTimeInMillis'>;

export interface PollerOptions {
  batchSize?: number;
  /** The function's timeout: a handler still running then is abandoned and its batch fails, as on Lambda. */
  timeoutMs?: number;
  /** Batches handled at once, like the Lambda concurrency of an event source mapping. */
  concurrency?: number;
  /**
   * The long poll's wait (ReceiveMessage WaitTimeSeconds; 1 when not given). The local queues answer a waiting
   * receive as soon as a message is there (sent, due after its delay, or visible again), so a long wait costs no
   * latency, only fewer idle receives; `stop` ends a wait at once.
   */
  waitSeconds?: number;
  queueArn: string;
  region: string;
}

export class QueuePoller {
  private running = false;
  /** Receipts this poller was handed and has not deleted: what it received, as opposed to an abandoned wait. */
  private readonly receipts = new Set<string>();
  private loop: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly handler: (
      event: SQSEvent,
      context: LocalContext,
    ) => Promise<SQSBatchResponse | undefined>,
    private readonly options: PollerOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.running = true;
    this.loop = Promise.all(Array.from({ length: this.options.concurrency ?? 1 }, () => this.run())).then(
      () => {},
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    await this.loop;
  }

  /** The queue this poller reads. */
  get url(): string {
    return this.queueUrl;
  }

  /** Whether this poller received the message of `receipt` (its handler saw it, or is about to). */
  received(receipt: string): boolean {
    return this.receipts.has(receipt);
  }

  /** One receive and the handling of what it got (tests that step a queue by hand); resolves with the count. */
  async pollOnce(): Promise<number> {
    const waitSeconds = this.options.waitSeconds ?? 1;
    const { Messages = [] } = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: this.options.batchSize ?? 10,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      longPollOptions(waitSeconds, this.stopping.signal),
    );
    for (const m of Messages) this.receipts.add(m.ReceiptHandle!);
    if (Messages.length) await this.deliver(Messages);
    return Messages.length;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.pollOnce();
      } catch (err) {
        if (!this.running) return;
        this.log.warn('queue poll failed', { queue: this.queueUrl, err });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async deliver(messages: Message[]): Promise<void> {
    const event: SQSEvent = { Records: messages.map((m) => this.toRecord(m)) };
    let failed: Set<string>;
    const timeoutMs = this.options.timeoutMs ?? Number.POSITIVE_INFINITY;
    const deadline = Date.now() + timeoutMs;
    const context: LocalContext = { getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
    try {
      const result = await within(this.handler(event, context), timeoutMs);
      if (result === timedOut) {
        // Lambda stops the invocation: nothing of the batch is deleted, it all comes back after the visibility
        // timeout. (Here the abandoned handler's promise runs on; Lambda would have frozen it.)
        this.log.error('queue handler timed out; the batch comes back after the visibility timeout', {
          queue: this.queueUrl,
          timeout_ms: timeoutMs,
          messages: messages.length,
        });
        failed = new Set(messages.map((m) => m.MessageId!));
      } else {
        failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      }
    } catch (err) {
      // A thrown handler fails the whole batch, as in Lambda.
      this.log.error('queue handler threw; the batch will be retried', { err });
      failed = new Set(messages.map((m) => m.MessageId!));
    }
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    if (done.length) {
      await this.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
      for (const m of done) this.receipts.delete(m.ReceiptHandle!);
    }
    // Failed messages stay in flight until their visibility timeout ends, then come back (or go to the DLQ).
  }

  private toRecord(m: Message): SQSRecord {
    const a = m.Attributes ?? {};
    return {
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? '',
      attributes: {
        ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
        SentTimestamp: a.SentTimestamp ?? String(Date.now()),
        SenderId: a.SenderId ?? 'local',
        ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: this.options.queueArn,
      awsRegion: this.options.region,
    };
  }
}
