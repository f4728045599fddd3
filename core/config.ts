// The settings a deployment sets, read from the environment, typed and validated at start with a default each
// (docs/configuration.md); the internal tunables beside them come from ./tunables.ts.
import { z } from 'zod';
import { poolMaxLimit, poolSizeLimit } from './bots/pool-bounds';
import { providers } from './schemas/api';
import { flag, int, list, type Tunables, tunablesSchema } from './tunables';

/** The service's queues (QUEUE_URLS); an empty URL: the process uses no such queue. */
const queueUrlsSchema = z.object({
  /** Where a bot that left the room hands over its session for results (transcript, insights, completion). */
  RESULTS_QUEUE_URL: z.string().default(''),
  /** The control plane's decisions about bot tasks: cold starts (the warm pool's fallback) and replacements. */
  CONTROL_QUEUE_URL: z.string().default(''),
  /** Events of a bot's life, in order per bot (a FIFO queue, its name ending in `.fifo`). */
  BOT_EVENTS_QUEUE_URL: z.string().default(''),
  /** One job per channel (webhook, e-mail) of a finished session; its DLQ holds deliveries that gave up. */
  DELIVERY_QUEUE_URL: z.string().default(''),
  DELIVERY_DLQ_URL: z.string().default(''),
  /**
   * The pool's wake-up queue: the join sends one message per offered session and an idle pooled bot long-polls it,
   * so a join is claimed within a round trip: the only way a pooled bot learns of a session. Empty: the joins still
   * offer sessions, and the fallback (POOL_CLAIM_TIMEOUT_MS) starts each one cold; a pooled bot refuses to start.
   */
  POOL_QUEUE_URL: z.string().default(''),
});

/** The bot runtime on ECS (BOT_RUNTIME: infra/constructs/bot-runtime.ts runnerEnvironment). */
const botRuntimeSchema = z.object({
  BOT_CLUSTER_ARN: z.string().default(''),
  BOT_TASK_DEFINITION_ARN: z.string().default(''),
  /** The bot's container in the task definition (RunTask overrides and the task-stopped handler name it). */
  BOT_CONTAINER_NAME: z.string().min(1).default('bot'),
  BOT_SUBNET_IDS: list(),
  BOT_SECURITY_GROUP_IDS: list(),
  BOT_ASSIGN_PUBLIC_IP: flag(true),
  /** Capacity providers RunTask tries in order (Spot first, on-demand when Spot has no capacity). */
  BOT_CAPACITY_PROVIDERS: list('FARGATE_SPOT,FARGATE'),
  /**
   * The warm pool's ECS service: the scheduler raises its desired count for the sessions due soon, and the control
   * function when offers go unclaimed (docs/warm-pool.md). Empty: no growth beyond the scaling.
   */
  BOT_POOL_SERVICE: z.string().default(''),
});

/** The local stack's stand-ins and choices (LOCAL_STACK: local/stack.ts; `npm start` takes these names from its environment). */
const localStackSchema = z.object({
  /** Endpoint overrides: dynalite, fauxqs, the local SES, S3 (moto in tests: path-style addressing then). */
  DYNAMODB_ENDPOINT: z.url().optional(),
  SQS_ENDPOINT: z.url().optional(),
  SES_ENDPOINT: z.url().optional(),
  S3_ENDPOINT: z.url().optional(),
  /** Recordings as files under this directory instead of S3, their download links signed by RECORDINGS_URL_KEY. */
  RECORDINGS_DIR: z.string().default(''),
  RECORDINGS_URL_KEY: z.string().default(''),
  /** Accepts provider "local" (rooms of the local room server). */
  ALLOW_LOCAL_ROOMS: flag(false),
  /** Allows http:// and private/loopback webhook targets. */
  ALLOW_INSECURE_WEBHOOKS: flag(false),
  /**
   * The room provider a pooled bot gets ready before it waits: `daily` launches Chromium and loads the bot page with
   * daily-js, `local` loads the local room client. A session of the other provider is still served, by a provider
   * built on claiming (as a cold start does).
   */
  BOT_POOL_PROVIDER: z.enum(providers).default('daily'),
  /**
   * How the local stack runs a bot: `process`, a node child process of the bot bundle; `container`, a container of
   * BOT_IMAGE (`npm run image`) run as Fargate runs the task (local/container-engine.ts), with BOT_CONTAINER_ARGS.
   */
  BOT_RUNNER: z.enum(['process', 'container']).default('process'),
  BOT_IMAGE: z.string().min(1).default('meeting-bot-task:local'),
  BOT_CONTAINER_ARGS: list(),
  /** json: one object per line (what CloudWatch and Logs Insights read); pretty: one readable line, for a terminal. */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
});

/**
 * Each variable holding a JSON object of names, and those names' schema: the internal tunables (tests and benchmarks
 * only, for the bots they start); the queues, set by the stack on each process for those it uses; the bot runtime on
 * ECS, set on the functions that start and stop bots; the local stand-ins, set by the local stack on itself and its
 * bots (unset on AWS).
 */
const groups = {
  MEETING_BOT_TEST_TUNABLES: tunablesSchema,
  QUEUE_URLS: queueUrlsSchema,
  BOT_RUNTIME: botRuntimeSchema,
  LOCAL_STACK: localStackSchema,
} as const;
export type Group = keyof typeof groups;

export const configSchema = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  TABLE_NAME: z.string().min(3).default('meeting-bot'),
  /** The bucket of meeting recordings (docs/recording.md); the stack sets it. */
  RECORDINGS_BUCKET: z.string().default(''),
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
  /** Credits charged per started minute of a session when it settles. */
  CREDITS_PER_MINUTE: int(1, 0),
  /** Requests per minute per API key before 429 rate_limited. */
  RATE_LIMIT_PER_MINUTE: int(600, 1),
  /** No audio from anyone but the bot this long ends the session (idle_timeout; the interface's 5 minutes). */
  IDLE_TIMEOUT_MS: int(300_000, 1).pipe(z.number().max(86_400_000)),
  /** The safety cap on a bot's time in the room (max_duration); at most the API's 4 hours. */
  MAX_DURATION_MS: int(14_400_000, 1000).pipe(z.number().max(14_400_000)),
  /**
   * Days a meeting's content (transcript, Q&A pairs, insights, delivery bodies) is kept after the meeting ended, for
   * accounts without their own `retention_days` (admin CLI `accounts set-retention`); 0 deletes it once delivered.
   */
  RETENTION_DAYS: int(30, 0).pipe(z.number().max(3650)),
  /** A session's bot lost after it joined (crash, platform stop, lost connection) is replaced this often at most. */
  MAX_REPLACEMENTS: int(2, 0).pipe(z.number().max(50)),
  /** The service's Daily REST API key (a Secrets Manager secret in AWS): mints the bot's transcription token. */
  DAILY_API_KEY: z.string().optional(),
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
  /** The most pooled bots that growth may ask for (the service's scaling maximum, `botPoolMax`). */
  BOT_POOL_MAX: int(10, 0).pipe(z.number().max(poolMaxLimit)),
  /**
   * The most bot tasks the deployment runs at once, idle pooled bots included (0: no maximum of ours, only the
   * account's Fargate quota). A join that would start one beyond it answers 503 capacity_exhausted, holding nothing.
   */
  MAX_BOTS: int(0, 0),
  /**
   * The CloudWatch namespace the service's metrics are written under, as EMF lines on stdout (core/metrics.ts); the
   * stack sets MeetingBot/<stage>. Empty: no metrics are written (the local stack, where they would be noise).
   */
  METRICS_NAMESPACE: z.string().default(''),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /**
   * How long the bot waits after a participant's words before its reply is heard: `adaptive` reads how the words end
   * (the END_OF_TURN_* tunables); `fixed` always waits END_OF_TURN_SILENCE_MS (the old fixed rule).
   */
  END_OF_TURN_MODE: z.enum(['adaptive', 'fixed']).default('adaptive'),

  /**
   * Time budget of one insights analysis on that server, every call and retry included (fits the deployed results
   * function's 2 minutes; a slow local model needs more).
   */
  LLM_INSIGHTS_DEADLINE_MS: int(90_000, 1000),
  /** Time a conversation turn may spend waiting on its model (Bedrock or OpenAI-compatible); then it is abandoned. */
  CONVERSATION_TURN_TIMEOUT_MS: int(15_000, 100),
  // Each variable of `groups` above: a JSON object of its names.
  ...(Object.fromEntries(Object.keys(groups).map((g) => [g, z.string().default('{}')])) as Record<
    Group,
    z.ZodDefault<z.ZodString>
  >),
});

/** The names each JSON variable holds (local/stack.ts moves names given one by one into theirs). */
export const groupNames = Object.fromEntries(
  Object.entries(groups).map(([group, schema]) => [group, new Set(Object.keys(schema.shape))]),
) as unknown as Record<Group, ReadonlySet<string>>;

type Settings = Omit<z.infer<typeof configSchema>, Group>;
export type Config = Settings &
  Tunables &
  z.infer<typeof queueUrlsSchema> &
  z.infer<typeof botRuntimeSchema> &
  z.infer<typeof localStackSchema>;

/**
 * The settings in `env`, and the names of its JSON variables (the tunables' defaults among them), each over-ridden
 * by `given`: values a test, a benchmark or the admin CLI sets in code, by name.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  given: Record<string, unknown> = {},
): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) throw invalid(parsed.error);
  if (parsed.data.LLM_BASE_URL && !parsed.data.LLM_MODEL) {
    throw new Error('invalid configuration: LLM_MODEL: required when LLM_BASE_URL is set');
  }
  const unknown = Object.keys(given).filter((k) => !Object.values(groupNames).some((names) => names.has(k)));
  if (unknown.length > 0)
    throw new Error(`invalid configuration: not settable in code: ${unknown.join(', ')}`);
  const config: Record<string, unknown> = { ...parsed.data };
  for (const [group, schema] of Object.entries(groups) as [Group, z.ZodObject][]) {
    let json: unknown;
    try {
      json = JSON.parse(parsed.data[group]);
    } catch {
      throw new Error(`invalid configuration: ${group}: not JSON`);
    }
    const picked = Object.entries(given).filter(([k]) => groupNames[group].has(k));
    const values = schema.safeParse({ ...(json as object), ...Object.fromEntries(picked) });
    if (!values.success) throw invalid(values.error, group);
    Object.assign(config, values.data);
    delete config[group];
  }
  return config as Config;
}

function invalid(error: z.ZodError, group?: string): Error {
  const at = (path: PropertyKey[]) => [group, ...path].filter((p) => p !== undefined).join('.');
  return new Error(
    `invalid configuration: ${error.issues.map((i) => `${at(i.path)}: ${i.message}`).join('; ')}`,
  );
}
