// The service's stores on its one DynamoDB table (docs/data-model.md), each the adapter of its port in core/ports.
import type { Config } from '../../config';
import type { Stores } from '../../deps';
import { DynamoAccountsStore } from './accounts-store';
import { DynamoCreditLedger } from './credit-ledger';
import { DynamoDataDeletions } from './data-deletions';
import { DynamoDeliveriesStore } from './deliveries-store';
import { DynamoIdempotencyStore } from './idempotency-store';
import { DynamoRetentionIndex } from './retention-index';
import { DynamoSessionsStore } from './sessions-store';
import type { TableHandle } from './table';
import { DynamoTranscriptStore } from './transcript-store';

export function buildStores(table: TableHandle, config: Pick<Config, 'IDEMPOTENCY_TTL_SECONDS'>): Stores {
  return {
    accounts: new DynamoAccountsStore(table),
    sessions: new DynamoSessionsStore(table),
    ledger: new DynamoCreditLedger(table),
    idempotency: new DynamoIdempotencyStore(table, config.IDEMPOTENCY_TTL_SECONDS),
    transcripts: new DynamoTranscriptStore(table),
    deliveries: new DynamoDeliveriesStore(table),
    deletions: new DynamoDataDeletions(table),
    retention: new DynamoRetentionIndex(table),
  };
}
