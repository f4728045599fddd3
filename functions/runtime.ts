// The Lambda composition root: each function builds its adapters once per cold start, from its environment, and its
// entry is wrapped once (lambdaEntry) for the Lambda context in its logs and its X-Ray subsegment; metrics are
// flushed at the end of each invocation (flushingMetrics).
import type { Context } from 'aws-lambda';
import { useEmfMetrics } from '../core/adapters/metrics/emf-metrics';
import { type Adapters, wireAdapters } from '../core/adapters/wiring';
import { loadConfig } from '../core/config';
import type { ServiceDeps } from '../core/deps';
import { newPowertoolsLogger, wrap } from '../core/log';
import { flushMetrics } from '../core/metrics';
import { captureAwsClients, traced } from './tracing';

let adapters: Adapters | undefined;
let rootLogger: ReturnType<typeof newPowertoolsLogger> | undefined;

/** This function's adapters (core/adapters/wiring.ts), logging as `component`. */
export function lambdaAdapters(component?: string): Adapters {
  if (!adapters) {
    const config = loadConfig();
    // Before the first client is built: every AWS SDK call becomes an X-Ray subsegment (when tracing is on).
    captureAwsClients();
    rootLogger = newPowertoolsLogger(config.LOG_LEVEL, { format: config.LOG_FORMAT });
    adapters = wireAdapters(config, wrap(rootLogger, component ? { component } : {}));
    useEmfMetrics(config, true);
  }
  return adapters;
}

let cached: Promise<ServiceDeps> | undefined;

/** The HTTP use cases' dependencies: the table's stores and the ECS task runner. */
export function lambdaDeps(): Promise<ServiceDeps> {
  cached ??= Promise.resolve().then(() => lambdaAdapters().serviceDeps());
  return cached;
}

/**
 * A Lambda entry point: every log line of the invocation carries the Lambda context (function_request_id,
 * cold_start), and the invocation is traced as `## <name>` with the bot id `botIdOf` finds (functions/tracing.ts).
 */
export function lambdaEntry<E, R>(
  name: string,
  handler: (event: E, context?: Context) => Promise<R>,
  botIdOf?: (event: E, result?: R) => string | undefined,
): (event: E, context?: Context) => Promise<R> {
  const run = traced(name, handler, botIdOf);
  return (event, context) => {
    try {
      lambdaAdapters(name);
    } catch {
      // An invalid configuration is the handler's to report (an HTTP route answers 500 with our error body).
    }
    if (context) rootLogger?.addContext(context);
    return run(event, context);
  };
}

/**
 * A queue or event consumer's entry: its handler is made from this function's adapters on the first invocation,
 * then reused; metrics are flushed after each invocation.
 */
export function builtEntry<E, R>(
  name: string,
  make: (adapters: Adapters) => (event: E, context?: Context) => Promise<R>,
  botIdOf?: (event: E, result?: R) => string | undefined,
): (event: E, context?: Context) => Promise<R> {
  let built: ((event: E, context?: Context) => Promise<R>) | undefined;
  const run = (event: E, context?: Context) => {
    built ??= make(lambdaAdapters(name));
    return built(event, context);
  };
  return lambdaEntry(name, flushingMetrics(run), botIdOf);
}

/** A Lambda handler that writes its buffered metrics when the invocation ends, also when it throws. */
export function flushingMetrics<E, R, C = Context>(
  handler: (event: E, context?: C) => Promise<R>,
): (event: E, context?: C) => Promise<R> {
  return async (event, context) => {
    try {
      return await handler(event, context);
    } finally {
      flushMetrics();
    }
  };
}
