// What the use cases need, typed by the ports: a composition root (core/adapters/wiring.ts) builds the adapters
// once per process (Lambda, local stack, admin CLI, tests) and hands them here.
import { Authenticator } from './accounts/authenticate';
import { SessionCache } from './bots/status-cache';
import { TranscriptCache } from './bots/transcript-cache';
import type { Config } from './config';
import type { Outbox } from './control/outbox';
import type { Logger } from './log';
import type { AccountsStore } from './ports/accounts-store';
import type { CreditLedger } from './ports/credit-ledger';
import type { DataDeletionsStore } from './ports/data-deletions';
import type { DeliveriesStore } from './ports/deliveries-store';
import type { IdempotencyStore } from './ports/idempotency-store';
import type { PoolQueue } from './ports/pool-queue';
import type { RateLimiter } from './ports/rate-limiter';
import type { RecordingStore } from './ports/recordings';
import type { RetentionIndex } from './ports/retention-index';
import type { SessionsStore } from './ports/sessions-store';
import type { TaskRunner } from './ports/task-runner';
import type { TranscriptStore } from './ports/transcript-store';

export interface Stores {
  accounts: AccountsStore;
  sessions: SessionsStore;
  ledger: CreditLedger;
  idempotency: IdempotencyStore;
  transcripts: TranscriptStore;
  deliveries: DeliveriesStore;
  /** The tombstones of deleted meetings and the deletions not finished yet. */
  deletions: DataDeletionsStore;
  /** Ended meetings by when their content is due to go (the retention sweep's index). */
  retention: RetentionIndex;
}

export interface ServiceDeps extends Stores {
  config: Config;
  rateLimiter: RateLimiter;
  auth: Authenticator;
  statusCache: SessionCache;
  /** The transcripts the status view and the transcript endpoint read, caught up from the segments incrementally. */
  transcriptCache: TranscriptCache;
  runner: TaskRunner;
  /** With the warm pool on, a join leaves its cold-start fallback on the control queue, delayed. */
  outbox: Outbox;
  /** The warm pool's wake-up; absent without a pool queue, when pooled bots find offers by scanning. */
  poolQueue?: PoolQueue;
  log: Logger;
  now: () => Date;
  /** The recordings' store, built on first use (only the recording endpoint needs it). */
  recordings: () => RecordingStore;
}

/** The HTTP use cases' dependencies around the adapters a composition root built. */
export function buildServiceDeps(
  config: Config,
  parts: {
    stores: Stores;
    runner: TaskRunner;
    outbox: Outbox;
    poolQueue?: PoolQueue;
    rateLimiter: RateLimiter;
    log: Logger;
    now?: () => Date;
    recordings?: () => RecordingStore;
  },
): ServiceDeps {
  const { stores, rateLimiter } = parts;
  return {
    ...stores,
    config,
    runner: parts.runner,
    outbox: parts.outbox,
    ...(parts.poolQueue && { poolQueue: parts.poolQueue }),
    log: parts.log,
    rateLimiter,
    auth: new Authenticator(stores.accounts, rateLimiter, {
      keyCacheTtlMs: config.KEY_CACHE_TTL_MS,
      rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    }),
    statusCache: new SessionCache(config.STATUS_CACHE_TTL_MS),
    transcriptCache: new TranscriptCache(stores.transcripts, config.STATUS_CACHE_TTL_MS),
    now: parts.now ?? (() => new Date()),
    recordings:
      parts.recordings ??
      (() => {
        throw new Error('no recording store is wired into this process');
      }),
  };
}
