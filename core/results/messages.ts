// Messages on the results queue: what a bot hands to the results stage when it has left the room, the results stage's
// own next step for a recorded session (its recording, once its insights are saved), and a failed session's recording
// to assemble. Everything else a bot or the control plane says travels the control plane's queues
// (core/control/messages.ts).
import { z } from 'zod';
import { exitReasons } from '../schemas/api';

/** What a hand-over says: which bot left, why and when. */
const handover = {
  bot_id: z.uuid(),
  exit_reason: z.enum(exitReasons),
  left_at: z.iso.datetime({ offset: true }),
};

export const resultsMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session_ended'), ...handover }),
  // A recorded session whose insights are saved: its recording is assembled and the session completed, in an
  // invocation of its own, so the assembly has the function's whole time and its retries never run insights again.
  z.object({ kind: z.literal('assemble_recording'), ...handover }),
  // A recorded session that failed in the room: its pieces become one file all the same (the results stage, which
  // alone may write the bucket's assembled files, does it).
  z.object({ kind: z.literal('session_failed'), bot_id: z.uuid() }),
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

/** The recording step of a recorded session whose hand-over was processed: what the hand-over said, carried on. */
export function assembleRecording(
  handover: Extract<ResultsMessage, { kind: 'session_ended' }>,
): ResultsMessage {
  return { ...handover, kind: 'assemble_recording' };
}

/** A recorded session that failed after its bot was in the room: its recording is assembled. */
export function sessionFailed(botId: string): ResultsMessage {
  return { kind: 'session_failed', bot_id: botId };
}
