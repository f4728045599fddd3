// The one place bot tasks are launched: every start (join, pool fallback, replacement) takes a token from a bucket
// paced at the platform's API quota before each launch call, and retries refusals a wait can fix with jittered
// exponential backoff inside a time budget. ECS limits RunTask to a sustained 20 calls per second per account and
// region (bucket 100) and Fargate launches to a bucket of 100 tasks refilled at 20 per second:
// https://docs.aws.amazon.com/AmazonECS/latest/APIReference/request-throttling.html,
// https://docs.aws.amazon.com/AmazonECS/latest/developerguide/throttling.html.
import type { Logger } from '../log';
import { metrics } from '../metrics';
import { TaskCapacityError, type TaskPlatform, type TaskStartOptions } from '../ports/task-runner';
import { type RetryClock, realClock, retry } from '../retry';

/**
 * A token bucket whose takers queue in order: a take that finds no token reserves the next one (the count goes
 * negative) and waits for its refill, so a burst of starts leaves at the quota's rate instead of all being refused.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly clock: Pick<RetryClock, 'now' | 'sleep'>,
  ) {
    this.tokens = capacity;
    this.updatedAt = clock.now();
  }

  /** Resolves when the caller may make one call. */
  async take(): Promise<void> {
    const now = this.clock.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.updatedAt) / 1000) * this.perSecond);
    this.updatedAt = now;
    this.tokens -= 1;
    if (this.tokens >= 0) return;
    await this.clock.sleep(Math.ceil((-this.tokens / this.perSecond) * 1000));
  }
}

export interface LaunchPolicy {
  /** How long one start may keep retrying (RUN_TASK_RETRY_BUDGET_MS). */
  budgetMs: number;
  /** Attempts per capacity provider that reports no capacity before the next one is tried. */
  attempts: number;
  /** The first retry's delay; each next one doubles, up to 5 s (RUN_TASK_RETRY_BASE_MS). */
  baseMs: number;
  /** What a start that ran out of budget tells the caller to wait (CAPACITY_RETRY_AFTER_SECONDS). */
  retryAfterSeconds: number;
}

/** One launch call always gets at least this long, even when the budget is nearly spent. */
const minCallMs = 1_000;

/** One wait between launch calls is never longer than this, so a long budget still polls for room. */
const maxRetryDelayMs = 5_000;

/** What a start refused by the account's concurrency quota tells the caller to wait: bots must end first. */
export const quotaRetryAfterSeconds = 60;

/** A launch call refused in a way a wait may fix: what the retry hears (the refusal itself is kept aside). */
const refused = new Error('RunTask refused');

export class TaskLauncher {
  constructor(
    private readonly platform: TaskPlatform,
    private readonly policy: LaunchPolicy,
    private readonly pacer: Pick<TokenBucket, 'take'>,
    /** Real by default, virtual in tests and in the storm simulation. */
    private readonly clock: RetryClock = realClock,
    private readonly log?: Logger,
  ) {}

  async start(botId: string, options: TaskStartOptions = {}): Promise<{ taskRef: string }> {
    const { budgetMs, attempts, baseMs } = this.policy;
    const deadline = this.clock.now() + budgetMs;
    const providers = [...this.platform.providers(options)];
    const refusals: string[] = [];
    let quota = false;
    let noCapacity = 0;
    let last = { refused: '', detail: '' };
    const gaveUp = () => this.capacityError(refusals, quota);
    const launch = async (): Promise<{ taskRef: string }> => {
      for (;;) {
        const provider = providers[0];
        if (!provider) throw gaveUp();
        await this.pacer.take();
        // One call never outlives the budget: a hanging call would otherwise hold the join past its Lambda's
        // timeout, where the caller gets a gateway error instead of our answer.
        const outcome = await this.platform.tryLaunch(
          botId,
          provider,
          options,
          Math.max(minCallMs, deadline - this.clock.now()),
        );
        if ('taskRef' in outcome) return { taskRef: outcome.taskRef };
        quota ||= outcome.refused === 'quota';
        refusals.push(outcome.detail);
        metrics.runTaskRefused(outcome.refused === 'quota' ? 'throttled' : outcome.refused);
        last = outcome;
        if (outcome.refused !== 'capacity' || ++noCapacity < attempts) throw refused;
        // Out of tries on this provider: the next one has capacity of its own, so it is tried at once.
        providers.shift();
        noCapacity = 0;
      }
    };
    // Equal jitter: half of each exponential wait fixed, half random, so bots refused together spread out.
    return retry(launch, {
      deadlineMs: budgetMs,
      baseMs,
      maxMs: maxRetryDelayMs,
      clock: this.clock,
      retryable: (err) => err === refused,
      onRetry: ({ delayMs }) =>
        this.log?.warn('RunTask refused; retrying', {
          bot_id: botId,
          refusal: last.refused,
          detail: last.detail,
          retry_in_ms: delayMs,
        }),
    }).catch((err: unknown) => {
      throw err === refused ? gaveUp() : err;
    });
  }

  private capacityError(refusals: string[], quota: boolean): TaskCapacityError {
    // The last refusals say why; the whole list can be long (one per retry).
    const why = [...new Set(refusals)].slice(-3).join('; ');
    return new TaskCapacityError(
      `ECS did not launch the bot task within ${Math.round(this.policy.budgetMs / 1000)} s (${refusals.length} refusals): ${why}`,
      quota ? quotaRetryAfterSeconds : this.policy.retryAfterSeconds,
      quota,
    );
  }
}
