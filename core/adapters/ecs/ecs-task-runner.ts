// TaskRunner on ECS Fargate: RunTask per bot (clientToken = bot id, so a retried join starts one task) and StopTask
// (the task found by startedBy = bot id).
import {
  type ECSClient,
  type Failure,
  ListTasksCommand,
  RunTaskCommand,
  type RunTaskCommandInput,
  StopTaskCommand,
} from '@aws-sdk/client-ecs';
import type { TaskRunner } from '../../ports/task-runner';

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

  async start(botId: string): Promise<{ taskRef: string }> {
    const failures: Failure[] = [];
    const attempts = this.settings.attempts ?? 2;
    for (const provider of this.settings.capacityProviders) {
      for (let attempt = 0; attempt < attempts; attempt++) {
        const { tasks = [], failures: f = [] } = await this.ecs.send(
          new RunTaskCommand(this.input(botId, provider)),
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

  private input(botId: string, capacityProvider: string): RunTaskCommandInput {
    return {
      cluster: this.settings.cluster,
      taskDefinition: this.settings.taskDefinition,
      count: 1,
      // Idempotency: ECS returns the same task for the same token (valid for about an hour).
      clientToken: `${botId}-${capacityProvider}`.slice(0, 64),
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
      // Only the bot id: the task reads everything else (and secrets) itself (issue 3: no secrets in overrides).
      overrides: {
        containerOverrides: [
          { name: this.settings.containerName, environment: [{ name: 'BOT_ID', value: botId }] },
        ],
      },
    };
  }
}

function describe(failures: Failure[]): string {
  return (
    failures.map((f) => `${f.reason ?? 'unknown'}${f.detail ? ` (${f.detail})` : ''}`).join('; ') ||
    'no task and no failure reported'
  );
}
