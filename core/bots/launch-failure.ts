// What a bot task that could not be launched tells its session: a start ECS would not make within the retry budget
// (throttled, no capacity) is `capacity_unavailable`, one refused by the account's concurrency quota
// `capacity_exhausted`; any other fault is said as it is. Never charged.
import { TaskCapacityError } from '../ports/task-runner';

export interface LaunchFailure {
  capacity: boolean;
  error: string;
  code?: 'capacity_unavailable' | 'capacity_exhausted';
}

export function launchFailureOf(err: unknown): LaunchFailure {
  return err instanceof TaskCapacityError
    ? {
        capacity: true,
        error: `no bot could be launched: ${err.message}; no credits were charged`,
        code: err.exhausted ? 'capacity_exhausted' : 'capacity_unavailable',
      }
    : { capacity: false, error: 'the bot could not be started; no credits were charged' };
}
