// TaskRunner on ECS Fargate: RunTask per bot (clientToken = bot id, so a retried join starts one task) and StopTask
// (the tasks found by startedBy = bot id). A replacement of a lost bot is a task of the same bot id with
// BOT_ATTEMPT set, on on-demand capacity. Throttling, launch limits and server faults are retried with jittered
// backoff inside a time budget (the join's: its Lambda answers within 29 s); past it the start is a TaskCapacityError.
import {
  type ECSClient,
  ListTasksCommand,
  RunTaskCommand,
  type RunTaskCommandInput,
  StopTaskCommand,
} from '@aws-sdk/client-ecs';
import type { Logger } from '../../log';
import { metrics } from '../../metrics';
import { TaskCapacityError, type TaskRunner, type TaskStartOptions } from '../../ports/task-runner';
import { describeFailures, failuresAreCapacity, runTaskErrorKind } from './run-task-errors';

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
}

/** Time as the runner sees it: real by default, virtual in tests. */
export interface RunnerClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

const realClock: RunnerClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  random: Math.random,
};

/** A RunTask call always gets at least this long, even when the budget is nearly spent. */
const minCallMs = 1_000;

/** One wait between RunTask calls is never longer than this, so a long budget still polls for room. */
const maxRetryDelayMs = 5_000;

export class EcsTaskRunner implements TaskRunner {
  private readonly clock: RunnerClock;

  constructor(
    private readonly ecs: ECSClient,
    private readonly settings: EcsRunnerSettings,
    clock: Partial<RunnerClock> = {},
    private readonly log?: Logger,
  ) {
    this.clock = { ...realClock, ...clock };
  }

  async start(botId: string, options: TaskStartOptions = {}): Promise<{ taskRef: string }> {
    const budgetMs = this.settings.retryBudgetMs ?? 15_000;
    const deadline = this.clock.now() + budgetMs;
    const attempts = this.settings.attempts ?? 2;
    const refusals: string[] = [];
    let retries = 0;
    for (const provider of this.providers(options)) {
      for (let noCapacity = 0; noCapacity < attempts; ) {
        let kind: 'throttled' | 'unavailable' | 'capacity';
        try {
          // One call (with the SDK's own retries) never outlives the budget: a hanging call would otherwise hold the
          // join past its Lambda's timeout, where the caller gets a gateway error instead of our 503. An aborted
          // call may still have launched the task: the retry carries the same client token, so ECS starts one.
          const { tasks = [], failures = [] } = await this.ecs.send(
            new RunTaskCommand(this.input(botId, provider, options.attempt ?? 0)),
            { abortSignal: AbortSignal.timeout(Math.max(minCallMs, deadline - this.clock.now())) },
          );
          const arn = tasks[0]?.taskArn;
          if (arn) return { taskRef: arn };
          if (!failuresAreCapacity(failures)) throw new PermanentRunTaskError(describeFailures(failures));
          kind = 'capacity';
          noCapacity++;
          refusals.push(`${provider}: ${describeFailures(failures)}`);
        } catch (err) {
          if (err instanceof PermanentRunTaskError) throw err;
          const errorKind = runTaskErrorKind(err);
          if (errorKind === 'permanent') throw err;
          kind = errorKind;
          refusals.push(`${(err as Error).name}: ${(err as Error).message}`);
        }
        metrics.runTaskRefused(kind);
        // Out of tries on this provider: the next one has capacity of its own, so it is tried at once.
        if (noCapacity >= attempts) break;
        // Equal jitter: half the exponential delay fixed, half random, so bots refused together spread out.
        const exponential = Math.min(maxRetryDelayMs, (this.settings.retryBaseMs ?? 200) * 2 ** retries++);
        const delay = Math.round(exponential / 2 + (exponential / 2) * this.clock.random());
        if (this.clock.now() + delay > deadline) throw this.capacityError(budgetMs, refusals);
        this.log?.warn('RunTask refused; retrying', {
          bot_id: botId,
          refusal: kind,
          detail: refusals.at(-1),
          retry_in_ms: delay,
        });
        await this.clock.sleep(delay);
      }
    }
    throw this.capacityError(budgetMs, refusals);
  }

  private capacityError(budgetMs: number, refusals: string[]): TaskCapacityError {
    // The last refusals say why; the whole list can be long (one per retry).
    const why = [...new Set(refusals)].slice(-3).join('; ');
    return new TaskCapacityError(
      `ECS did not launch the bot task within ${Math.round(budgetMs / 1000)} s (${refusals.length} refusals): ${why}`,
      this.settings.retryAfterSeconds ?? 15,
    );
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
  private providers(options: TaskStartOptions): string[] {
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

/** RunTask answered with failures that no retry will fix (a missing task definition, an invalid subnet). */
class PermanentRunTaskError extends Error {
  constructor(reasons: string) {
    super(`RunTask failed: ${reasons}`);
    this.name = 'PermanentRunTaskError';
  }
}
