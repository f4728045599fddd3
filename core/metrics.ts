// The service's metrics catalogue: every name, unit and dimension in one place, so call sites are one line, and the
// alarms (infra/constructs/operations.ts), the dashboard (infra/constructs/dashboard.ts) and the runbook
// (docs/operations.md) name the same things.
// The sink is process-wide, like a logger: a composition root sets it once (useMetricsSink); until then nothing is
// recorded, which is what the local stack wants (EMF lines on its stdout would only be noise).
import type { MetricsSink, MetricUnit } from './ports/metrics';

/** Metric names as they appear in CloudWatch (namespace METRICS_NAMESPACE, dimension `service` = metricsService). */
export const metricNames = {
  /**
   * Join requests by `outcome`: started, payment_required (402), rate_limited (429), rejected (other 4xx),
   * capacity_unavailable (503: ECS would not launch the bot within RUN_TASK_RETRY_BUDGET_MS), dependency_unavailable
   * (503: DynamoDB, SQS or ECS throttled or timed out the join).
   */
  joins: 'JoinRequests',
  /** Sessions running (joining or in the room), sampled by the heartbeat sweeper every minute. */
  runningBots: 'RunningBots',
  /** Bots that did not get into the room, by `error_type`. */
  joinFailures: 'JoinFailures',
  /** From the join request to the bot in the room. */
  joinLatency: 'JoinLatency',
  /** Minutes a bot spent in the room, recorded when its session ends. */
  botMinutes: 'BotMinutes',
  /** Sessions ended, by `exit_reason`. */
  sessionsEnded: 'SessionsEnded',
  /** Bot tasks that died before finishing (crash, OOM, Spot interruption, a stale heartbeat): failed, not replaced. */
  botTaskFailures: 'BotTaskFailures',
  /**
   * Bots that left because the room's transcription was unavailable (it could not start, or stopped with an error
   * and could not be restarted): failed with error_code transcription_unavailable, not charged.
   */
  transcriptionUnavailable: 'TranscriptionUnavailable',
  /** Bots lost mid-session whose replacement was started. */
  replacements: 'BotReplacements',
  /** Webhook attempts by `outcome`: delivered, retry, failed. */
  webhookAttempts: 'WebhookAttempts',
  /** From the first scheduled attempt to the successful one. */
  webhookDeliveryAge: 'WebhookDeliveryAge',
  /** Results e-mails by `outcome`: sent, failed. */
  emails: 'Emails',
  /**
   * E-mails SES refused, by `kind`: `permanent` (recorded failed at once: unverified address in the sandbox, invalid
   * address, sending paused) or `transient` (throttling, a server fault: retried on the delivery schedule).
   */
  emailRefusals: 'EmailRefusals',
  /**
   * API requests answered 503 dependency_unavailable, by `kind`: DynamoDB, SQS or ECS was `throttled`, gave no answer
   * in time (`timeout`) or answered with a server fault (`unavailable`), after the SDK's own retries.
   */
  dependencyUnavailable: 'DependencyUnavailable',
  /** RunTask calls refused and retried, by `refusal`: throttled, unavailable (5xx, network), capacity. */
  runTaskRefusals: 'RunTaskRefusals',
  /**
   * Bot starts given up because ECS would not launch the task within RUN_TASK_RETRY_BUDGET_MS, by `stage`: join (a
   * 503), pool_fallback (the session fails, not charged) and replacement (the session fails; the minutes the lost bot
   * was in the room are charged).
   */
  launchFailures: 'LaunchFailures',
  /** Deliveries parked in the delivery DLQ, by `channel`. */
  dlqParks: 'DeliveryDlqParks',
  /** One insights analysis. */
  insightsLatency: 'InsightsLatency',
  insightsFailures: 'InsightsFailures',
  /**
   * Warm pool: each idle pooled bot records 1 when it is ready and then every minute while idle, so the
   * Sum over a minute is the number of idle bots (the pool's scaling and its empty-pool alarm read it).
   */
  poolIdleBots: 'PoolIdleBots',
  /** Pooled bots the pool service was asked for because offers went unclaimed (core/bots/pool-growth.ts). */
  poolGrowth: 'PoolGrowth',
  /** A resize of the pool service that failed (the storm's cold starts still serve the sessions). */
  poolGrowthFailures: 'PoolGrowthFailures',
  /** A session warning raised (a bot carrying on without a failed dependency), by `code` (core/schemas/bot-views.ts). */
  sessionWarnings: 'SessionWarnings',
  /** A conversation turn the model failed (after its own retries of a busy model), by `error` code. */
  conversationModelFailures: 'ConversationModelFailures',
  /** A line the voice (Polly) could not speak, by `outcome`: retried, or sent as text. */
  speechFailures: 'SpeechFailures',
} as const;

/** How often an idle pooled bot records PoolIdleBots: the period the Sum is read over. */
export const poolIdleEveryMs = 60_000;

/** The `service` dimension every metric carries (Powertools adds it; alarms must name it to match). */
export const metricsService = 'meeting-bot';

export type JoinOutcome =
  | 'started'
  | 'payment_required'
  | 'rate_limited'
  | 'rejected'
  | 'capacity_unavailable'
  | 'dependency_unavailable';

/** A join's outcome from its HTTP status; another 5xx is none of them (the API's own 5xx metric counts it). */
export function joinOutcomeOf(status: number | undefined, error?: string): JoinOutcome | undefined {
  if (status === 503) return error === 'dependency_unavailable' ? error : 'capacity_unavailable';
  if (status === undefined || status >= 500) return undefined;
  if (status < 300) return 'started';
  if (status === 402) return 'payment_required';
  if (status === 429) return 'rate_limited';
  return status >= 400 ? 'rejected' : undefined;
}

const discard: MetricsSink = { record: () => {}, flush: () => {} };
let sink: MetricsSink = discard;

/** Where metrics go from now on in this process (the Lambda runtime and the bot task set EMF). */
export function useMetricsSink(next: MetricsSink | undefined): void {
  sink = next ?? discard;
}

/** Writes what is buffered (once per Lambda invocation). */
export function flushMetrics(): void {
  sink.flush();
}

const put = (name: string, unit: MetricUnit, value: number, dimensions?: Record<string, string>) =>
  sink.record(name, unit, value, dimensions);
/** One occurrence of `metric`. */
const once = (metric: keyof typeof metricNames, dimensions?: Record<string, string>) =>
  put(metricNames[metric], 'Count', 1, dimensions);

/** Domain events, named for what happened; each call site is one line. */
export const metrics = {
  join: (outcome: JoinOutcome) => once('joins', { outcome }),
  runningBots: (count: number) => put(metricNames.runningBots, 'Count', count),
  joinFailed: (errorType: string) => once('joinFailures', { error_type: errorType }),
  botInRoom: (requestedAt: string, now = new Date()) =>
    put(metricNames.joinLatency, 'Milliseconds', Math.max(0, now.getTime() - Date.parse(requestedAt))),
  sessionEnded: (exitReason: string, minutesInRoom: number) => {
    once('sessionsEnded', { exit_reason: exitReason });
    put(metricNames.botMinutes, 'Count', Math.max(0, minutesInRoom));
  },
  botTaskFailed: (count = 1) => count > 0 && put(metricNames.botTaskFailures, 'Count', count),
  replaced: () => once('replacements'),
  transcriptionUnavailable: () => once('transcriptionUnavailable'),
  /** One delivery attempt: a webhook by outcome (and its age when delivered), an e-mail sent or failed. */
  deliveryAttempt: (
    channel: 'webhook' | 'email',
    outcome: 'delivered' | 'retry' | 'failed',
    createdAt: string,
    now = new Date(),
  ) => {
    if (channel === 'email') return once('emails', { outcome: outcome === 'delivered' ? 'sent' : 'failed' });
    once('webhookAttempts', { outcome });
    if (outcome === 'delivered')
      put(
        metricNames.webhookDeliveryAge,
        'Seconds',
        Math.max(0, (now.getTime() - Date.parse(createdAt)) / 1000),
      );
  },
  emailRefused: (kind: 'permanent' | 'transient') => once('emailRefusals', { kind }),
  runTaskRefused: (refusal: 'throttled' | 'unavailable' | 'capacity') => once('runTaskRefusals', { refusal }),
  dependencyUnavailable: (kind: 'throttled' | 'timeout' | 'unavailable') =>
    once('dependencyUnavailable', { kind }),
  launchFailed: (stage: 'join' | 'pool_fallback' | 'replacement') => once('launchFailures', { stage }),
  pooledBotIdle: () => once('poolIdleBots'),
  poolGrown: (bots: number) => put(metricNames.poolGrowth, 'Count', bots),
  poolGrowthFailed: () => once('poolGrowthFailures'),
  dlqParked: (channel: string) => once('dlqParks', { channel }),
  sessionWarning: (code: string) => once('sessionWarnings', { code }),
  conversationModelFailed: (error: string) => once('conversationModelFailures', { error }),
  speechFailed: (outcome: 'retried' | 'text_only') => once('speechFailures', { outcome }),
  insights: (latencyMs: number, ok: boolean) => {
    put(metricNames.insightsLatency, 'Milliseconds', latencyMs);
    if (!ok) once('insightsFailures');
  },
};
