// The service's internal tunables: timings, caches, retry budgets and pacing, each with its default. None is a
// deployment setting (docs/configuration.md lists those): only tests and benchmarks change them, in code
// (loadConfig's `tunables`, the local stack's `env` option), or for the bot processes the local stack starts in the
// one variable MEETING_BOT_TEST_TUNABLES, a JSON object of these names.
import { z } from 'zod';

export const bool = (def: 'true' | 'false' = 'false') =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .default(def)
    .transform((v) => v === 'true' || v === '1');
/** A comma-separated list (blank entries dropped). */
export const list = (def = '') =>
  z
    .string()
    .default(def)
    .transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    );
export const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
/** A boolean, given in JSON as true/false or as a string ('true', '1', 'false', '0'). */
export const flag = (def: boolean) =>
  z.preprocess((v) => (typeof v === 'boolean' ? String(v) : v), bool(def ? 'true' : 'false'));

export const tunablesSchema = z.object({
  /** Credits placed on hold by a join; below it the join is refused with 402. */
  JOIN_HOLD_CREDITS: int(1, 0),
  /** Bots one account may run at once; a join beyond it gets 429 rate_limited. */
  MAX_RUNNING_BOTS_PER_ACCOUNT: int(100, 1),
  /** Daily's REST API (a test's stand-in). */
  DAILY_API_URL: z.url().default('https://api.daily.co/v1'),
  /**
   * Turn-taking (core/conversation/turn-taking.ts, docs/voice-latency.md): the silence after a participant's final
   * words before the bot's reply is heard when the words neither clearly end a sentence nor clearly go on (no sentence
   * mark); with END_OF_TURN_MODE=fixed, after any words.
   */
  END_OF_TURN_SILENCE_MS: int(700, 0),
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
  SPECULATIVE_START: flag(true),
  /** How long a recording's download link is valid, in seconds (at most an hour). */
  RECORDING_LINK_TTL_SECONDS: int(3_600, 60).pipe(z.number().max(3_600)),
  /** How often the bot uploads a piece of its recording while the meeting runs: what a lost task can lose at most. */
  RECORDING_PIECE_MS: int(10_000, 1_000).pipe(z.number().max(30_000)),
  /** Transcript characters per insights call on that server; longer transcripts are map-reduced. */
  LLM_INSIGHTS_CHUNK_CHARS: int(24_000, 2000),
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
  /** How long a positive API-key lookup is reused in this process; a revocation takes effect within it. */
  KEY_CACHE_TTL_MS: int(5_000, 0),
  /** How long the status endpoint may reuse a running session it read (ended sessions are final and kept). */
  STATUS_CACHE_TTL_MS: int(1_000, 0),
  IDEMPOTENCY_TTL_SECONDS: int(24 * 3600, 60),
  /** A join whose first attempt has not finished after this long is replayed instead of answered 409. */
  IDEMPOTENCY_IN_FLIGHT_MS: int(60_000, 1),
  MAX_BODY_BYTES: int(64 * 1024, 1024),
  /*
   * EVERYONE_LEFT_TIMEOUT_MS and WAITING_ROOM_TIMEOUT_MS, like the settings IDLE_TIMEOUT_MS and MAX_DURATION_MS, are
   * defaults of a bot's leave settings (bot_config.automatic_leave): the join fills in those the request leaves out
   * and stores them with the session (core/bots/automatic-leave.ts). The API bounds a bot's own values.
   */
  /** The last participant gone this long ends the session (participant_left); someone joining within it does not. */
  EVERYONE_LEFT_TIMEOUT_MS: int(2_000, 0).pipe(z.number().max(3_600_000)),
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
   * Deepgram's endpointing for the room's transcription, passed through Daily's startTranscription: the silence that
   * finalizes words (speech_final). Short, because the bot decides the end of a turn itself (above); the silence it
   * takes counts toward the end-of-turn waits, which run from the end of the words.
   */
  TRANSCRIPTION_ENDPOINTING_MS: int(200, 10),
  /** Ask Daily's transcription for Deepgram's interim results (words while they are spoken). */
  TRANSCRIPTION_INTERIM_RESULTS: flag(true),
  /** How long the local room's bot voice takes per character (the page speaks it with speech synthesis). */
  LOCAL_SPEECH_MS_PER_CHAR: int(55, 0),
  /** Transcript lines are saved this often while the bot runs: a crash loses at most this much. */
  TRANSCRIPT_FLUSH_MS: int(3_000, 50),
  /** Leaving the room is raced against this (daily-js leave() can hang). */
  LEAVE_TIMEOUT_MS: int(5_000, 100),
  /** A running session whose heartbeat is older than this is failed by the sweeper. */
  HEARTBEAT_STALE_MS: int(60_000, 1000),
  /**
   * A credit hold older than this whose session was never written (its join died, undo included) is released by
   * the sweep's hold reconciler; younger holds may belong to a join still in flight and are left alone.
   */
  HOLD_RECONCILE_GRACE_MS: int(300_000, 1000),
  STOP_POLL_MS: int(500, 10),
  /**
   * A bot told to stop by the platform (SIGTERM the API did not send: Spot, scale-in) keeps transcribing this long at
   * most while its replacement joins, then leaves.
   */
  REPLACEMENT_HANDOFF_MS: int(90_000, 0),
  HEARTBEAT_MS: int(15_000, 100),
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
   * How long the control plane keeps trying to launch a session's bot while ECS throttles (re-queued with jitter),
   * from the join; past it the session fails capacity_unavailable, never charged.
   */
  START_GIVE_UP_MS: int(300_000, 10_000).pipe(z.number().max(3_600_000)),
});

export type Tunables = z.infer<typeof tunablesSchema>;
