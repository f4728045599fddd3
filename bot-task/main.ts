// The bot runtime's entry (ECS container command; a child process locally). Started with only BOT_ID set:
// everything else — room, bot_config, meeting token — comes from the session record.
import { languageEngines } from '../core/adapters/language-engines';
import { useEmfMetrics } from '../core/adapters/metrics/emf-metrics';
import { wireAdapters } from '../core/adapters/wiring';
import { automaticLeaveOf } from '../core/bots/automatic-leave';
import { type BotSession, currentAttempt } from '../core/bots/session';
import { loadConfig } from '../core/config';
import { createLogger } from '../core/log';
import type { RoomProvider } from '../core/ports/room-provider';
import { runBot } from './bot';
import { beat, joinTimes } from './heartbeat';

// Installed before anything else: a leave request that arrives while the task is still starting must not kill it
// (Node's default for SIGTERM); and `on`, not `once`, so a second SIGTERM (StopTask after the leave request, the
// runner shutting down) cannot interrupt the exit pipeline while it saves the transcript.
const terminated = new Promise<void>((resolve) => process.on('SIGTERM', () => resolve()));

const botId = process.env.BOT_ID;
/** Which task of the session this is: 0 the first, n the n-th replacement of a lost bot (issue 13). */
const attempt = Number(process.env.BOT_ATTEMPT ?? 0);
const config = loadConfig();
const log = createLogger(config.LOG_LEVEL, { bot_id: botId, component: 'bot-task' });
const adapters = wireAdapters(config, log);
// No invocation ends in a task: every point is written at once (a task that dies loses none).
useEmfMetrics(config, false);
const engines = languageEngines(adapters);

async function providerFor(session: BotSession): Promise<RoomProvider> {
  if (session.provider === 'local')
    return new (await import('./providers/local-room')).LocalRoomProvider(config.LOCAL_SPEECH_MS_PER_CHAR);
  const { DailyRoomProvider } = await import('./providers/daily/daily-provider');
  const { botMeetingToken } = await import('./providers/daily/meeting-token');
  return new DailyRoomProvider({
    log,
    meetingToken: (o) =>
      botMeetingToken(
        { apiKey: config.DAILY_API_KEY, apiUrl: config.DAILY_API_URL },
        {
          roomUrl: o.roomUrl,
          botName: o.botName,
          callerToken: o.meetingToken,
          validForSeconds: Math.ceil(automaticLeaveOf(session.botConfig, config).max_duration_seconds) + 3600,
        },
        log,
      ),
    synthesizer: engines.synthesizer,
    allowInsecureFetch: config.ALLOW_INSECURE_WEBHOOKS,
  });
}

async function main(): Promise<number> {
  if (!botId) throw new Error('BOT_ID is not set');
  if (!Number.isSafeInteger(attempt) || attempt < 0)
    throw new Error(`BOT_ATTEMPT is not a count: ${attempt}`);
  const { stores } = adapters;
  const session = await stores.sessions.get(botId);
  if (!session) throw new Error(`session ${botId} not found`);
  if (session.status !== 'running') {
    log.info('session already ended; nothing to do', { status: session.status });
    return 0;
  }
  if (currentAttempt(session) > attempt) {
    log.info('another task replaced this one already; nothing to do', { attempt });
    return 0;
  }
  log.info('bot task started', { account_id: session.accountId, provider: session.provider, attempt });

  // Each beat also writes the join time until it is written (bot.ts records it on joining; that write may fail).
  const heartbeatDeps = { sessions: stores.sessions, log, joinTimes };
  await beat(heartbeatDeps, botId);
  const heartbeat = setInterval(() => void beat(heartbeatDeps, botId), config.HEARTBEAT_MS);

  try {
    const outcome = await runBot({
      session,
      stores,
      config,
      provider: await providerFor(session),
      conversation: engines.conversation,
      results: adapters.resultsQueue,
      log,
      terminated,
      attempt,
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

main().then(
  (code) => process.exit(code),
  (err) => {
    log.error('bot task failed', { err });
    process.exit(1);
  },
);
