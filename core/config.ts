// Typed, validated deployment settings read from the environment; every knob has a default (docs/configuration.md).
import { z } from 'zod';
import { poolMaxLimit, poolSizeLimit } from './bots/pool-bounds';
import { providers } from './schemas/api';

const bool = (def: 'true' | 'false' = 'false') =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .default(def)
    .transform((v) => v === 'true' || v === '1');
/** A comma-separated list (blank entries dropped). */
const list = (def = '') =>
  z
    .string()
    .default(def)
    .transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    );
const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

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
  /** How long a recording's download link is valid, in seconds (at most an hour). */
  RECORDING_LINK_TTL_SECONDS: int(3_600, 60).pipe(z.number().max(3_600)),
  /** How often the bot uploads a piece of its recording while the meeting runs: what a lost task can lose at most. */
  RECORDING_PIECE_MS: int(10_000, 1_000).pipe(z.number().max(30_000)),
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
  /** Transcript characters per insights call on that server; longer transcripts are map-reduced. */
  LLM_INSIGHTS_CHUNK_CHARS: int(24_000, 2000),
  /**
   * Time budget of one insights analysis on that server, every call and retry included (fits the deployed results
   * function's 2 minutes; a slow local model needs more).
   */
  LLM_INSIGHTS_DEADLINE_MS: int(90_000, 1000),
  /** Time a conversation turn may spend waiting on its model (Bedrock or OpenAI-compatible); then it is abandoned. */
  CONVERSATION_TURN_TIMEOUT_MS: int(15_000, 100),
  /** Consecutive failed turns of the conversation model after which the bot finishes with the local engine. */
  CONVERSATION_MODEL_MAX_FAILURES: int(3, 1),
  /** Wait before the first retry of a failed turn; each further retry waits twice as long. */
  CONVERSATION_RETRY_BACKOFF_MS: int(1_000, 0),
  /** Wait before the one retry of a line the voice (Polly) could not speak. */
  SPEECH_RETRY_DELAY_MS: int(500, 0),
  /** A webhook must answer 2xx within this long. */
  WEBHOOK_TIMEOUT_MS: int(15_000, 100),
  /** How long a rotated-out webhook secret keeps signing beside the new one; then only the new one signs. */
  WEBHOOK_SECRET_OVERLAP_SECONDS: int(24 * 3600, 0),
  /**
   * How long the delivery stage reuses an account's signing secrets it read (a bot's transcript.data every few
   * seconds then reads no account each); a rotation reaches a warm process within it. 0 reads them for every webhook.
   */
  WEBHOOK_SECRET_CACHE_MS: int(60_000, 0),
  /** Multiplies the webhook retry schedule (1 = about 76 hours over 15 attempts); tests compress it. */
  DELIVERY_BACKOFF_SCALE: z.coerce.number().min(0).max(1).default(1),
  /** Credits placed on hold by a join; below it the join is refused with 402. */
  JOIN_HOLD_CREDITS: int(1, 0),
  /** Bots one account may run at once; a join beyond it gets 429 rate_limited. */
  MAX_RUNNING_BOTS_PER_ACCOUNT: int(100, 1),
  /** Credits charged per started minute of a session when it settles. */
  CREDITS_PER_MINUTE: int(1, 0),
  /** Requests per minute per API key before 429 rate_limited. */
  RATE_LIMIT_PER_MINUTE: int(600, 1),
  /** How long a positive API-key lookup is reused in this process; a revocation takes effect within it. */
  KEY_CACHE_TTL_MS: int(5_000, 0),
  /** How long the status endpoint may reuse a running session it read (ended sessions are final and kept). */
  STATUS_CACHE_TTL_MS: int(1_000, 0),
  IDEMPOTENCY_TTL_SECONDS: int(24 * 3600, 60),
  /** A join whose first attempt has not finished after this long is replayed instead of answered 409. */
  IDEMPOTENCY_IN_FLIGHT_MS: int(60_000, 1),
  /** Accepts provider "local" (rooms of the local room server); set by the local stack, never in AWS. */
  ALLOW_LOCAL_ROOMS: bool(),
  /** Allows http:// and private/loopback webhook targets (local mode only). */
  ALLOW_INSECURE_WEBHOOKS: bool(),
  MAX_BODY_BYTES: int(64 * 1024, 1024),
  /*
   * EVERYONE_LEFT_TIMEOUT_MS, IDLE_TIMEOUT_MS, WAITING_ROOM_TIMEOUT_MS and MAX_DURATION_MS are the deployment's
   * defaults of a bot's leave settings (bot_config.automatic_leave): the join fills in those the
   * request leaves out and stores them with the session (core/bots/automatic-leave.ts). The API bounds a bot's own
   * values (core/schemas/api.ts); a deployment may set shorter defaults (the tests do).
   */
  /** The last participant gone this long ends the session (participant_left); someone joining within it does not. */
  EVERYONE_LEFT_TIMEOUT_MS: int(2_000, 0).pipe(z.number().max(3_600_000)),
  /** No audio from anyone but the bot this long ends the session (idle_timeout; the interface's 5 minutes). */
  IDLE_TIMEOUT_MS: int(300_000, 1).pipe(z.number().max(86_400_000)),
  /** The safety cap on a bot's time in the room (max_duration); at most the API's 4 hours. */
  MAX_DURATION_MS: int(14_400_000, 1000).pipe(z.number().max(14_400_000)),
  /** How long the bot tries to get to the room (or its waiting room) before giving up (bot_join_failed, unknown). */
  JOIN_TIMEOUT_MS: int(90_000, 100),
  /**
   * How long a bot waits in a waiting room (knocking) to be let in when its bot_config does not say; then
   * bot_join_failed with error_code waiting_room_timeout. JOIN_TIMEOUT_MS ends when the bot reaches the waiting room.
   */
  WAITING_ROOM_TIMEOUT_MS: int(600_000, 100),
  /**
   * How long a bot in the room may go without a running transcription (it did not start, or it stopped with an
   * error) while it tries to start it again; then it leaves and the session fails with error_code
   * transcription_unavailable, not charged.
   */
  TRANSCRIPTION_RECOVERY_MS: int(30_000, 100),
  /** While transcription is not running, the bot tries to start it again this often (within the recovery time). */
  TRANSCRIPTION_RETRY_MS: int(5_000, 100),
  /**
   * No audio levels for this long while transcription messages arrive: turn-taking, barge-in and the idle timer take
   * each transcription message as its speaker's audio activity instead.
   */
  AUDIO_LEVELS_MISSING_MS: int(10_000, 100),
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
   * Deepgram's endpointing for the room's transcription, passed through Daily's startTranscription: the silence that
   * finalizes words (speech_final). Short, because the bot decides the end of a turn itself (above); the silence it
   * takes counts toward the end-of-turn waits, which run from the end of the words.
   */
  TRANSCRIPTION_ENDPOINTING_MS: int(200, 10),
  /** Ask Daily's transcription for Deepgram's interim results (words while they are spoken). */
  TRANSCRIPTION_INTERIM_RESULTS: bool('true'),
  /** How long the local room's bot voice takes per character (the page speaks it with speech synthesis). */
  LOCAL_SPEECH_MS_PER_CHAR: int(55, 0),
  /** Transcript lines are saved this often while the bot runs: a crash loses at most this much. */
  TRANSCRIPT_FLUSH_MS: int(3_000, 50),
  /** Leaving the room is raced against this (daily-js leave() can hang). */
  LEAVE_TIMEOUT_MS: int(5_000, 100),
  /**
   * Days a meeting's content (transcript, Q&A pairs, insights, delivery bodies) is kept after the meeting ended, for
   * accounts without their own `retention_days` (admin CLI `accounts set-retention`); 0 deletes it once delivered.
   */
  RETENTION_DAYS: int(30, 0).pipe(z.number().max(3650)),
  /** A running session whose heartbeat is older than this is failed by the sweeper. */
  HEARTBEAT_STALE_MS: int(60_000, 1000),
  /**
   * A credit hold older than this whose session was never written (its join died, undo included) is released by
   * the sweep's hold reconciler; younger holds may belong to a join still in flight and are left alone.
   */
  HOLD_RECONCILE_GRACE_MS: int(300_000, 1000),
  STOP_POLL_MS: int(500, 10),
  /** A session's bot lost after it joined (crash, platform stop, lost connection) is replaced this often at most. */
  MAX_REPLACEMENTS: int(2, 0).pipe(z.number().max(50)),
  /**
   * A bot told to stop by the platform (SIGTERM the API did not send: Spot, scale-in) keeps transcribing this long at
   * most while its replacement joins, then leaves.
   */
  REPLACEMENT_HANDOFF_MS: int(90_000, 0),
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
  HEARTBEAT_MS: int(15_000, 100),
  /**
   * Warm pool: idle bots kept ready, each serving one session. 0 turns it off: every join starts a fresh
   * task. The local stack defaults to 1 (its task runner keeps that many bot processes); on AWS the stack sets it
   * on the join function from the `botPoolSize` context (the pool service keeps that many idle: docs/warm-pool.md).
   */
  BOT_POOL_SIZE: int(0, 0).pipe(z.number().max(poolSizeLimit)),
  /**
   * With the pool on, a join the pool has not claimed after this long starts a fresh task (rounded up to whole
   * seconds: the fallback is a delayed queue message).
   */
  POOL_CLAIM_TIMEOUT_MS: int(2_000, 0).pipe(z.number().max(900_000)),
  /**
   * Scheduled joins (start request `join_at`): how far ahead `join_at` must be, at least and at most. The minimum
   * leaves the service time to get a bot ready; the maximum bounds how long a credit hold is kept.
   */
  JOIN_AT_MIN_LEAD_MS: int(30_000, 0),
  JOIN_AT_MAX_LEAD_MS: int(30 * 24 * 3600_000, 1000),
  /**
   * A scheduled session is handed to a bot this long before `join_at` when the pool is on (a pooled bot claims it,
   * loads nothing new, and joins at `join_at`; the cold fallback follows POOL_CLAIM_TIMEOUT_MS later).
   */
  SCHEDULE_POOL_LEAD_MS: int(10_000, 0),
  /** Without the pool, a scheduled session's task is started this long before `join_at` (task start, Chromium). */
  SCHEDULE_COLD_LEAD_MS: int(90_000, 0),
  /**
   * How far ahead the scheduler looks each time it runs (every minute on AWS, every SCHEDULE_TICK_MS locally): the
   * sessions due in that window are queued, each delayed to its own moment, and the warm pool is raised for them.
   * Must exceed the run interval; at most 14 min (a queue message is delayed at most 15 min). A run a minute apart
   * raises the pool at least this plus the lead minus a minute ahead (190 s): room for Fargate to launch 1,000 bots
   * at its 20 per second (50 s) and the slowest start (~120 s) before their offers (bench/storm-scheduled.ts).
   */
  SCHEDULE_HORIZON_MS: int(240_000, 1000).pipe(z.number().max(840_000)),
  /** The local stack's scheduler timer (AWS runs the scheduler every minute). */
  SCHEDULE_TICK_MS: int(5_000, 100),
  /**
   * How often an idle pooled bot scans the offered sessions (one strongly consistent Query each time): the backstop
   * for an offer whose wake-up on POOL_QUEUE_URL was lost, and the only way to find offers without that queue.
   */
  POOL_POLL_MS: int(1_000, 10),
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
   * How long one bot start keeps retrying RunTask when ECS throttles it (20 calls/s per account and region), a launch
   * limit or quota is reached, ECS has a server fault, or no capacity provider has room. The join waits this long at
   * most (its Lambda must answer within 29 s), then answers 503 capacity_unavailable; the pool's fallback fails its
   * session, not charged; a replacement that cannot launch fails its session with the minutes the lost bot was in the
   * room charged, as any lost bot that is not replaced.
   */
  RUN_TASK_RETRY_BUDGET_MS: int(15_000, 0).pipe(z.number().max(25_000)),
  /** The first RunTask retry's delay; each next one doubles (up to 5 s), half of it random (equal jitter). */
  RUN_TASK_RETRY_BASE_MS: int(200, 1),
  /** The Retry-After a join answered 503 capacity_unavailable carries. */
  CAPACITY_RETRY_AFTER_SECONDS: int(15, 1),
  /**
   * The Retry-After of a 503 dependency_unavailable: a request that failed because DynamoDB, SQS or ECS throttled it
   * or timed out after the SDK's own retries. Short: such a spell usually passes within seconds (DynamoDB's adaptive
   * capacity, a token bucket refilling), and the caller's retry is what tells.
   */
  DEPENDENCY_RETRY_AFTER_SECONDS: int(2, 1).pipe(z.number().max(60)),
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
  /**
   * How long the control plane keeps trying to launch a session's bot while ECS throttles (re-queued with jitter),
   * from the join; past it the session fails capacity_unavailable, never charged.
   */
  START_GIVE_UP_MS: int(300_000, 10_000).pipe(z.number().max(3_600_000)),
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
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${fields}`);
  }
  if (parsed.data.LLM_BASE_URL && !parsed.data.LLM_MODEL) {
    throw new Error('invalid configuration: LLM_MODEL: required when LLM_BASE_URL is set');
  }
  return parsed.data;
}
