// The room's transcription is everything the bot hears: when it does not start, or stops with an error
// and is not running again within TRANSCRIPTION_RECOVERY_MS, the bot gives up instead of sitting in the room deaf.
import type { RoomSignals, Watcher } from './watcher';

/**
 * Calls `unavailable` with what went wrong once the transcription has not been running for `recoveryMs`: from the
 * join until it first runs, and from each failure until it runs again (the provider keeps trying meanwhile). A
 * transcription a person in the room stopped is their decision, not a failure: the bot stays. Transcription messages
 * from anyone else prove it runs, whatever the events said.
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
