// The bot runtime's entry (ECS container command; a child process locally). With BOT_ID it serves that session (all
// else comes from the session record); without, it is a pooled bot: it gets ready, claims one session, serves it.
import { randomUUID } from 'node:crypto';
import { languageEngines } from '../core/adapters/language-engines';
import { useEmfMetrics } from '../core/adapters/metrics/emf-metrics';
import { wireAdapters } from '../core/adapters/wiring';
import { automaticLeaveOf } from '../core/bots/automatic-leave';
import { type BotSession, currentAttempt, recordsAudio } from '../core/bots/session';
import { loadConfig } from '../core/config';
import { correlatedLog, correlatedQueue } from '../core/correlation';
import { createLogger, type Logger } from '../core/log';
import { metrics, poolIdleEveryMs } from '../core/metrics';
import type { RoomProvider } from '../core/ports/room-provider';
import type { Provider } from '../core/schemas/api';
import { runBot } from './bot';
import { ecsTaskArn, protectFromScaleIn, scaleInProtectionMinutes } from './ecs-task';
import { beat, joinTimes } from './heartbeat';
import { claimFromPool } from './pool';

// Installed before anything else: a leave request that arrives while the task is still starting must not kill it
// (Node's default for SIGTERM); and `on`, not `once`, so a second SIGTERM (StopTask after the leave request, the
// runner shutting down) cannot interrupt the exit pipeline while it saves the transcript.
const terminated = new Promise<void>((resolve) => process.on('SIGTERM', () => resolve()));

const assignedBotId = process.env.BOT_ID;
// A pooled bot's id: the local runner's name, or on ECS the task's ARN (task-stopped finds its session by it).
const pooledTaskArn = assignedBotId ? undefined : await ecsTaskArn().catch(() => undefined);
const poolBotId = assignedBotId
  ? undefined
  : (process.env.POOL_BOT_ID ?? pooledTaskArn ?? `pool-${randomUUID()}`);
const attempt = Number(process.env.BOT_ATTEMPT ?? 0);
const config = loadConfig();
const baseLog = createLogger(
  config.LOG_LEVEL,
  { component: 'bot-task', ...(assignedBotId ? { bot_id: assignedBotId } : { pool_bot_id: poolBotId }) },
  { format: config.LOG_FORMAT },
);
/** The task's logger; once the session is read, its lines carry the bot id and the join's correlation_id too. */
let log = baseLog;
const adapters = wireAdapters(config, log);
// No invocation ends in a task: every point is written at once (a task that dies loses none).
useEmfMetrics(config, false);
const engines = languageEngines(adapters);

/** The room provider of `kind`; it reads the session only when it joins (a pooled bot builds it before it has one). */
async function providerFor(kind: Provider, session: () => BotSession): Promise<RoomProvider> {
  if (kind === 'local') {
    const { LocalRoomProvider } = await import('./providers/local-room');
    const { EspeakSynthesizer } = await import('../core/adapters/espeak/espeak-synthesizer');
    // A recording local bot records in a browser of its own, its voice there said by espeak-ng (offline).
    return new LocalRoomProvider(config.LOCAL_SPEECH_MS_PER_CHAR, {
      synthesizer: new EspeakSynthesizer(),
      log: currentLog,
    });
  }
  const { DailyRoomProvider } = await import('./providers/daily/daily-provider');
  const { botMeetingToken } = await import('./providers/daily/meeting-token');
  return new DailyRoomProvider({
    log: currentLog,
    meetingToken: (o) =>
      botMeetingToken(
        { apiKey: config.DAILY_API_KEY, apiUrl: config.DAILY_API_URL },
        {
          roomUrl: o.roomUrl,
          botName: o.botName,
          callerToken: o.meetingToken,
          validForSeconds:
            Math.ceil(automaticLeaveOf(session().botConfig, config).max_duration_seconds) + 3600,
        },
        log,
      ),
    // Building the provider builds the Polly client, the only warming speech gets: any request would need credentials
    // and the network before a session needs them.
    synthesizer: engines.synthesizer,
    allowInsecureFetch: config.ALLOW_INSECURE_WEBHOOKS,
    dailyModulePath: config.DAILY_JS_MODULE_PATH,
  });
}

/** The task's logger as it is at each call: a provider built before the session is known logs with its fields. */
const currentLog: Logger = {
  debug: (msg, fields) => log.debug(msg, fields),
  info: (msg, fields) => log.info(msg, fields),
  warn: (msg, fields) => log.warn(msg, fields),
  error: (msg, fields) => log.error(msg, fields),
  child: (fields) => log.child(fields),
};

/** A pooled bot's provider, built and warmed while it waits (BOT_POOL_PROVIDER), until a session takes it. */
let warmed: { kind: Provider; provider: RoomProvider } | undefined;
let claimed: BotSession | undefined;

/** A failed warm-up is logged and the bot waits anyway: the join then starts its browser itself. */
async function warmPoolProvider(): Promise<void> {
  const kind = config.BOT_POOL_PROVIDER;
  const started = Date.now();
  const provider = await providerFor(kind, () => claimed!);
  warmed = { kind, provider };
  try {
    await provider.warm?.();
    log.info('room provider warmed', { provider: kind, warm_ms: Date.now() - started });
  } catch (err) {
    log.warn('warming the room provider failed; the join will start it afresh', { provider: kind, err });
  }
}

/** The warmed provider when it is of the session's kind, else a fresh one. */
async function sessionProvider(session: BotSession): Promise<RoomProvider> {
  const warm = warmed;
  warmed = undefined;
  if (warm?.kind === session.provider) {
    claimed = session;
    return warm.provider;
  }
  void warm?.provider.close?.().catch(() => {});
  return providerFor(session.provider, () => session);
}

/** Tells the local runner what this pooled bot is doing: a bot lost mid-claim is reported against that session. */
function report(
  message: { ready: true } | { claiming: string | null } | { claimed: string } | { joined: string },
): void {
  process.send?.(message);
}

/** The session this task serves: the one it was started for, or (pooled) the one it claims; null: nothing to do. */
async function assignedSession(): Promise<BotSession | null> {
  const { stores } = adapters;
  if (assignedBotId) {
    const session = await stores.sessions.get(assignedBotId);
    if (!session) throw new Error(`session ${assignedBotId} not found`);
    return session;
  }
  const poolQueue = adapters.poolQueue;
  if (!poolQueue)
    throw new Error("a pooled bot (no BOT_ID) needs POOL_QUEUE_URL, the warm pool's wake-up queue");
  // Stopped while warming (seconds for Chromium): it must not go on to claim a session it would give up at once.
  if (await Promise.race([warmPoolProvider().then(() => false), terminated.then(() => true)])) {
    log.info('pooled bot stopped while warming');
    return null;
  }
  report({ ready: true });
  log.info('pooled bot ready; waiting for a session');
  // Counted while idle, once a minute: the pool's scaling keeps BOT_POOL_SIZE of these (infra, docs/warm-pool.md).
  metrics.pooledBotIdle();
  const idle = setInterval(() => metrics.pooledBotIdle(), poolIdleEveryMs);
  const session = await claimFromPool(
    { sessions: stores.sessions, queue: poolQueue, log },
    {
      poolBotId: poolBotId!,
      // The claim records the task too: a leave's StopTask backstop finds it as it finds a cold task.
      ...(pooledTaskArn && { taskRef: pooledTaskArn }),
      stopped: terminated,
      onClaiming: (botId) => report({ claiming: botId }),
    },
  );
  clearInterval(idle);
  if (session) {
    report({ claimed: session.botId });
    // Protected from the pool's scale-in for its longest stay: the join, the waiting room, then max_duration.
    const leave = automaticLeaveOf(session.botConfig, config);
    const minutes = scaleInProtectionMinutes(
      config.JOIN_TIMEOUT_MS / 1000 + leave.waiting_room_timeout_seconds + leave.max_duration_seconds,
    );
    void protectFromScaleIn(minutes).catch((err) =>
      log.warn('could not protect the task from scale-in', { bot_id: session.botId, err }),
    );
  } else log.info('pooled bot stopped while idle');
  return session;
}

async function main(): Promise<number> {
  if (!Number.isSafeInteger(attempt) || attempt < 0)
    throw new Error(`BOT_ATTEMPT is not a count: ${attempt}`);
  const { stores } = adapters;
  const session = await assignedSession();
  if (!session) return 0;
  const botId = session.botId;
  log = correlatedLog(baseLog.child({ bot_id: botId, account_id: session.accountId }), session.correlationId);
  if (session.status !== 'running') {
    log.info('session already ended; nothing to do', { status: session.status });
    return 0;
  }
  if (currentAttempt(session) > attempt) {
    log.info('another task replaced this one already; nothing to do', { attempt });
    return 0;
  }
  log.info('bot task started', {
    account_id: session.accountId,
    provider: session.provider,
    attempt,
    start_path: session.startPath,
  });

  const heartbeatDeps = { sessions: stores.sessions, log, joinTimes };
  let running = await beat(heartbeatDeps, botId);
  const heartbeat = setInterval(async () => {
    running = (await beat(heartbeatDeps, botId)) && running;
  }, config.HEARTBEAT_MS);

  try {
    const outcome = await runBot({
      session,
      stores,
      config,
      provider: await sessionProvider(session),
      conversation: engines.conversation,
      ...(recordsAudio(session) && { recordings: adapters.recordings }),
      // The control, results and delivery stages log the same correlation_id: it travels in every message it sends.
      outbox: correlatedQueue(adapters.outbox, session.correlationId),
      log,
      terminated,
      attempt,
      onJoined: () => report({ joined: botId }),
      sessionEnded: () => !running,
    });
    log.info('bot task finished', {
      outcome: outcome.kind,
      ...(outcome.kind === 'ended' && { exit_reason: outcome.exitReason }),
      ...(outcome.kind === 'join_failed' && { join_error: outcome.error.type }),
      ...(outcome.kind === 'failed' && { error: outcome.error }),
      ...(outcome.kind === 'lost' && { reason: outcome.reason }),
    });
    // A lost bot exits non-zero: its runner reports the task's end too, the backstop to the replacement it asked for.
    return outcome.kind === 'lost' ? 75 : 0;
  } finally {
    clearInterval(heartbeat);
    // A join time still unwritten gets one last try before the task exits.
    if (joinTimes.pending(botId)) await beat(heartbeatDeps, botId);
  }
}

// A warmed provider no session took closes its browser; bounded: Playwright kills a launching one on exit.
const discardWarmed = () =>
  Promise.race([warmed?.provider.close?.().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);

main().then(
  async (code) => {
    await discardWarmed();
    process.exit(code);
  },
  async (err) => {
    log.error('bot task failed', { err });
    await discardWarmed();
    process.exit(1);
  },
);
