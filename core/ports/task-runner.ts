// Port: starts and signals the one isolated runtime per bot (ECS RunTask in AWS, a child process locally).

export interface TaskStartOptions {
  /**
   * Which task of the session this is: 0 the first, n the n-th replacement of a lost bot (issue 13). The task gets it
   * as BOT_ATTEMPT, and the runner reports it back when the task stops, so a stop of a task already replaced is told
   * apart from a stop of the one serving the session.
   */
  attempt?: number;
  /** Run on capacity the platform does not take back (on-demand Fargate, not Spot): replacements do. */
  onDemand?: boolean;
}

export interface TaskRunner {
  /** Starts the bot-task for a session already written; resolves with the runner's handle of the task. */
  start(botId: string, options?: TaskStartOptions): Promise<{ taskRef: string }>;
  /** Asks the bot's tasks to leave (SIGTERM / StopTask): the backstop to the stop request in the session record. */
  stop(botId: string, taskRef: string | undefined): Promise<void>;
}
