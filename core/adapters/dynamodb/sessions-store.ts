// Bot sessions in DynamoDB, one item per bot: written and read here, and by the parts beside it, each for what it
// stores (session-updates, session-pool, session-schedule, session-stop, session-events; the mapping: session-item).
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { BotSession } from '../../bots/session';
import type { CreditHold } from '../../ports/credit-ledger';
import type { SessionCursor, SessionsStore } from '../../ports/sessions-store';
import { holdEntryItem } from './credit-ledger';
import { sessionEvents } from './session-events';
import { fieldToAttribute, fromItem, toItem } from './session-item';
import { poolClaims } from './session-pool';
import { scheduledItems, scheduleIndex } from './session-schedule';
import { stopRequests } from './session-stop';
import { sessionUpdates } from './session-updates';
import {
  accountBotPrefix,
  getItem,
  keys,
  putItems,
  queryAll,
  queryPage,
  runningIndex,
  type TableHandle,
  type TableItem,
  untilProcessed,
} from './table';

/** What a list of bots shows of each session (never its text or results). */
const summaryAttributes = (
  [
    'botId',
    'accountId',
    'status',
    'provider',
    'roomUrl',
    'createdAt',
    'startedAt',
    'completedAt',
    'exitReason',
    'error',
  ] as const
).map((f) => fieldToAttribute[f]);
const summaryProjection = {
  ProjectionExpression: summaryAttributes.map((_, n) => `#a${n}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(summaryAttributes.map((a, n) => [`#a${n}`, a])),
};

const sessionRecords = (
  table: TableHandle,
): Pick<SessionsStore, 'create' | 'get' | 'listForAccount' | 'listRunning'> => ({
  /**
   * The session, its account's list entry, the join's hold (ledger entry) and its schedule entry in
   * one BatchWriteItem request: unconditional, which is safe because bot ids are fresh random UUIDs.
   */
  async create(session: BotSession, hold?: CreditHold) {
    const { pk, sk } = keys.accountBot(session.accountId, session.createdAt, session.botId);
    const listed: TableItem = { pk, sk, type: 'account_bot', bot_id: session.botId };
    // No retention entry: a running session holds no content the sweep may delete; its end writes the entry
    // (core/data/retention.ts listForRetention), so the join's batch stays one item smaller.
    await putItems(table, [
      toItem(session),
      listed,
      ...(hold ? [holdEntryItem(hold)] : []),
      ...scheduledItems(session),
    ]);
  },

  async get(botId) {
    const item = await getItem(table, keys.session(botId));
    return item ? fromItem(item) : null;
  },

  /**
   * The account's list entries, then the sessions themselves (one BatchGetItem, summary attributes only); at most
   * `maxExamined` entries are read per call.
   */
  async listForAccount(accountId, options) {
    const maxExamined = Math.max(options.limit, 100);
    const sessions: BotSession[] = [];
    let start = options.before && keys.accountBot(accountId, options.before.createdAt, options.before.botId);
    let examined = 0;
    let last: SessionCursor | undefined;
    while (sessions.length < options.limit && examined < maxExamined) {
      const page = await queryPage(
        table,
        {
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.account(accountId).pk, ':prefix': accountBotPrefix },
          ScanIndexForward: false,
          Limit: Math.min(options.limit - sessions.length, maxExamined - examined),
        },
        start,
      );
      const entries = page.items as { sk: string; bot_id: string }[];
      examined += entries.length;
      const found = await getMany(
        table,
        entries.map((e) => e.bot_id),
      );
      for (const entry of entries) {
        const session = found.get(entry.bot_id);
        if (session && (!options.status || session.status === options.status)) sessions.push(session);
      }
      const lastEntry = entries.at(-1);
      if (!page.next || !lastEntry) return { sessions };
      last = {
        createdAt: lastEntry.sk.slice(accountBotPrefix.length, -(lastEntry.bot_id.length + 1)),
        botId: lastEntry.bot_id,
      };
      start = keys.accountBot(accountId, last.createdAt, last.botId);
    }
    return { sessions, next: last };
  },

  /** The sparse running index (eventually consistent). */
  async listRunning() {
    const items = await queryAll(table, {
      IndexName: runningIndex.name,
      KeyConditionExpression: '#p = :running',
      ExpressionAttributeNames: { '#p': runningIndex.pk },
      ExpressionAttributeValues: { ':running': runningIndex.value },
    });
    return items.map((item) => String(item.pk).slice('BOT#'.length));
  },
});

/** Sessions by id, summary attributes only (no transcript or results), in BatchGetItem requests of 100. */
async function getMany(table: TableHandle, botIds: string[]): Promise<Map<string, BotSession>> {
  const found = new Map<string, BotSession>();
  for (let i = 0; i < botIds.length; i += 100) {
    await untilProcessed(
      botIds.slice(i, i + 100).map((id): Record<string, unknown> => keys.session(id)),
      async (request) => {
        const out = await table.doc.send(
          new BatchGetCommand({
            RequestItems: {
              [table.tableName]: {
                Keys: request,
                // As the status view reads: a bot just joined or just ended shows as it is now.
                ConsistentRead: true,
                ...summaryProjection,
              },
            },
          }),
        );
        for (const item of out.Responses?.[table.tableName] ?? []) {
          const session = fromItem(item);
          found.set(session.botId, session);
        }
        return out.UnprocessedKeys?.[table.tableName]?.Keys ?? [];
      },
      (left) => `BatchGetItem left ${left} key(s) unprocessed`,
    );
  }
  return found;
}

/** The parts' methods, which the constructor assigns (type-checked there). */
export interface DynamoSessionsStore extends SessionsStore {}
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every method of the interface.
export class DynamoSessionsStore {
  constructor(table: TableHandle) {
    const store: SessionsStore = {
      ...sessionRecords(table),
      ...sessionUpdates(table),
      ...poolClaims(table),
      ...scheduleIndex(table),
      ...stopRequests(table),
      ...sessionEvents(table),
    };
    Object.assign(this, store);
  }
}
