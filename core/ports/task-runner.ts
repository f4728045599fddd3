// Port: starts and signals the one isolated runtime per bot (ECS RunTask in AWS, a child process locally).

export interface TaskStartOptions {
  /**
   * Which task of the session this is: 0 the first, n the n-th replacement of a lost bot. The task gets it
   * as BOT_ATTEMPT, and the runner reports it back when the task stops, so a stop of a task already replaced is told
   * apart from a stop of the one serving the session.
   */
  attempt?: number;
  /** Run on capacity the platform does not take back (on-demand Fargate, not Spot): replacements do. */
  onDemand?: boolean;
}

/**
 * The platform would not launch the task within the start's retry budget: its API kept throttling (RunTask is
 * limited per account and region), a launch limit or quota was reached, or there was no capacity. Nothing about
 * the session is wrong: the same start a little later is expected to work.
 */
export class TaskCapacityError extends Error {
  constructor(
    message: string,
    /** When a retry is likely to find room again (seconds). */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'TaskCapacityError';
  }
}

export interface TaskRunner {
  /**
   * Starts the bot-task for a session already written; resolves with the runner's handle of the task. Rejects with a
   * TaskCapacityError when the platform would not launch it in time (throttled, at a limit, no capacity).
   */
  start(botId: string, options?: TaskStartOptions): Promise<{ taskRef: string }>;
  /** Asks the bot's tasks to leave (SIGTERM / StopTask): the backstop to the stop request in the session record. */
  stop(botId: string, taskRef: string | undefined): Promise<void>;
}
