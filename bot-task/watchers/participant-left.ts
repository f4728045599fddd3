// Exit reason participant_left: the last human left and only the bot remains — only after someone was there.
import type { ExitTrigger, RoomSignals, Watcher } from './watcher';

export interface ParticipantLeftOptions {
  /**
   * A replacement rejoining a meeting that already had people (issue 13): when it finds nobody, everyone left while
   * it was away, and it ends after this grace unless someone comes. Unset: a first bot waits for people to come.
   */
  emptyRoomGraceMs?: number;
}

export function participantLeftWatcher(
  room: RoomSignals,
  exit: ExitTrigger,
  options: ParticipantLeftOptions = {},
): Watcher {
  const humans = new Set(
    room
      .participants()
      .filter((p) => !p.isBot && p.participantId !== room.selfId)
      .map((p) => p.participantId),
  );
  let someoneCame = humans.size > 0;
  let stopped = false;
  let emptyTimer: NodeJS.Timeout | undefined;
  if (!someoneCame && options.emptyRoomGraceMs !== undefined) {
    someoneCame = true;
    emptyTimer = setTimeout(() => {
      if (!stopped && humans.size === 0) exit('participant_left');
    }, options.emptyRoomGraceMs);
  }
  room.on('participant-joined', (p) => {
    if (stopped || p.isBot || p.participantId === room.selfId) return;
    humans.add(p.participantId);
    someoneCame = true;
  });
  room.on('participant-left', ({ participantId }) => {
    if (stopped || !humans.delete(participantId)) return;
    if (someoneCame && humans.size === 0) exit('participant_left');
  });
  return {
    stop() {
      stopped = true;
      clearTimeout(emptyTimer);
    },
  };
}
