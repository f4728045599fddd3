// The settings every model engine (conversation, insights; Bedrock, OpenAI-compatible) shares, and how its defaults
// fill what a config leaves out.
import type { Logger } from '../../log';
import { realClock } from '../../retry';

export interface ModelCallSettings {
  temperature?: number;
  /** Backoff before retry n: min(max, base·2ⁿ), with jitter in [50%, 100%] of it (at least a Retry-After). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Injected for tests; default to a real timer and Math.random. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  log?: Logger;
}

/** A config with its defaults: every setting given except the logger (and those in `Open`). */
export type Filled<C extends ModelCallSettings, Open extends keyof C = never> = Required<
  Omit<C, 'log' | Open>
> &
  Pick<C, 'log' | Open>;

/** `config` over `defaults` and the real clock; an undefined setting of `config` keeps its default. */
export function withDefaults<C extends object, D extends object>(
  defaults: D,
  config: C,
): D & typeof realClock & C {
  const given = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as C;
  return { ...defaults, ...realClock, ...given };
}
