// One SQS batch consumer for the queue-driven stages (results, control): each record parsed and handled with its
// correlation id, a failure reported as that record's batch item failure (the queue retries it, then dead-letters
// it). From a FIFO queue, once a record fails the rest of the batch goes back unprocessed, as AWS asks of FIFO
// consumers, so nothing of a group is handled before a message that came first. From a standard queue, the records of
// different bots are handled side by side (one bot's in order), so a batch of cold starts takes one RunTask budget,
// not ten. A record is begun only while the invocation has `reserveMs` left: the rest go back as batch item failures,
// never as a timeout that would return the whole batch after the visibility timeout.
// Why not Powertools' batch processor (@aws-lambda-powertools/batch): its processors handle a standard batch's records
// all at once or one after another and a FIFO batch's in order (skipGroupOnError only fails a group's later records),
// but none begins records only while the invocation has time left for them, or runs different bots' records side by
// side while keeping each bot's in order; those two are what this module is for, and they would sit around its
// processor as much code again as they take here.
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Outbox } from '../core/control/outbox';
import { correlatedLog, correlatedQueue, correlationOf } from '../core/correlation';
import type { Logger } from '../core/log';
import type { MessageQueue } from '../core/ports/queue';

/** What every stage's dependencies hold that a message's correlation id applies to. */
interface CorrelatedDeps {
  log: Logger;
  outbox: Outbox;
  deliveryQueue: MessageQueue;
}

/** The part of Lambda's context a batch needs: the time left before the invocation is stopped. */
export type InvocationContext = Pick<Context, 'getRemainingTimeInMillis'>;

export interface BatchOptions {
  /** The longest one message may take: a record is begun only while this much of the invocation is left. */
  reserveMs?: number;
}

/** The stage's logger and queues for one message: its correlation id on each line and in each message sent on. */
function correlated<D extends CorrelatedDeps>(deps: D, id: string | undefined): D {
  if (!id) return deps;
  return {
    ...deps,
    log: correlatedLog(deps.log, id),
    outbox: correlatedQueue(deps.outbox, id),
    deliveryQueue: correlatedQueue(deps.deliveryQueue, id),
  };
}

/** The batch's records of each bot (its body's `bot_id`), in the order the queue handed them over. */
export function byBot(records: SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    let bot = record.messageId;
    try {
      const id = (JSON.parse(record.body) as { bot_id?: unknown }).bot_id;
      if (typeof id === 'string') bot = id;
    } catch {}
    groups.set(bot, [...(groups.get(bot) ?? []), record]);
  }
  return [...groups.values()];
}

export function sqsBatchHandler<D extends CorrelatedDeps, M>(
  deps: D,
  stage: string,
  parse: (body: unknown) => M,
  handle: (deps: D, message: M, receiveCount: number) => Promise<unknown>,
  options: BatchOptions = {},
) {
  return async (event: SQSEvent, context?: InvocationContext): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    const fail = (record: SQSRecord) => batchItemFailures.push({ itemIdentifier: record.messageId });
    let postponed = 0;
    // Lambda always gives the time left; a caller without it (a test's runtime) has no deadline to keep.
    const remainingMs = () => context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
    /** Handles one record unless too little time is left; false when it was not handled. */
    const one = async (record: SQSRecord): Promise<boolean> => {
      if (options.reserveMs !== undefined && remainingMs() < options.reserveMs) {
        postponed += 1;
        fail(record);
        return false;
      }
      try {
        const body: unknown = JSON.parse(record.body);
        await handle(
          correlated(deps, correlationOf(body)),
          parse(body),
          Number(record.attributes?.ApproximateReceiveCount ?? 1),
        );
        return true;
      } catch (err) {
        deps.log.error(`${stage} message failed; it will be retried, then dead-lettered`, {
          message_id: record.messageId,
          err,
        });
        fail(record);
        return false;
      }
    };
    if (event.Records[0]?.eventSourceARN?.endsWith('.fifo')) {
      for (const [i, record] of event.Records.entries()) {
        if (!(await one(record))) {
          // What came after a failure goes back with it, unhandled.
          for (const rest of event.Records.slice(i + 1)) fail(rest);
          break;
        }
      }
    } else {
      // One bot's messages one after another, so they stay in order; bots side by side.
      await Promise.all(
        byBot(event.Records).map(async (records) => {
          for (const record of records) await one(record);
        }),
      );
    }
    if (postponed > 0) {
      deps.log.warn(
        `${stage} batch: too little time left for ${postponed} message(s); they come back later`,
        {
          postponed,
          reserve_ms: options.reserveMs,
        },
      );
    }
    return { batchItemFailures };
  };
}
