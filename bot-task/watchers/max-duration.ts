// Exit reason max_duration: the safety cap bot_config.max_duration_seconds (ARCHITECTURE.md).
import type { ExitTrigger, Watcher } from './watcher';

export function maxDurationWatcher(limitMs: number, exit: ExitTrigger): Watcher {
  const timer = setTimeout(() => exit('max_duration'), limitMs);
  return { stop: () => clearTimeout(timer) };
}
