// What a bot task that could not be launched tells its session: a start ECS would not make within the retry budget
// (throttled, at a quota, no capacity) is `capacity_unavailable`; any other fault is said as it is. Never charged.
import { TaskCapacityError } from '../ports/task-runner';

export interface LaunchFailure {
  capacity: boolean;
  error: string;
  code?: 'capacity_unavailable';
}

export function launchFailureOf(err: unknown): LaunchFailure {
  return err instanceof TaskCapacityError
    ? {
        capacity: true,
        error: `no bot could be launched: ${err.message}; no credits were charged`,
        code: 'capacity_unavailable',
      }
    : { capacity: false, error: 'the bot could not be started; no credits were charged' };
}
