// Exit reason participant_left: the last human left and only the bot remains — only after someone was there.
import type { ExitTrigger, RoomSignals, Watcher } from './watcher';

export function participantLeftWatcher(room: RoomSignals, exit: ExitTrigger): Watcher {
  const humans = new Set(
    room
      .participants()
      .filter((p) => !p.isBot && p.participantId !== room.selfId)
      .map((p) => p.participantId),
  );
  let someoneCame = humans.size > 0;
  let stopped = false;
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
    },
  };
}
