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
    /**
     * The deployment truly cannot run more bots now: the account's Fargate quota of concurrent tasks or vCPUs was
     * the last refusal. Unlike throttling, waiting seconds does not help; bots must end first.
     */
    readonly exhausted = false,
  ) {
    super(message);
    this.name = 'TaskCapacityError';
  }
}

/** How one launch call went, as the platform adapter classifies it; the launcher decides what to do next. */
export type LaunchTry =
  | { taskRef: string }
  | {
      /**
       * `throttled`: a rate limit (RunTask calls, Fargate's launch bucket); `unavailable`: a server fault or no answer;
       * `capacity`: no capacity on this capacity provider (try the next); `quota`: the account's concurrent tasks or
       * vCPUs quota.
       */
      refused: 'throttled' | 'unavailable' | 'capacity' | 'quota';
      detail: string;
    };

/**
 * One launch call on the platform (one RunTask), with no retry of its own: the launcher (core/bots/task-launcher.ts)
 * paces and retries them. Errors no wait can fix are thrown as they are.
 */
export interface TaskPlatform {
  /** The capacity providers to try, in order, for a start with these options. */
  providers(options: TaskStartOptions): string[];
  tryLaunch(
    botId: string,
    provider: string,
    options: TaskStartOptions,
    timeoutMs: number,
  ): Promise<LaunchTry>;
}

export interface TaskRunner {
  /**
   * Starts the bot-task for a session already written; resolves with the runner's handle of the task. Rejects with a
   * TaskCapacityError when the platform would not launch it in time (throttled, at a limit, no capacity).
   */
  start(botId: string, options?: TaskStartOptions): Promise<{ taskRef: string }>;
  /** Asks the bot's tasks to leave (SIGTERM / StopTask): the backstop to the stop request in the session record. */
  stop(botId: string, taskRef: string | undefined): Promise<void>;
  /**
   * The bot tasks the deployment runs now, started or starting, idle pooled ones included (the ECS cluster's count,
   * cached a few seconds per process; locally the runner's processes). What MAX_BOTS bounds; absent where unknown.
   */
  botCount?(): Promise<number>;
}
