// Structured JSON logs (one object per line) with bot_id/account_id fields; never pass secrets or full keys here.

type Level = 'debug' | 'info' | 'warn' | 'error';
const order = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(level: keyof typeof order = 'info', base: Record<string, unknown> = {}): Logger {
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    const line = JSON.stringify(
      { level: lvl, time: new Date().toISOString(), msg, ...base, ...fields },
      errorReplacer,
    );
    (lvl === 'error' || lvl === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }),
  };
}

function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
