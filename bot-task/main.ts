// The bot runtime's entry (ECS container command; a child process locally). Started with only BOT_ID set.
//
// Status: issue 3 adds joining the room, transcription and the other exit watchers. Today the task reads its
// session, keeps a heartbeat, honours the stop request (session record, or SIGTERM from the runner), and
// completes the session through the same exit pipeline the full bot will use.
import { dynamoDocumentClient } from '../core/adapters/aws-clients';
import { completeSession } from '../core/bots/finish-session';
import { loadConfig } from '../core/config';
import { buildStores } from '../core/deps';
import { createLogger } from '../core/log';
import type { ExitReason } from '../core/schemas/api';

const botId = process.env.BOT_ID;
const config = loadConfig();
const log = createLogger(config.LOG_LEVEL, { bot_id: botId, component: 'bot-task' });

async function main() {
  if (!botId) throw new Error('BOT_ID is not set');
  const stores = buildStores({ doc: dynamoDocumentClient(config), tableName: config.TABLE_NAME }, config);
  const session = await stores.sessions.get(botId);
  if (!session) throw new Error(`session ${botId} not found`);
  if (session.status !== 'running') {
    log.info('session already ended; nothing to do', { status: session.status });
    return;
  }
  log.info('bot task started', { account_id: session.accountId, provider: session.provider });

  let exiting: Promise<void> | undefined;
  const timers: NodeJS.Timeout[] = [];
  const exit = (reason: ExitReason) => {
    exiting ??= (async () => {
      for (const t of timers) clearInterval(t);
      const done = await completeSession({ ...stores, config }, botId, {
        exitReason: reason,
        transcript: '',
      });
      log.info('bot task finished', { exit_reason: reason, completed: done });
    })();
    return exiting;
  };

  const beat = () =>
    stores.sessions
      .updateRunning(botId, { heartbeatAt: new Date().toISOString() })
      .catch((err) => log.warn('heartbeat failed', { err }));
  await beat();
  timers.push(setInterval(beat, config.HEARTBEAT_MS));

  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => void exit('force_leave').then(resolve));
    timers.push(
      setInterval(async () => {
        try {
          const current = await stores.sessions.get(botId);
          if (current?.status !== 'running') return void exit('force_leave').then(resolve);
          if (current.stopRequestedAt) await exit('force_leave').then(resolve);
        } catch (err) {
          log.warn('session poll failed', { err });
        }
      }, config.STOP_POLL_MS),
    );
  });
}

main().then(
  () => process.exit(0),
  (err) => {
    log.error('bot task failed', { err });
    process.exit(1);
  },
);
