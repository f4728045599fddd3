// TaskRunner on ECS Fargate: RunTask per bot (clientToken = bot id, so a retried join starts one task) and StopTask
// (the tasks found by startedBy = bot id). A replacement of a lost bot (issue 13) is a task of the same bot id with
// BOT_ATTEMPT set, on on-demand capacity.
import {
  type ECSClient,
  type Failure,
  ListTasksCommand,
  RunTaskCommand,
  type RunTaskCommandInput,
  StopTaskCommand,
} from '@aws-sdk/client-ecs';
import type { TaskRunner, TaskStartOptions } from '../../ports/task-runner';

export interface EcsRunnerSettings {
  cluster: string;
  taskDefinition: string;
  containerName: string;
  subnets: string[];
  securityGroups: string[];
  assignPublicIp: boolean;
  /** FARGATE_SPOT first, FARGATE when Spot has no capacity. */
  capacityProviders: string[];
  /** Attempts per capacity provider before giving up. */
  attempts?: number;
}

/** RunTask failure reasons that mean "try again or elsewhere" rather than "this will never work". */
const capacityReasons = /capacity|RESOURCE:|AGENT|throttl/i;

export class EcsTaskRunner implements TaskRunner {
  constructor(
    private readonly ecs: ECSClient,
    private readonly settings: EcsRunnerSettings,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  async start(botId: string, options: TaskStartOptions = {}): Promise<{ taskRef: string }> {
    const failures: Failure[] = [];
    const attempts = this.settings.attempts ?? 2;
    for (const provider of this.providers(options)) {
      for (let attempt = 0; attempt < attempts; attempt++) {
        const { tasks = [], failures: f = [] } = await this.ecs.send(
          new RunTaskCommand(this.input(botId, provider, options.attempt ?? 0)),
        );
        const arn = tasks[0]?.taskArn;
        if (arn) return { taskRef: arn };
        failures.push(...f);
        if (!f.some((x) => capacityReasons.test(`${x.reason ?? ''} ${x.detail ?? ''}`))) {
          throw new Error(`RunTask failed: ${describe(f)}`);
        }
        await this.sleep(200 * 2 ** attempt);
      }
    }
    throw new Error(`RunTask found no capacity: ${describe(failures)}`);
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
      // Only the bot id (and which replacement it is): the task reads everything else (and secrets) itself (issue 3:
      // no secrets in overrides).
      overrides: { containerOverrides: [{ name: this.settings.containerName, environment }] },
    };
  }
}

function describe(failures: Failure[]): string {
  return (
    failures.map((f) => `${f.reason ?? 'unknown'}${f.detail ? ` (${f.detail})` : ''}`).join('; ') ||
    'no task and no failure reported'
  );
}
