// The room's transcription is everything the bot hears: the bot gives up rather than sit in the room deaf.
import type { RoomSignals, Watcher } from './watcher';

/**
 * Calls `unavailable` once the transcription has not been running for `recoveryMs`, from the join or from a failure
 * (a person stopping it is no failure). Messages from anyone else prove it runs, whatever the events said.
 */
export function transcriptionWatcher(
  room: RoomSignals,
  recoveryMs: number,
  unavailable: (what: string) => void,
): Watcher {
  const seconds = Math.round(recoveryMs / 100) / 10;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let what = `it did not start within ${seconds} s`;
  const arm = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (!stopped) unavailable(what);
    }, recoveryMs);
  };
  const running = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  room.on('transcription', (t) => {
    if (t.state !== 'failed') return running();
    what = `${t.reason}; not running again within ${seconds} s`;
    arm();
  });
  room.on('utterance', (u) => {
    if (u.participantId !== room.selfId) running();
  });
  arm();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
