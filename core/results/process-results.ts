// The results stage: a bot's hand-over becomes a completed session (transcript assembled, credits settled).
// Insights and delivery jobs join here in issue #5.
import { completeSession } from '../bots/finish-session';
import { transcriptText } from '../bots/transcript';
import type { Config } from '../config';
import type { Stores } from '../deps';
import type { Logger } from '../log';
import type { ResultsMessage } from './messages';

export interface ResultsDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts'>;
  config: Pick<Config, 'CREDITS_PER_MINUTE'>;
  log: Logger;
  now: () => Date;
  /** Called after each message is processed (the local stack keeps a short list for tests and the dev). */
  onProcessed?: (message: ResultsMessage) => void;
}

/** Idempotent: a duplicate message finds the session already completed and changes nothing. */
export async function processResults(deps: ResultsDeps, message: ResultsMessage): Promise<void> {
  await handle(deps, message);
  deps.onProcessed?.(message);
}

async function handle(deps: ResultsDeps, message: ResultsMessage): Promise<void> {
  const log = deps.log.child({ bot_id: message.bot_id });
  switch (message.kind) {
    case 'session_ended': {
      const utterances = await deps.stores.transcripts.load(message.bot_id);
      const completed = await completeSession(
        { ...deps.stores, config: deps.config },
        message.bot_id,
        {
          exitReason: message.exit_reason,
          transcript: transcriptText(utterances),
          qaPairs: [],
          insights: null,
        },
        deps.now(),
      );
      log.info(completed ? 'session completed' : 'session already ended', {
        exit_reason: message.exit_reason,
        lines: utterances.length,
      });
      return;
    }
    case 'bot_join_failed':
    case 'bot_failed':
      // The session was failed where the failure happened; the event waits for webhook delivery (issue #5).
      log.info('failure event received', { event_type: message.event.event_type });
      return;
  }
}
