// Messages on the results queue: what a bot hands to the results stage when it has left the room. Everything else a
// bot or the control plane says travels the control plane's queues (core/control/messages.ts).
import { z } from 'zod';
import { exitReasons } from '../schemas/api';

export const resultsMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('session_ended'),
    bot_id: z.uuid(),
    exit_reason: z.enum(exitReasons),
    left_at: z.iso.datetime({ offset: true }),
  }),
]);

export type ResultsMessage = z.infer<typeof resultsMessageSchema>;

/** The hand-over of a bot that left the room (or is taken to have left: asked to, and gone). */
export function sessionEnded(
  botId: string,
  exitReason: (typeof exitReasons)[number],
  leftAt: string,
): ResultsMessage {
  return { kind: 'session_ended', bot_id: botId, exit_reason: exitReason, left_at: leftAt };
}
