// The control plane's use case: decisions about a bot's task (start a cold task for the warm pool's fallback, replace
// a lost bot) from the control queue, and the events of its life from the bot-events queue, recorded and sent to
// its webhook in the order they happened. The results stage is not involved in any of it (core/results/).
import { startColdIfUnclaimed } from '../bots/pool-fallback';
import { replaceBot } from '../bots/replace-bot';
import { type ScheduleConfig, startScheduled } from '../bots/scheduled-joins';
import { type BotSession, recordingSummary } from '../bots/session';
import { transcriptText } from '../bots/transcript';
import type { Config } from '../config';
import { sessionCompletePayload } from '../delivery/payloads';
import type { Stores } from '../deps';
import { emitEvent, sendSpecEvent, targetOf } from '../events/emit';
import type { Logger } from '../log';
import type { PoolQueue } from '../ports/pool-queue';
import type { MessageQueue } from '../ports/queue';
import type { TaskRunner } from '../ports/task-runner';
import type { ControlPlaneMessage } from './messages';
import type { Outbox } from './outbox';

export interface ControlDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts' | 'deliveries' | 'accounts' | 'retention'>;
  config: Pick<Config, 'CREDITS_PER_MINUTE' | 'MAX_REPLACEMENTS' | 'RETENTION_DAYS'> &
    Partial<Pick<Config, 'START_GIVE_UP_MS'>> &
    ScheduleConfig;
  /** Starts cold tasks and replacements (ECS RunTask on AWS, a child process locally). */
  runner: TaskRunner;
  /** Grows the warm pool by the offers it did not claim in time; absent without a pool service to grow. */
  poolDemand?: (sessions: number) => Promise<void>;
  /** Wakes an idle pooled bot for a scheduled session offered now; absent without the pool queue. */
  poolQueue?: PoolQueue;
  /** What a decision leads to: a session that ends (results queue), a failure or bot.replaced (bot events). */
  outbox: Outbox;
  deliveryQueue: MessageQueue;
  log: Logger;
  now: () => Date;
  /** Called after each message is processed (the local stack keeps a short list for tests and the dev). */
  onProcessed?: (message: ControlPlaneMessage) => void;
}

/**
 * An event older than this may have been handled before, though its message is received for the first time: a
 * bot-events DLQ redrive hands a message over with a fresh receive count, and on AWS it dead-lettered after five
 * receives a visibility timeout apart. Such an event looks up what was done (its delivery, with its first seq and
 * webhook-id) before numbering anything; a fresh one does not read.
 */
export const maybeHandledAfterMs = 60_000;

/** Whether an event received `receiveCount` times, which happened at `at`, may have been handled already. */
export const mayBeRepeat = (receiveCount: number, at: string, now: Date) =>
  receiveCount > 1 || now.getTime() - Date.parse(at) > maybeHandledAfterMs;

export async function processControl(deps: ControlDeps, message: ControlPlaneMessage, receiveCount = 1) {
  await handle(deps, message, receiveCount);
  deps.onProcessed?.(message);
}

async function handle(deps: ControlDeps, message: ControlPlaneMessage, receiveCount: number): Promise<void> {
  const log = deps.log.child({ bot_id: message.bot_id });
  switch (message.kind) {
    case 'start_cold': {
      const outcome = await startColdIfUnclaimed(deps, message, deps.now());
      log.info('pool fallback processed', { outcome, reason: message.reason });
      return;
    }
    case 'start_scheduled': {
      const outcome = await startScheduled(deps, message, deps.now());
      log.info('scheduled start processed', { outcome });
      return;
    }
    case 'replace_bot': {
      const outcome = await replaceBot(deps, message, deps.now());
      log.info('replacement request processed', { outcome, attempt: message.attempt, alive: message.alive });
      return;
    }
    case 'bot_event':
      // Addressed by the sender (account and webhook): no session read on a first receipt.
      return emitEvent(
        deps,
        { botId: message.bot_id, accountId: message.account_id, webhook: message.webhook },
        { name: message.event, at: message.at, data: message.data, key: message.key, detail: message.detail },
        deps.now(),
        { repeat: mayBeRepeat(receiveCount, message.at, deps.now()) },
      );
    case 'session_completed': {
      const session = await deps.stores.sessions.get(message.bot_id);
      if (session?.status !== 'completed') return log.warn('session_completed of a session not completed');
      // The results stage sends this again when it sees a completed session again: each step looks first.
      await recordingReady(deps, session);
      await emitEvent(
        deps,
        targetOf(session),
        {
          name: 'bot.done',
          at: session.completedAt ?? deps.now().toISOString(),
          data: { status: 'completed' },
        },
        deps.now(),
        { repeat: true },
      );
      // The segments are the transcript's only copy.
      const transcript = transcriptText(await deps.stores.transcripts.load(message.bot_id));
      await sendSpecEvent(
        deps,
        session,
        'session_complete',
        sessionCompletePayload(session, transcript),
        deps.now(),
      );
      return;
    }
    case 'recording_ready': {
      const session = await deps.stores.sessions.get(message.bot_id);
      if (!session) return log.warn('recording_ready of an unknown session');
      // Sent again when the results stage sees the message again: it looks first.
      await recordingReady(deps, session);
      return;
    }
    case 'bot_join_failed':
    case 'bot_failed': {
      const session = await deps.stores.sessions.get(message.bot_id);
      if (!session) return log.warn('a failure event of an unknown session');
      // bot_failed travels without its partial transcript (queue message size); its segments hold it.
      const event =
        message.kind === 'bot_failed'
          ? {
              ...message.event,
              transcript_text: transcriptText(await deps.stores.transcripts.load(message.bot_id)),
            }
          : message.event;
      await emitEvent(
        deps,
        targetOf(session),
        {
          name: 'bot.failed',
          at: event.timestamp,
          detail: event.error_message,
          data: { error: event.error_message },
        },
        deps.now(),
        { repeat: mayBeRepeat(receiveCount, event.timestamp, deps.now()) },
      );
      await sendSpecEvent(deps, session, message.kind, event, deps.now());
      log.info('failure event processed', {
        event_type: message.event.event_type,
        webhook: Boolean(session.webhookUrl),
      });
      return;
    }
  }
}

/** recording.ready for a session whose file is assembled; a repeat looks for its delivery first (sent once). */
async function recordingReady(deps: ControlDeps, session: BotSession): Promise<void> {
  const recording = recordingSummary(session);
  if (!recording) return;
  await emitEvent(
    deps,
    targetOf(session),
    { name: 'recording.ready', at: session.completedAt ?? deps.now().toISOString(), data: recording },
    deps.now(),
    { repeat: true },
  );
}
