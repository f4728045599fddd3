// The parts of an AWS SDK v3 service error our classifiers read (a plain Error from the network has only name and
// message): one shape for RunTask's and SES's refusals, and the one test of "a dependency is overloaded or slow".
import { isThrottlingError, isTransientError } from '@smithy/core/retry';

export interface SdkErrorShape {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  /** Node's system error code (ECONNRESET, …): the request never got an answer. */
  code?: string;
}

export const sdkErrorOf = (err: unknown): SdkErrorShape => (err ?? {}) as SdkErrorShape;

/**
 * Why a call to DynamoDB, SQS or ECS failed in a way that waiting fixes, after the SDK's own retries:
 * - `throttled`: the service refused the rate (ProvisionedThroughputExceededException, ThrottlingException,
 *   RequestLimitExceeded, TooManyRequestsException, HTTP 429, a batch left unprocessed, a transaction cancelled only
 *   by conflicts or throttling).
 * - `timeout`: no answer in time, or the connection failed (the SDK's TimeoutError, ECONNRESET, ETIMEDOUT, …).
 * - `unavailable`: the service answered with a server fault (500, 502, 503, 504).
 */
export type DependencyFailureKind = 'throttled' | 'timeout' | 'unavailable';

/**
 * A DynamoDB transaction's cancellation reasons that mean "retry": another transaction touched the item, or a
 * table was throttled (TransactWriteItems, "Errors": TransactionCanceledException). A failed condition is not one.
 */
const retriableCancellations = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

/**
 * The kind of dependency failure `err` is (or was caused by: a use case may wrap it), or undefined when it is
 * anything else. The SDK's own classification (@smithy/core/retry, what its retry strategy decides with) first.
 */
export function dependencyFailureOf(err: unknown, depth = 0): DependencyFailureKind | undefined {
  if (!(err instanceof Error) || depth > 5) return undefined;
  const e = err as Error & SdkErrorShape & { CancellationReasons?: { Code?: string }[] };
  const status = e.$metadata?.httpStatusCode;
  if (e.name === 'TransactionCanceledException') {
    const codes = (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None').filter((c) => c !== 'None');
    if (codes.length > 0 && codes.every((c) => retriableCancellations.has(c))) return 'throttled';
  } else if (isThrottlingError(e as Parameters<typeof isThrottlingError>[0])) {
    return 'throttled';
  } else if (e.name !== 'AbortError' && isTransientError(e as Parameters<typeof isTransientError>[0])) {
    // A server fault is an answer; anything else transient (a timeout, a dropped connection) is none.
    return status !== undefined && status >= 500 ? 'unavailable' : 'timeout';
  }
  return dependencyFailureOf(e.cause, depth + 1);
}

/**
 * What a batch call leaves unprocessed after its resends: DynamoDB's throttling answered as a success
 * (BatchWriteItem's UnprocessedItems, BatchGetItem's UnprocessedKeys). Marked retryable-by-throttling the way the
 * SDK marks its own throttling errors, so dependencyFailureOf reads it as one.
 */
export class UnprocessedItemsError extends Error {
  override readonly name = 'UnprocessedItemsError';
  readonly $retryable = { throttling: true };
}
