// A Logger that keeps each line as `<level> <msg>[ <fields.detail>]`, for tests that assert what was logged.
import type { Logger } from '../../core/log';

export function recordingLogger(lines: string[]): Logger {
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    lines.push(`${level} ${msg}${fields?.detail ? ` ${String(fields.detail)}` : ''}`);
  const log: Logger = {
    debug: () => {},
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => log,
  };
  return log;
}
