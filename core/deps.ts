// What the use cases need, built once per process by a composition root (Lambda, local stack, admin CLI, tests).
import { Authenticator } from './accounts/authenticate';
import { AccountsStore } from './adapters/dynamodb/accounts-store';
import { CreditLedger } from './adapters/dynamodb/credit-ledger';
import { DeliveriesStore } from './adapters/dynamodb/deliveries-store';
import { IdempotencyStore } from './adapters/dynamodb/idempotency-store';
import { DynamoRateLimiter } from './adapters/dynamodb/rate-limiter';
import { SessionsStore } from './adapters/dynamodb/sessions-store';
import type { TableHandle } from './adapters/dynamodb/table';
import { TranscriptStore } from './adapters/dynamodb/transcript-store';
import { SessionCache } from './bots/status-cache';
import type { Config } from './config';
import type { Logger } from './log';
import type { RateLimiter } from './ports/rate-limiter';
import type { TaskRunner } from './ports/task-runner';

export interface Stores {
  accounts: AccountsStore;
  sessions: SessionsStore;
  ledger: CreditLedger;
  idempotency: IdempotencyStore;
  transcripts: TranscriptStore;
  deliveries: DeliveriesStore;
}

export interface ServiceDeps extends Stores {
  config: Config;
  rateLimiter: RateLimiter;
  auth: Authenticator;
  statusCache: SessionCache;
  runner: TaskRunner;
  log: Logger;
  now: () => Date;
}

export function buildStores(table: TableHandle, config: Config): Stores {
  return {
    accounts: new AccountsStore(table),
    sessions: new SessionsStore(table),
    ledger: new CreditLedger(table),
    idempotency: new IdempotencyStore(table, config.IDEMPOTENCY_TTL_SECONDS),
    transcripts: new TranscriptStore(table),
    deliveries: new DeliveriesStore(table),
  };
}

export function buildServiceDeps(
  table: TableHandle,
  config: Config,
  parts: { runner: TaskRunner; log: Logger; stores?: Stores; rateLimiter?: RateLimiter; now?: () => Date },
): ServiceDeps {
  const stores = parts.stores ?? buildStores(table, config);
  const rateLimiter = parts.rateLimiter ?? new DynamoRateLimiter(table);
  return {
    ...stores,
    config,
    runner: parts.runner,
    log: parts.log,
    rateLimiter,
    auth: new Authenticator(stores.accounts, rateLimiter, {
      keyCacheTtlMs: config.KEY_CACHE_TTL_MS,
      rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    }),
    statusCache: new SessionCache(config.STATUS_CACHE_TTL_MS),
    now: parts.now ?? (() => new Date()),
  };
}
