// One bot's whole life under one id: the join's request id (x-request-id) is stored on the session as its
// correlation_id, and every stage after the join (bot task, results, delivery) logs it on each line and passes it on
// in the queue messages it sends, so one Logs Insights query (`filter correlation_id = "…"`) finds them all.
import type { Logger } from './log';
import type { MessageQueue } from './ports/queue';

/** The log key every stage writes the join's request id under. */
export const correlationKey = 'correlation_id';

/** The correlation id a queue message carries (any message body: the schemas leave it out, so read it raw). */
export function correlationOf(body: unknown): string | undefined {
  const id = (body as Record<string, unknown> | null)?.[correlationKey];
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : undefined;
}

/** A logger whose lines carry the correlation id (the logger itself when there is none). */
export function correlatedLog(log: Logger, id: string | undefined): Logger {
  return id ? log.child({ [correlationKey]: id }) : log;
}

/** A queue (or outbox) whose messages carry the correlation id to the next stage (itself when there is none). */
export function correlatedQueue<Q extends Pick<MessageQueue, 'send'>>(queue: Q, id: string | undefined): Q {
  if (!id) return queue;
  const send: MessageQueue['send'] = (body, options) =>
    (queue.send as MessageQueue['send'])(
      body !== null && typeof body === 'object' && !Array.isArray(body)
        ? { ...(body as Record<string, unknown>), [correlationKey]: id }
        : body,
      options,
    );
  return { ...queue, send } as Q;
}

/** A use case's deps whose log lines and sent messages carry the bot's correlation id: its whole life under one id. */
export function correlated<D extends { log: Logger; outbox: Pick<MessageQueue, 'send'> }>(
  deps: D,
  id: string | undefined,
): D {
  return { ...deps, log: correlatedLog(deps.log, id), outbox: correlatedQueue(deps.outbox, id) };
}
