// The settings a deployment sets, read from the environment, typed and validated at start with a default each
// (docs/configuration.md); the internal tunables beside them come from ./tunables.ts.
import { z } from 'zod';
import { poolMaxLimit, poolSizeLimit } from './bots/pool-bounds';
import { providers } from './schemas/api';
import { bool, int, list, type Tunables, tunablesSchema } from './tunables';

export const configSchema = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  TABLE_NAME: z.string().min(3).default('meeting-bot'),
  /** Endpoint overrides: set by the local stack (dynalite, fauxqs, local SES); unset in AWS. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  SQS_ENDPOINT: z.url().optional(),
  /** Where a bot that left the room hands over its session for results (transcript, insights, completion). */
  RESULTS_QUEUE_URL: z.string().default(''),
  /** The control plane's decisions about bot tasks: cold starts (the warm pool's fallback) and replacements. */
  CONTROL_QUEUE_URL: z.string().default(''),
  /** Events of a bot's life, in order per bot (a FIFO queue, its name ending in `.fifo`). */
  BOT_EVENTS_QUEUE_URL: z.string().default(''),
  /** One job per channel (webhook, e-mail) of a finished session; its DLQ holds deliveries that gave up. */
  DELIVERY_QUEUE_URL: z.string().default(''),
  DELIVERY_DLQ_URL: z.string().default(''),
  SES_ENDPOINT: z.url().optional(),
  /** S3 (moto in tests); unset in AWS. */
  S3_ENDPOINT: z.url().optional(),
  /** The bucket of meeting recordings (docs/recording.md); the stack sets it. */
  RECORDINGS_BUCKET: z.string().default(''),
  /**
   * A directory for recordings instead of S3 (the local stack: DATA_DIR/recordings), served by the local stack at
   * RECORDINGS_URL_BASE with links signed by RECORDINGS_URL_KEY.
   */
  RECORDINGS_DIR: z.string().default(''),
  RECORDINGS_URL_BASE: z.string().default(''),
  RECORDINGS_URL_KEY: z.string().default(''),
  /** The verified SES identity results are sent from. */
  SES_FROM_ADDRESS: z.string().default('Meeting Bot <bots@example.com>'),
  /** Bedrock model (or inference profile) the bot converses with; empty: LLM_BASE_URL's server, else the local engine. */
  CONVERSATION_MODEL_ID: z.string().default(''),
  /** Bedrock model (or inference profile) for insights; empty: LLM_BASE_URL's server, else the local rules. */
  INSIGHTS_MODEL_ID: z.string().default(''),
  /**
   * An OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenAI), e.g. http://localhost:11434/v1: the language
   * engine wherever no Bedrock model id is set. Unset (or empty): those engines are the local ones.
   */
  LLM_BASE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),
  /** Its API key; local servers usually need none (no Authorization header is sent then). Never logged. */
  LLM_API_KEY: z.string().optional(),
  /** The model name on that server; required with LLM_BASE_URL (checked in loadConfig). */
  LLM_MODEL: z.string().trim().default(''),
  /** Credits placed on hold by a join; below it the join is refused with 402. */
  JOIN_HOLD_CREDITS: int(1, 0),
  /** Bots one account may run at once; a join beyond it gets 429 rate_limited. */
  MAX_RUNNING_BOTS_PER_ACCOUNT: int(100, 1),
  /** Credits charged per started minute of a session when it settles. */
  CREDITS_PER_MINUTE: int(1, 0),
  /** Requests per minute per API key before 429 rate_limited. */
  RATE_LIMIT_PER_MINUTE: int(600, 1),
  /** Accepts provider "local" (rooms of the local room server); set by the local stack, never in AWS. */
  ALLOW_LOCAL_ROOMS: bool(),
  /** Allows http:// and private/loopback webhook targets (local mode only). */
  ALLOW_INSECURE_WEBHOOKS: bool(),
  /** No audio from anyone but the bot this long ends the session (idle_timeout; the interface's 5 minutes). */
  IDLE_TIMEOUT_MS: int(300_000, 1).pipe(z.number().max(86_400_000)),
  /** The safety cap on a bot's time in the room (max_duration); at most the API's 4 hours. */
  MAX_DURATION_MS: int(14_400_000, 1000).pipe(z.number().max(14_400_000)),
  /**
   * Turn-taking (core/conversation/turn-taking.ts, docs/benchmarks.md): the silence after a participant's final words
   * before the bot's reply is heard, when the words neither clearly end a sentence nor clearly go on (no sentence
   * mark); with END_OF_TURN_MODE=fixed, after any words (the old fixed rule).
   */
  END_OF_TURN_SILENCE_MS: int(700, 0),
  /** `adaptive`: the silence depends on how the words end (the three waits here); `fixed`: always END_OF_TURN_SILENCE_MS. */
  END_OF_TURN_MODE: z.enum(['adaptive', 'fixed']).default('adaptive'),
  /** The silence after words that end a sentence ("…in Berlin.", "Why?"); at most END_OF_TURN_SILENCE_MS. */
  END_OF_TURN_COMPLETE_MS: int(250, 0),
  /** The silence after words that cannot end one ("and", "the", "um", a trailing comma); at least END_OF_TURN_SILENCE_MS. */
  END_OF_TURN_INCOMPLETE_MS: int(1_500, 0),
  /**
   * An interim transcript that ends a sentence and stays unchanged this long starts the reply before the final words
   * come (the audio still waits for them and the silence above); dropped unheard if the person goes on.
   */
  SPECULATIVE_START_STABLE_MS: int(0, 0),
  /** Starting replies on stable interim transcripts (above); off: replies start on final words (still held). */
  SPECULATIVE_START: bool('true'),
  /**
   * Days a meeting's content (transcript, Q&A pairs, insights, delivery bodies) is kept after the meeting ended, for
   * accounts without their own `retention_days` (admin CLI `accounts set-retention`); 0 deletes it once delivered.
   */
  RETENTION_DAYS: int(30, 0).pipe(z.number().max(3650)),
  /** A session's bot lost after it joined (crash, platform stop, lost connection) is replaced this often at most. */
  MAX_REPLACEMENTS: int(2, 0).pipe(z.number().max(50)),
  /** The service's Daily REST API key (a Secrets Manager secret in AWS): mints the bot's transcription token. */
  DAILY_API_KEY: z.string().optional(),
  DAILY_API_URL: z.url().default('https://api.daily.co/v1'),
  /**
   * Hosts a Daily room_url may name: each entry matches itself and its subdomains (comma-separated; add a
   * Daily custom domain such as meet.example.com). Keeps the bot from being sent to arbitrary hosts.
   */
  DAILY_ROOM_DOMAINS: z
    .string()
    .default('daily.co')
    .transform((s) =>
      s
        .split(',')
        .map((d) =>
          d
            .trim()
            .toLowerCase()
            .replace(/^\*?\./, ''),
        )
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, 'a domain such as daily.co')).min(1)),
  /**
   * An ES module file the bot page imports as daily-js instead of the bundle shipped with the task (the installed
   * @daily-co/daily-js): an operator pinning or self-hosting a daily-js build, or the join-latency benchmark serving
   * its stand-in. Unset: the shipped bundle.
   */
  DAILY_JS_MODULE_PATH: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  /**
   * Warm pool: idle bots kept ready, each serving one session. 0 turns it off: every join starts a fresh
   * task. The local stack defaults to 1 (its task runner keeps that many bot processes); on AWS the stack sets it
   * on the join function from the `botPoolSize` context (the pool service keeps that many idle: docs/warm-pool.md).
   */
  BOT_POOL_SIZE: int(0, 0).pipe(z.number().max(poolSizeLimit)),
  /**
   * The pool's wake-up queue (SQS; fauxqs locally): the join sends one message per offered session and an idle
   * pooled bot long-polls it, so a join is claimed within a round trip. Empty: pooled bots only scan (POOL_POLL_MS).
   */
  POOL_QUEUE_URL: z.string().default(''),
  /**
   * The warm pool's ECS service (name or ARN): the scheduler raises its desired count for the sessions due soon, and
   * the control function when offers go unclaimed, so the pool grows ahead of and in a storm (docs/warm-pool.md).
   * Empty: no growth beyond the scaling.
   */
  BOT_POOL_SERVICE: z.string().default(''),
  /** The most pooled bots that growth may ask for (the service's scaling maximum, `botPoolMax`). */
  BOT_POOL_MAX: int(10, 0).pipe(z.number().max(poolMaxLimit)),
  /**
   * The room provider a pooled bot gets ready before it waits: `daily` launches Chromium and loads the bot page with
   * daily-js, `local` loads the local room client. A session of the other provider is still served, by a provider
   * built on claiming (as a cold start does). The local stack sets `local` unless told otherwise.
   */
  BOT_POOL_PROVIDER: z.enum(providers).default('daily'),
  /**
   * How the local stack runs a bot: `process`, a node child process of the bot bundle; `container`, a container of
   * BOT_IMAGE (`npm run image`) run as Fargate runs the task (local/container-engine.ts). Unused on AWS.
   */
  BOT_RUNNER: z.enum(['process', 'container']).default('process'),
  /** The bot image BOT_RUNNER=container runs. */
  BOT_IMAGE: z.string().min(1).default('meeting-bot-task:local'),
  /**
   * More `run` options for those containers, comma-separated, each as one `--option=value` argument: the task's size
   * (`--memory=4g,--cpus=2`), or hosts to resolve elsewhere (`--add-host=c.daily.co:127.0.0.1`).
   */
  BOT_CONTAINER_ARGS: list(),
  /**
   * The bot runtime on ECS, set by the stack on the functions that start and stop bots (infra/constructs/
   * bot-runtime.ts runnerEnvironment); unused locally, where bots are child processes.
   */
  BOT_CLUSTER_ARN: z.string().default(''),
  BOT_TASK_DEFINITION_ARN: z.string().default(''),
  /** The bot's container in the task definition (RunTask overrides and the task-stopped handler name it). */
  BOT_CONTAINER_NAME: z.string().min(1).default('bot'),
  BOT_SUBNET_IDS: list(),
  BOT_SECURITY_GROUP_IDS: list(),
  BOT_ASSIGN_PUBLIC_IP: bool('true'),
  /** Capacity providers RunTask tries in order (Spot first, on-demand when Spot has no capacity). */
  BOT_CAPACITY_PROVIDERS: list('FARGATE_SPOT,FARGATE'),
  /**
   * The most bot tasks the deployment runs at once, idle pooled bots included (0: no maximum of ours, only the
   * account's Fargate quota). A join that would start one beyond it answers 503 capacity_exhausted, holding nothing.
   */
  MAX_BOTS: int(0, 0),
  /**
   * RunTask calls per second one process makes at most (its token bucket holds one second's worth). ECS allows 20 per
   * account and region: the control function, which makes most of them, is one of few processes doing so.
   */
  RUN_TASK_CALLS_PER_SECOND: int(20, 1).pipe(z.number().max(100)),
  /** CloudWatch namespace of the service's metrics (core/metrics.ts); the stack sets MeetingBot/<stage>. */
  METRICS_NAMESPACE: z.string().min(1).default('MeetingBot'),
  /**
   * Write metrics as CloudWatch EMF lines on stdout (the stack sets it for the Lambdas and the bot task). Off by
   * default: on the local stack those lines would only be noise between the logs.
   */
  METRICS_EMF: bool('false'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** json: one object per line (what CloudWatch and Logs Insights read); pretty: one readable line, for a terminal. */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),

  /**
   * Time budget of one insights analysis on that server, every call and retry included (fits the deployed results
   * function's 2 minutes; a slow local model needs more).
   */
  LLM_INSIGHTS_DEADLINE_MS: int(90_000, 1000),
  /** Time a conversation turn may spend waiting on its model (Bedrock or OpenAI-compatible); then it is abandoned. */
  CONVERSATION_TURN_TIMEOUT_MS: int(15_000, 100),
  /** Tests and benchmarks only: a JSON object of internal tunables (core/tunables.ts), for the bots they start. */
  MEETING_BOT_TEST_TUNABLES: z.string().default('{}'),
});

export type Config = z.infer<typeof configSchema> & Tunables;

/**
 * The settings in `env`, and the tunables: their defaults, over them MEETING_BOT_TEST_TUNABLES, over that `tunables`
 * (a test's, in code).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  tunables: Record<string, unknown> = {},
): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) throw invalid(parsed.error);
  if (parsed.data.LLM_BASE_URL && !parsed.data.LLM_MODEL) {
    throw new Error('invalid configuration: LLM_MODEL: required when LLM_BASE_URL is set');
  }
  let given: unknown;
  try {
    given = JSON.parse(parsed.data.MEETING_BOT_TEST_TUNABLES);
  } catch {
    throw new Error('invalid configuration: MEETING_BOT_TEST_TUNABLES: not JSON');
  }
  const tuned = tunablesSchema.safeParse({ ...(given as object), ...tunables });
  if (!tuned.success) throw invalid(tuned.error);
  return { ...parsed.data, ...tuned.data };
}

function invalid(error: z.ZodError): Error {
  return new Error(
    `invalid configuration: ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
  );
}
