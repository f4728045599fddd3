// RunTask's limits: its sustained rate, and which refusals are worth trying again (throttling, launch limits and
// server faults are; a bad request is not).
import type { Failure } from '@aws-sdk/client-ecs';
import { sdkErrorOf } from '../sdk-error';

/**
 * ECS's sustained RunTask rate per account and region (calls per second), the launcher's default pace; the control
 * instances share it. Here, in a module with no SDK code, so infra/limits.ts can read it without loading the ECS
 * client (the bot task's image holds core/, not infra/).
 */
export const runTaskCallsPerSecond = 20;

/**
 * - `throttled`: the account's API rate or a launch limit (RunTask is limited per account and region; Fargate
 *   launches have a token bucket; running tasks and vCPUs have quotas). Waiting helps.
 * - `quota`: the account's quota of concurrent Fargate tasks or vCPUs. Waiting helps only once bots end.
 * - `unavailable`: ECS answered with a server fault (5xx) or nothing came back (network, timeout). Waiting helps.
 * - `permanent`: anything else (a missing cluster or task definition, access denied, an invalid parameter).
 *
 * https://docs.aws.amazon.com/AmazonECS/latest/APIReference/request-throttling.html (ThrottlingException,
 * "Rate exceeded"); https://docs.aws.amazon.com/AmazonECS/latest/developerguide/service-quotas.html.
 */
export type RunTaskErrorKind = 'throttled' | 'quota' | 'unavailable' | 'permanent';

const throttledNames = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

/**
 * Limits ECS reports inside other error names: a ClientException "Rate exceeded", an InvalidParameterException that
 * passes on EC2's "Request limit exceeded" for the task's network interface, Fargate's "You've reached the limit on
 * the number of tasks (or vCPUs) you can run concurrently".
 */
const limitMessage =
  /rate exceeded|request limit exceeded|throttl|too many requests|reached the limit on the number of|limit exceeded/i;

/** Fargate's answer at the account's concurrency quota ("...the number of vCPUs you can run concurrently"). */
const quotaMessage = /reached the limit on the number of (tasks|vcpus)/i;

export function runTaskErrorKind(err: unknown): RunTaskErrorKind {
  const e = sdkErrorOf(err);
  const name = e.name ?? '';
  const status = e.$metadata?.httpStatusCode;
  if (quotaMessage.test(e.message ?? '')) return 'quota';
  if (throttledNames.has(name) || status === 429 || limitMessage.test(e.message ?? '')) return 'throttled';
  if (name === 'ServerException' || e.$fault === 'server' || (status !== undefined && status >= 500))
    return 'unavailable';
  // No HTTP answer at all: a connection reset, a refused connection, the SDK's request timeout.
  if (status === undefined && (name === 'TimeoutError' || e.code !== undefined || name === 'AbortError'))
    return 'unavailable';
  return 'permanent';
}

/** RunTask's `failures[]` reasons that mean "try again or elsewhere" rather than "this will never work". */
const capacityReasons = /capacity|RESOURCE:|AGENT|throttl|limit/i;

export function failuresAreCapacity(failures: Failure[]): boolean {
  return failures.some((f) => capacityReasons.test(`${f.reason ?? ''} ${f.detail ?? ''}`));
}

export function describeFailures(failures: Failure[]): string {
  return (
    failures.map((f) => `${f.reason ?? 'unknown'}${f.detail ? ` (${f.detail})` : ''}`).join('; ') ||
    'no task and no failure reported'
  );
}
