// What the use cases need, built once per process by a composition root (Lambda, local stack, admin CLI, tests).
import { Authenticator } from './accounts/authenticate';
import { DynamoAccountsStore } from './adapters/dynamodb/accounts-store';
import { DynamoCreditLedger } from './adapters/dynamodb/credit-ledger';
import { DynamoDeliveriesStore } from './adapters/dynamodb/deliveries-store';
import { DynamoIdempotencyStore } from './adapters/dynamodb/idempotency-store';
import { DynamoRateLimiter } from './adapters/dynamodb/rate-limiter';
import { DynamoSessionsStore } from './adapters/dynamodb/sessions-store';
import type { TableHandle } from './adapters/dynamodb/table';
import { DynamoTranscriptStore } from './adapters/dynamodb/transcript-store';
import { SessionCache } from './bots/status-cache';
import type { Config } from './config';
import type { Logger } from './log';
import type { AccountsStore } from './ports/accounts-store';
import type { CreditLedger } from './ports/credit-ledger';
import type { DeliveriesStore } from './ports/deliveries-store';
import type { IdempotencyStore } from './ports/idempotency-store';
import type { RateLimiter } from './ports/rate-limiter';
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
    accounts: new DynamoAccountsStore(table),
    sessions: new DynamoSessionsStore(table),
    ledger: new DynamoCreditLedger(table),
    idempotency: new DynamoIdempotencyStore(table, config.IDEMPOTENCY_TTL_SECONDS),
    transcripts: new DynamoTranscriptStore(table),
    deliveries: new DynamoDeliveriesStore(table),
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
