// Structured logs through Powertools for AWS Lambda's Logger: one JSON object per line with bot_id/account_id fields,
// secrets redacted here whatever a call site passes (STYLE.md: never a secret, token or full API key in a log).
// Powertools is a logging library, not a vendor SDK, so the domain keeps calling this one small interface.
import { LogFormatter, LogItem, Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

type Level = 'debug' | 'info' | 'warn' | 'error';
export type LogLevel = Level | 'silent';
/** json: one object per line (CloudWatch, Logs Insights); pretty: `time LEVEL msg key=value` for a terminal. */
export type LogFormat = 'json' | 'pretty';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` (bot_id, account_id, correlation_id) to every line it writes. */
  child(fields: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  format?: LogFormat;
  /** Powertools' `service` key (POWERTOOLS_SERVICE_NAME overrides it). */
  serviceName?: string;
}

export const redacted = '[redacted]';

/** Field names whose values are secrets whatever they hold (meetingToken, api_key, webhookSecret, authorization…). */
const secretKey = /token|secret|password|passwd|api_?key|authorization|credential|cookie|private_?key/i;
/** Names that match the pattern above yet hold no secret. */
const notSecretKey = /(_id|_ids|_count|_ms|_type|_prefix|Id|Ids|Count|Type|Prefix)$/;
/**
 * Secrets inside free text (an error message quoting a header, a URL with a token): our API keys (mbk_ + 43
 * characters, core/accounts/secrets.ts), JWTs such as Daily meeting tokens, webhook secrets (whsec_), Bearer values.
 */
const secretText = [
  /mbk_[A-Za-z0-9_-]{8,}/g,
  /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
  /whsec_[A-Za-z0-9+/=_-]{8,}/g,
  /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /([?&](?:token|t|key|api_key|access_token)=)[^&#\s"']+/gi,
];

/** Matches wherever one of the patterns above could: most text has none of them and is returned after one test. */
const maySecret = /mbk_|eyJ|whsec_|bearer\s|[?&](?:token|t|key|api_key|access_token)=/i;

/** The text with every secret-looking run replaced (an API key keeps its prefix, so a reader sees what it was). */
export function redactText(text: string): string {
  if (!maySecret.test(text)) return text;
  let out = text;
  for (const pattern of secretText) {
    out = out.replace(pattern, (match, prefix?: unknown) =>
      typeof prefix === 'string'
        ? `${prefix}${redacted}`
        : match.startsWith('mbk_')
          ? `mbk_${redacted}`
          : redacted,
    );
  }
  return out;
}

/** Powertools drops extra fields that use its own key names; ours keep their value under a suffixed name. */
const reservedKeys = new Set(['message', 'level', 'sampling_rate', 'service', 'timestamp']);

/**
 * A copy of `value` safe to log: secret-named fields redacted, secrets in text replaced, errors as
 * {name, message, stack, cause} (JSON.stringify would write `{}`), cycles cut, depth bounded.
 */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object')
    return typeof value === 'bigint' ? value.toString() : value;
  if (seen.has(value)) return '[circular]';
  if (depth > 8) return '[too deep]';
  seen.add(value);
  if (value instanceof Error) {
    const cause = (value as { cause?: unknown }).cause;
    return {
      name: value.name,
      message: redactText(value.message),
      stack: value.stack && redactText(value.stack),
      ...(cause !== undefined && { cause: redact(cause, depth + 1, seen) }),
    };
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
  if (value instanceof Map) return redact(Object.fromEntries(value), depth, seen);
  if (value instanceof Set) return redact([...value], depth, seen);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      secretKey.test(k) && !notSecretKey.test(k) && v !== undefined && v !== null
        ? redacted
        : redact(v, depth + 1, seen);
  }
  return out;
}

function safeFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out = redact(fields) as Record<string, unknown>;
  for (const key of Object.keys(out)) {
    if (!reservedKeys.has(key)) continue;
    out[`${key}_field`] = out[key];
    delete out[key];
  }
  return out;
}

/**
 * Our line layout on Powertools: `level`, `time` and `msg` as before (the stack's log metric filters and Logs Insights
 * queries read `$.msg`), then Powertools' `service`, the Lambda context and the X-Ray trace id where there is one.
 */
class ServiceLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    return new LogItem({
      attributes: {
        level: attributes.logLevel.toLowerCase(),
        time: this.formatTimestamp(attributes.timestamp),
        msg: attributes.message,
        service: attributes.serviceName,
        ...(context && {
          cold_start: context.coldStart,
          function_name: context.functionName,
          function_request_id: context.awsRequestId,
        }),
        xray_trace_id: attributes.xRayTraceId,
      },
    }).addAttributes(additional);
  }
}

/** Powertools' Logger writing `time LEVEL msg key=value` lines instead of JSON (LOG_FORMAT=pretty, local only). */
class PrettyLogger extends PowertoolsLogger {
  protected override printLog(logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    const { level, time, msg, service: _s, xray_trace_id: _x, ...rest } = log.getAttributes();
    const pairs = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
      .join(' ');
    const line = `${String(time).slice(11, 23)} ${String(level).toUpperCase().padEnd(5)} ${msg}${pairs ? `  ${pairs}` : ''}\n`;
    (logLevel >= 16 ? process.stderr : process.stdout).write(line);
  }
}

/** The Powertools Logger under our interface (a Lambda entry keeps it to add the invocation's context). */
export function newPowertoolsLogger(level: LogLevel, options: LoggerOptions = {}): PowertoolsLogger {
  const Impl = options.format === 'pretty' ? PrettyLogger : PowertoolsLogger;
  return new Impl({
    logLevel: level.toUpperCase() as Uppercase<LogLevel>,
    serviceName: options.serviceName ?? 'meeting-bot',
    logFormatter: new ServiceLogFormatter(),
  });
}

/**
 * A logger writing through one Powertools Logger; children share it (and so its Lambda context and persistent keys)
 * and add their fields to each line.
 */
export function createLogger(
  level: LogLevel = 'info',
  base: Record<string, unknown> = {},
  options: LoggerOptions = {},
): Logger {
  return wrap(newPowertoolsLogger(level, options), base);
}

/** Powertools' numeric thresholds: a line is written when its level's is at least the logger's `level`. */
const threshold: Record<Level, number> = { debug: 8, info: 12, warn: 16, error: 20 };

/** Our interface over an existing Powertools Logger (a handler that calls `addContext` on it). */
export function wrap(logger: PowertoolsLogger, base: Record<string, unknown> = {}): Logger {
  // A line below the logger's level (read each time: sampling and setLogLevel change it) costs no redaction.
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (threshold[lvl] < logger.level) return;
    logger[lvl](redactText(msg), safeFields(fields ? { ...base, ...fields } : base));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => wrap(logger, { ...base, ...fields }),
  };
}
