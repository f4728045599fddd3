// Exit reason participant_left: the last human left and the room stayed empty for the everyone-left timeout.
import type { ExitTrigger, RoomSignals, Watcher } from './watcher';

export interface ParticipantLeftOptions {
  /**
   * How long the room must stay without people before the bot leaves (everyone_left_timeout_seconds); anyone joining
   * cancels it (a dropped participant rejoins as a new one: presence counts, not identity). Unset or 0: at once.
   */
  everyoneLeftTimeoutMs?: number;
  /**
   * A replacement that finds nobody (everyone left while it was away) ends after this grace or the everyone-left
   * timeout, whichever is longer, unless someone comes. Unset: a first bot waits for people.
   */
  emptyRoomGraceMs?: number;
}

export function participantLeftWatcher(
  room: RoomSignals,
  exit: ExitTrigger,
  options: ParticipantLeftOptions = {},
): Watcher {
  const everyoneLeftMs = options.everyoneLeftTimeoutMs ?? 0;
  const humans = new Set(
    room
      .participants()
      .filter((p) => !p.isBot && p.participantId !== room.selfId)
      .map((p) => p.participantId),
  );
  let someoneCame = humans.size > 0;
  let stopped = false;
  let emptyTimer: NodeJS.Timeout | undefined;
  const leaveIfStillEmpty = () => {
    if (!stopped && humans.size === 0) exit('participant_left');
  };
  if (!someoneCame && options.emptyRoomGraceMs !== undefined) {
    someoneCame = true;
    emptyTimer = setTimeout(leaveIfStillEmpty, Math.max(options.emptyRoomGraceMs, everyoneLeftMs));
  }
  room.on('participant-joined', (p) => {
    if (stopped || p.isBot || p.participantId === room.selfId) return;
    humans.add(p.participantId);
    someoneCame = true;
    clearTimeout(emptyTimer);
  });
  room.on('participant-left', ({ participantId }) => {
    if (stopped || !humans.delete(participantId)) return;
    if (!someoneCame || humans.size > 0) return;
    clearTimeout(emptyTimer);
    if (everyoneLeftMs <= 0) exit('participant_left');
    else emptyTimer = setTimeout(leaveIfStillEmpty, everyoneLeftMs);
  });
  return {
    stop() {
      stopped = true;
      clearTimeout(emptyTimer);
    },
  };
}
