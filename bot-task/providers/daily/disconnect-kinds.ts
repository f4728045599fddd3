// daily-js's fatal errors during a call → the port's DisconnectKind (runs in the bot page; types from daily-js 0.92).
import type { DailyFatalErrorType } from '@daily-co/daily-js';
import type { DisconnectKind } from '../../../core/ports/room-provider';

/**
 * Every fatal type daily-js declares, so a type added in a new daily-js fails `tsc` here until it is placed.
 * Daily emits most of these only when joining (they become RoomJoinError there); during a call they mean:
 */
const kindOfFatalType: Record<DailyFatalErrorType, DisconnectKind> = {
  // The owner removed the bot (updateParticipant / REST `POST /rooms/:name/eject`).
  ejected: 'ejected',
  // The room no longer admits the bot (its token ran out, the room turned private, the room is full): the room's
  // rules removed it while others may stay, as an ejection would; a replacement would be refused the same way.
  'not-allowed': 'ejected',
  'exp-token': 'ejected',
  'nbf-token': 'ejected',
  'meeting-full': 'ejected',
  // The room is gone or outside its time window: the meeting is over for everyone.
  'no-room': 'room_ended',
  'exp-room': 'room_ended',
  'nbf-room': 'room_ended',
  // Daily ended the call for this daily-js version: a replacement with the same bundle would be refused too, so
  // there is no call to go back to (core/bots/join-errors.ts also counts it with the rooms that are gone).
  'end-of-life': 'room_ended',
  // daily-js gave up after its own reconnection attempts (details.on 'reconnect', 'rtc-connection', …).
  'connection-error': 'connection_lost',
};

/**
 * Daily's words when a call ends by the room's or token's time limit (eject_at_room_exp, eject_after_elapsed,
 * eject_at_token_exp): type `ejected`, msg "Meeting has ended"
 * (https://github.com/pipecat-ai/pipecat-client-web/issues/33). Nobody ejected the bot: the meeting is over.
 */
const meetingEnded = /\bmeeting has ended\b/i;

/**
 * The kind for a fatal `error` event's `{ type, msg }`, or for a call that ended with none (`left-meeting` the bot
 * did not ask for, or an `error` without a type): daily-js names no cause there, so it counts as a lost connection,
 * which lets the replacement path try rather than ending a meeting that may still be going on.
 */
export function disconnectKindOf(fatal: { type?: string; msg?: string } | undefined): DisconnectKind {
  const type = fatal?.type;
  if (!type || !Object.hasOwn(kindOfFatalType, type)) return 'connection_lost';
  if (type === 'ejected' && meetingEnded.test(fatal.msg ?? '')) return 'room_ended';
  return kindOfFatalType[type as DailyFatalErrorType];
}
