// Exit reason force_leave: the leave endpoint's request, read every STOP_POLL_MS (SIGTERM is the backstop).
import type { ExitTrigger, Watcher } from './watcher';

export function forceLeaveWatcher(
  stopRequested: () => Promise<boolean>,
  intervalMs: number,
  exit: ExitTrigger,
  onError: (err: unknown) => void,
): Watcher {
  let stopped = false;
  let busy = false;
  const timer = setInterval(async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      if ((await stopRequested()) && !stopped) exit('force_leave');
    } catch (err) {
      onError(err);
    } finally {
      busy = false;
    }
  }, intervalMs);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
