// Port: starts and signals the one isolated runtime per bot (ECS RunTask in AWS, a child process locally).

export interface TaskRunner {
  /** Starts the bot-task for a session already written; resolves with the runner's handle of the task. */
  start(botId: string): Promise<{ taskRef: string }>;
  /** Asks the task to leave (SIGTERM / StopTask): the backstop to the stop request in the session record. */
  stop(botId: string, taskRef: string | undefined): Promise<void>;
}
