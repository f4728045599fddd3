// The deployment's configured maximum of bots (MAX_BOTS): a join that would start a bot beyond it is refused before
// anything is held, as a join beyond the account's Fargate quota is (503 capacity_exhausted with Retry-After). The
// count is the runner's (the ECS cluster's running and pending tasks, cached per process), so the join's hot path
// gains no DynamoDB call.
import type { Config } from '../config';
import { ApiError } from '../errors';
import type { Logger } from '../log';
import { metrics } from '../metrics';
import type { TaskRunner } from '../ports/task-runner';
import { quotaRetryAfterSeconds } from './task-launcher';

export const botMaximumLogMessage = 'join refused: the deployment runs its maximum of bots (MAX_BOTS)';

/** Throws 503 capacity_exhausted when the deployment already runs MAX_BOTS bot tasks; a count it cannot get lets it by. */
export async function refuseBeyondBotMaximum(deps: {
  runner: Pick<TaskRunner, 'botCount'>;
  config: Pick<Config, 'MAX_BOTS'>;
  log: Logger;
}): Promise<void> {
  const max = deps.config.MAX_BOTS;
  if (max <= 0 || !deps.runner.botCount) return;
  let count: number;
  try {
    count = await deps.runner.botCount();
  } catch (err) {
    // The maximum is our own bound, not the platform's: a count we cannot read does not stop joins (the account's
    // quota still does), but it is said loudly.
    deps.log.error('could not count the running bots; MAX_BOTS not applied to this join', { err });
    return;
  }
  if (count < max) return;
  deps.log.warn(botMaximumLogMessage, { running: count, max });
  metrics.launchFailed('join');
  // As at the account's quota: bots must end before room returns, so the wait is a minute, not seconds.
  const retryAfter = quotaRetryAfterSeconds;
  throw new ApiError(
    'capacity_exhausted',
    `this service already runs its maximum of ${max} bots; nothing was started or charged, retry after ${retryAfter} s`,
    { retryAfter },
  );
}
