// Messages on the results queue: what a bot hands to the next stage when it ends, and failure events.
import { z } from 'zod';
import { exitReasons } from '../schemas/api';
import { botFailedSchema, botJoinFailedSchema } from '../schemas/webhooks';

export const resultsMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('session_ended'),
    bot_id: z.uuid(),
    exit_reason: z.enum(exitReasons),
    left_at: z.iso.datetime({ offset: true }),
  }),
  z.object({ kind: z.literal('bot_join_failed'), bot_id: z.uuid(), event: botJoinFailedSchema }),
  // Without the partial transcript: it can be larger than a queue message may be (SQS: 256 KiB). failSession
  // stored it on the session, and the results stage puts it back into the event from there.
  z.object({
    kind: z.literal('bot_failed'),
    bot_id: z.uuid(),
    event: botFailedSchema.omit({ transcript_text: true }),
  }),
]);

export type ResultsMessage = z.infer<typeof resultsMessageSchema>;
