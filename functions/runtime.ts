// The Lambda composition root: each function builds its adapters once per cold start, from its environment.
import { useEmfMetrics } from '../core/adapters/metrics/emf-metrics';
import { type Adapters, wireAdapters } from '../core/adapters/wiring';
import { loadConfig } from '../core/config';
import type { ServiceDeps } from '../core/deps';
import { createLogger } from '../core/log';
import { flushMetrics } from '../core/metrics';

let adapters: Adapters | undefined;

/** This function's adapters (core/adapters/wiring.ts), logging as `component`. */
export function lambdaAdapters(component?: string): Adapters {
  if (!adapters) {
    const config = loadConfig();
    adapters = wireAdapters(config, createLogger(config.LOG_LEVEL, component ? { component } : {}));
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

/** A Lambda handler that writes its buffered metrics when the invocation ends, also when it throws. */
export function flushingMetrics<E, R>(handler: (event: E) => Promise<R>): (event: E) => Promise<R> {
  return async (event) => {
    try {
      return await handler(event);
    } finally {
      flushMetrics();
    }
  };
}
