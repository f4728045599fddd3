// Where each message of a bot's life goes, in one table: a bot, the control plane and the results stage all send
// through an Outbox and never pick a queue themselves. Decisions about tasks go to the control queue, events of the
// bot's life to the bot-events queue (FIFO per bot), the hand-over of a bot that left to the results queue.
import type { MessageQueue } from '../ports/queue';
import type { ResultsMessage } from '../results/messages';
import type { ControlPlaneMessage } from './messages';

export type OutboxMessage = ControlPlaneMessage | ResultsMessage;

export interface Outbox {
  send(message: OutboxMessage, options?: { delaySeconds?: number }): Promise<void>;
}

export interface OutboxQueues {
  /** Decisions about a bot's task (standard: the warm pool's fallback is delayed). */
  control: MessageQueue;
  /** Events of a bot's life, one FIFO group per bot. */
  botEvents: MessageQueue;
  /** The hand-over of a bot that left the room (transcript → insights → completed). */
  results: MessageQueue;
}

export const queueOf = {
  start_cold: 'control',
  start_scheduled: 'control',
  replace_bot: 'control',
  bot_event: 'botEvents',
  session_completed: 'botEvents',
  recording_ready: 'botEvents',
  bot_join_failed: 'botEvents',
  bot_failed: 'botEvents',
  session_ended: 'results',
  session_failed: 'results',
  assemble_recording: 'results',
} as const satisfies Record<OutboxMessage['kind'], keyof OutboxQueues>;

export function routedOutbox(queues: OutboxQueues): Outbox {
  return { send: (message, options) => queues[queueOf[message.kind]].send(message, options) };
}
