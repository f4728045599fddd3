// `data delete`: an operator's deletion of an ended bot's meeting content, with an audit line.
import { recordsAudio } from '../../core/bots/session';
import type { Outbox } from '../../core/control/outbox';
import { deleteMeetingData } from '../../core/data/delete-meeting-data';
import { createLogger } from '../../core/log';
import { type Command, lines, NotFoundError, required, UsageError } from './command';

export const dataCommands: Record<string, Command> = {
  'data delete': {
    args: '--bot BOT_ID',
    about:
      "Delete an ended bot's meeting content for its account (the tombstone stays); writes an audit line",
    prepare(flags) {
      const botId = required(flags, 'bot').toLowerCase();
      if (!/^[0-9a-f-]{36}$/.test(botId)) throw new UsageError('--bot must be a bot id (UUID)');
      return async (adapters) => {
        const { stores, config } = adapters;
        const session = await stores.sessions.get(botId);
        if (!session) throw new NotFoundError(`bot ${botId} not found`);
        if (session.status === 'running')
          throw new UsageError(`bot ${botId} is still running: stop it first, then delete its data`);
        // Refused before anything is deleted: a deletion that cannot reach the recording would leave its audio.
        if (recordsAudio(session) && !config.RECORDINGS_DIR && !config.RECORDINGS_BUCKET) {
          throw new Error(
            `bot ${botId} was recorded and no recording store is set: set RECORDINGS_BUCKET (the stack's RecordingsBucketName output) and run it again`,
          );
        }
        let eventError: string | null = null;
        const sending: Outbox = {
          send: (m, o) =>
            adapters.outbox.send(m, o).catch((err: Error) => {
              eventError = err.message;
            }),
        };
        const deleted = await deleteMeetingData(
          {
            stores,
            recordings: adapters.recordings,
            outbox: sending,
            log: createLogger('silent'),
            now: () => new Date(),
          },
          session,
          'operator',
        );
        // The audit trail: who deleted which account's meeting content, when (stderr, JSON, kept by the caller).
        process.stderr.write(
          `${JSON.stringify({
            level: 'INFO',
            message: 'audit: operator deleted meeting data',
            audit: 'data_delete',
            timestamp: new Date().toISOString(),
            operator: process.env.USER ?? process.env.LOGNAME ?? 'unknown',
            bot_id: botId,
            account_id: session.accountId,
            data_deleted_at: deleted.data_deleted_at,
          })}\n`,
        );
        return {
          json: { ...deleted, account_id: session.accountId, event_error: eventError },
          text: lines(
            `Deleted the meeting content of bot ${botId} (account ${session.accountId}) at ${deleted.data_deleted_at}.`,
            ...(eventError ? [`warning: bot.data_deleted was not sent: ${eventError}`] : []),
          ),
        };
      };
    },
  },
};
