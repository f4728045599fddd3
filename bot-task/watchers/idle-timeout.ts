// Exit reason idle_timeout: no audio activity from anyone but the bot for IDLE_TIMEOUT_MS (the interface's 5 minutes).
import type { ExitTrigger, RoomSignals, Watcher } from './watcher';

export function idleTimeoutWatcher(room: RoomSignals, timeoutMs: number, exit: ExitTrigger): Watcher {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => exit('idle_timeout'), timeoutMs);
  };
  room.on('audio-activity', (a) => {
    if (a.participantId !== room.selfId && a.active) arm();
  });
  room.on('utterance', (u) => {
    if (u.participantId !== room.selfId) arm();
  });
  arm();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
