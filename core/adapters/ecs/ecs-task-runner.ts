// TaskRunner on ECS Fargate: RunTask per bot (clientToken = bot id, so a retried join starts one task) and StopTask
// (the tasks found by startedBy = bot id). A replacement of a lost bot is a task of the same bot id with
// BOT_ATTEMPT set, on on-demand capacity. Each RunTask goes through the launcher (core/bots/task-launcher.ts), which
// paces the calls and retries throttling, launch limits and server faults with jittered backoff inside a time budget
// (the join's: its Lambda answers within 29 s); past it the start is a TaskCapacityError.
import {
  DescribeClustersCommand,
  type ECSClient,
  ListTasksCommand,
  RunTaskCommand,
  type RunTaskCommandInput,
  StopTaskCommand,
} from '@aws-sdk/client-ecs';
import { TaskLauncher, TokenBucket } from '../../bots/task-launcher';
import type { Logger } from '../../log';
import type { LaunchTry, TaskPlatform, TaskRunner, TaskStartOptions } from '../../ports/task-runner';
import { type RetryClock, realClock } from '../../retry';
import {
  describeFailures,
  failuresAreCapacity,
  runTaskCallsPerSecond,
  runTaskErrorKind,
} from './run-task-errors';

export interface EcsRunnerSettings {
  cluster: string;
  taskDefinition: string;
  containerName: string;
  subnets: string[];
  securityGroups: string[];
  assignPublicIp: boolean;
  /** FARGATE_SPOT first, FARGATE when Spot has no capacity. */
  capacityProviders: string[];
  /** Attempts per capacity provider that reports no capacity before the next one is tried. */
  attempts?: number;
  /** How long one start may keep retrying (RUN_TASK_RETRY_BUDGET_MS). */
  retryBudgetMs?: number;
  /** The first retry's delay; each next one doubles, up to maxRetryDelayMs (RUN_TASK_RETRY_BASE_MS). */
  retryBaseMs?: number;
  /** What a start that ran out of budget tells the caller to wait (CAPACITY_RETRY_AFTER_SECONDS). */
  retryAfterSeconds?: number;
  /** This process's pace of RunTask calls (RUN_TASK_CALLS_PER_SECOND); bucket of one second's worth. */
  callsPerSecond?: number;
}

/**
 * How long one process reuses the cluster's task count (MAX_BOTS): a join storm of hundreds a second makes one
 * DescribeClusters call per instance every few seconds, far inside ECS's describe rate, and never a DynamoDB call.
 */
export const botCountTtlMs = 5_000;

export class EcsTaskRunner implements TaskRunner, TaskPlatform {
  private readonly launcher: TaskLauncher;
  private readonly clock: RetryClock;
  private counted: { at: number; count: Promise<number> } | undefined;

  constructor(
    private readonly ecs: ECSClient,
    private readonly settings: EcsRunnerSettings,
    clock: Partial<RetryClock> = {},
    log?: Logger,
  ) {
    this.clock = { ...realClock, ...clock };
    const perSecond = settings.callsPerSecond ?? runTaskCallsPerSecond;
    this.launcher = new TaskLauncher(
      this,
      {
        budgetMs: settings.retryBudgetMs ?? 15_000,
        attempts: settings.attempts ?? 2,
        baseMs: settings.retryBaseMs ?? 200,
        retryAfterSeconds: settings.retryAfterSeconds ?? 15,
      },
      new TokenBucket(perSecond, perSecond, this.clock),
      this.clock,
      log,
    );
  }

  start(botId: string, options: TaskStartOptions = {}): Promise<{ taskRef: string }> {
    return this.launcher.start(botId, options);
  }

  /** The cluster's running and pending tasks (only bot tasks run in it), from one cached DescribeClusters. */
  botCount(): Promise<number> {
    const now = this.clock.now();
    if (this.counted && now - this.counted.at < botCountTtlMs) return this.counted.count;
    const count = this.ecs
      .send(new DescribeClustersCommand({ clusters: [this.settings.cluster] }))
      .then(({ clusters = [] }) => {
        const c = clusters[0];
        if (!c) throw new Error(`bot cluster ${this.settings.cluster} not found`);
        return (c.runningTasksCount ?? 0) + (c.pendingTasksCount ?? 0);
      });
    this.counted = { at: now, count };
    // A failed count is not kept: the next join asks again.
    count.catch(() => {
      if (this.counted?.count === count) this.counted = undefined;
    });
    return count;
  }

  /** One RunTask call, classified; the launcher paces and retries. */
  async tryLaunch(
    botId: string,
    provider: string,
    options: TaskStartOptions,
    timeoutMs: number,
  ): Promise<LaunchTry> {
    // An aborted call may still have launched the task: the retry carries the same client token, so ECS starts one.
    const sent = await this.ecs
      .send(new RunTaskCommand(this.input(botId, provider, options.attempt ?? 0)), {
        // AbortSignal.timeout throws on a fractional delay (a clock of fractional milliseconds gives one).
        abortSignal: AbortSignal.timeout(Math.ceil(timeoutMs)),
      })
      .catch((err: Error) => {
        const kind = runTaskErrorKind(err);
        if (kind === 'permanent') throw err;
        return { refused: kind, detail: `${err.name}: ${err.message}` } as const;
      });
    if ('refused' in sent) return sent;
    const { tasks = [], failures = [] } = sent;
    const arn = tasks[0]?.taskArn;
    if (arn) return { taskRef: arn };
    // Failures no retry will fix: a missing task definition, an invalid subnet.
    if (!failuresAreCapacity(failures)) throw new Error(`RunTask failed: ${describeFailures(failures)}`);
    return { refused: 'capacity', detail: `${provider}: ${describeFailures(failures)}` };
  }

  /**
   * Stops the bot's task. Join does not write the task ARN back to the session (one write less on the hot path),
   * so without a known `taskRef` the task is found by `startedBy` (the bot id RunTask set); a bot with no task
   * left (never started, or already gone) is nothing to stop.
   */
  async stop(botId: string, taskRef: string | undefined): Promise<void> {
    const tasks = taskRef ? [taskRef] : await this.tasksOf(botId);
    for (const task of tasks) {
      await this.ecs.send(
        new StopTaskCommand({
          cluster: this.settings.cluster,
          task,
          reason: `leave requested for bot ${botId}`,
        }),
      );
    }
  }

  private async tasksOf(botId: string): Promise<string[]> {
    const { taskArns = [] } = await this.ecs.send(
      new ListTasksCommand({ cluster: this.settings.cluster, startedBy: botId.slice(0, 36) }),
    );
    return taskArns;
  }

  /** A replacement runs on capacity AWS does not take back: the on-demand providers of the list, else FARGATE. */
  providers(options: TaskStartOptions): string[] {
    if (!options.onDemand) return this.settings.capacityProviders;
    const onDemand = this.settings.capacityProviders.filter((p) => !/SPOT/i.test(p));
    return onDemand.length > 0 ? onDemand : ['FARGATE'];
  }

  private input(botId: string, capacityProvider: string, attempt: number): RunTaskCommandInput {
    const environment = [{ name: 'BOT_ID', value: botId }];
    if (attempt > 0) environment.push({ name: 'BOT_ATTEMPT', value: String(attempt) });
    return {
      cluster: this.settings.cluster,
      taskDefinition: this.settings.taskDefinition,
      count: 1,
      // Idempotency: ECS returns the same task for the same token (valid for about an hour); each replacement of
      // the bot is a task of its own.
      clientToken: `${botId}-${attempt > 0 ? `r${attempt}-` : ''}${capacityProvider}`.slice(0, 64),
      startedBy: botId.slice(0, 36),
      tags: [{ key: 'bot_id', value: botId }],
      propagateTags: 'TASK_DEFINITION',
      capacityProviderStrategy: [{ capacityProvider, weight: 1 }],
      networkConfiguration: {
        awsvpcConfiguration: {
          subnets: this.settings.subnets,
          securityGroups: this.settings.securityGroups,
          assignPublicIp: this.settings.assignPublicIp ? 'ENABLED' : 'DISABLED',
        },
      },
      // Only the bot id (and which replacement it is): the task reads everything else (and secrets) itself (no
      // secrets in overrides, where DescribeTasks would show them).
      overrides: { containerOverrides: [{ name: this.settings.containerName, environment }] },
    };
  }
}
