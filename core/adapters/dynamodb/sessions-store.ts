// Bot sessions in DynamoDB: one item per bot; state changes are conditional on the session still running.
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type {
  BotSession,
  RecordingFileInfo,
  Replacement,
  SessionClaim,
  SessionWarning,
  StatusChange,
} from '../../bots/session';
import type { CreditHold } from '../../ports/credit-ledger';
import type { ScheduledJoin, SessionsStore, StopRequestOutcome } from '../../ports/sessions-store';
import { holdEntryItem } from './credit-ledger';
import { packJson, unpackJson } from './packed-text';
import {
  accountBotPrefix,
  isConditionFailure,
  keys,
  poolOffersPk,
  putItems,
  queryAll,
  runningIndex,
  type TableHandle,
  type TableItem,
  ttlAttribute,
  untilProcessed,
} from './table';

/** An offer nobody withdrew (its claimant's delete failed) expires; pooled bots never read offers this old anyway. */
const offerTtlSeconds = 3600;
/** A pooled claim's record outlives any session (48 h at most, with replacements) and its task's stop event. */
const claimRecordTtlSeconds = 7 * 24 * 3600;
/** A stop request's own item outlives its session (48 h at most) the same way. */
const stopRequestTtlSeconds = claimRecordTtlSeconds;

/** A session offered to the warm pool from `at` (a join's creation, or a scheduled session's hand-out). */
function offerItem(at: string, botId: string): TableItem {
  return {
    ...keys.poolOffer(at, botId),
    type: 'pool_offer',
    bot_id: botId,
    [ttlAttribute]: Math.floor(Date.parse(at) / 1000) + offerTtlSeconds,
  };
}

const fieldToAttribute = {
  botId: 'bot_id',
  accountId: 'account_id',
  status: 'status',
  provider: 'provider',
  roomUrl: 'room_url',
  roomName: 'room_name',
  botConfig: 'bot_config',
  processInsights: 'process_insights',
  email: 'email',
  webhookUrl: 'webhook_callback_url',
  meetingToken: 'meeting_token',
  analysisPrompt: 'analysis_prompt',
  summaryFormatPrompt: 'summary_format_prompt',
  holdCredits: 'hold_credits',
  createdAt: 'created_at',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  stopRequestedAt: 'stop_requested_at',
  joinedAt: 'joined_at',
  transcriptAt: 'transcript_at',
  leftAt: 'left_at',
  exitReason: 'exit_reason',
  error: 'error',
  errorCode: 'error_code',
  qaPairs: 'qa_pairs',
  insights: 'insights',
  insightsError: 'insights_error',
  taskRef: 'task_ref',
  heartbeatAt: 'heartbeat_at',
  handoverResentAt: 'handover_resent_at',
  handoverResends: 'handover_resends',
  replacements: 'replacements',
  webhookEvents: 'webhook_events',
  statusChanges: 'status_changes',
  webhookSeq: 'webhook_seq',
  poolOfferedAt: 'pool_offered_at',
  claimedBy: 'claimed_by',
  claimedAt: 'claimed_at',
  startPath: 'start_path',
  correlationId: 'correlation_id',
  warnings: 'warnings',
  recording: 'recording',
  recordingFile: 'recording_file',
  joinAt: 'join_at',
  dispatchedAt: 'dispatched_at',
  dataDeletedAt: 'data_deleted_at',
} as const satisfies Record<keyof BotSession, string>;

type Field = keyof typeof fieldToAttribute;

/** The pairs once, not a new array of 47 pairs for every session written or read. */
const fieldAttributes = Object.entries(fieldToAttribute) as [Field, string][];

/**
 * Fields that can be large: stored packed, see packed-text.ts. The transcript is not among them: its segments are its
 * only copy (transcript-store.ts). Items of the old layout still carry a `transcript` attribute (a live copy, then the
 * final text); nothing reads it, and the segments beside it hold the same lines, so they read unchanged.
 */
const packed: Partial<Record<Field, { pack(v: unknown): unknown; unpack(v: unknown): unknown }>> = {
  qaPairs: { pack: packJson, unpack: unpackJson },
  // With per-question assessments (each with its evidence) a long interview's insights outgrow a plain map too.
  insights: { pack: packJson, unpack: unpackJson },
  replacements: {
    pack: (v) => (v as Replacement[]).map(replacementItem),
    unpack: (v) => (v as Record<string, string>[]).map(replacementFromItem),
  },
};

/** A replacement's attributes (the list element's map keys). */
const replacementAttributes = {
  at: 'at',
  reason: 'reason',
  taskRef: 'task_ref',
  joinedAt: 'joined_at',
} as const satisfies Record<keyof Replacement, string>;

function replacementItem(r: Replacement): Record<string, string> {
  const item: Record<string, string> = {};
  for (const [field, attr] of Object.entries(replacementAttributes)) {
    const value = r[field as keyof Replacement];
    if (value !== undefined) item[attr] = value;
  }
  return item;
}

function replacementFromItem(item: Record<string, string>): Replacement {
  const r: Record<string, string> = {};
  for (const [field, attr] of Object.entries(replacementAttributes))
    if (item[attr] !== undefined) r[field] = item[attr];
  return r as unknown as Replacement;
}

/**
 * What a deletion removes from the session item (purgeContent): the results, the recording's description (its objects
 * are deleted), the old layout's `transcript` copy, and what the join was told about the meeting: the prompts, the
 * results' e-mail address and the Daily meeting token (a credential; its end removes it already, updateRunning).
 */
const contentAttributes = [
  ...(
    [
      'qaPairs',
      'insights',
      'recordingFile',
      'email',
      'meetingToken',
      'analysisPrompt',
      'summaryFormatPrompt',
    ] as const
  ).map((f) => fieldToAttribute[f]),
  'transcript',
];

/** The members of bot_config that hold meeting text: the prompt, the greeting (often naming the candidate), the stop
 * phrase and the recording notice. Its name, voice, language and leave settings stay (they describe the bot). */
const botConfigContent = [
  'bot_prompt',
  'bot_greeting',
  'stop_phrase',
  'recording_notice_text',
] as const satisfies readonly (keyof BotSession['botConfig'])[];

const toAttributeValue = (field: Field, value: unknown) => packed[field]?.pack(value) ?? value;

function toItem(session: BotSession): TableItem {
  const item: TableItem = { ...keys.session(session.botId), type: 'session' };
  if (session.status === 'running') {
    item[runningIndex.pk] = runningIndex.value;
    item[runningIndex.sk] = `${session.createdAt}#${session.botId}`;
  }
  for (const [field, attr] of fieldAttributes) {
    const value = session[field];
    if (value !== undefined) item[attr] = toAttributeValue(field, value);
  }
  return item;
}

function fromItem(item: Record<string, unknown>): BotSession {
  const session: Record<string, unknown> = {};
  for (const [field, attr] of fieldAttributes) {
    const value = item[attr];
    if (value !== undefined) session[field] = packed[field]?.unpack(value) ?? value;
  }
  session.startedAt ??= null;
  session.completedAt ??= null;
  return session as unknown as BotSession;
}

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

export class DynamoSessionsStore implements SessionsStore {
  constructor(private readonly table: TableHandle) {}

  /**
   * Writes a new session. The join's `hold` (its ledger entry) goes in the same BatchWriteItem request; that write
   * is unconditional, which is safe because bot ids are fresh random UUIDs.
   */
  async create(session: BotSession, hold?: CreditHold): Promise<void> {
    const listed: TableItem = {
      ...keys.accountBot(session.accountId, session.createdAt, session.botId),
      type: 'account_bot',
      bot_id: session.botId,
    };
    const offer: TableItem[] = session.poolOfferedAt ? [offerItem(session.poolOfferedAt, session.botId)] : [];
    const scheduled: TableItem[] =
      session.joinAt && !session.dispatchedAt
        ? [
            {
              ...keys.scheduledJoin(session.joinAt, session.botId),
              type: 'scheduled_join',
              bot_id: session.botId,
              join_at: session.joinAt,
              // A forgotten entry goes a week after its time; the sweeper fails a session that never got a bot.
              [ttlAttribute]: Math.floor(Date.parse(session.joinAt) / 1000) + claimRecordTtlSeconds,
            },
          ]
        : [];
    // No retention entry: a running session holds no content the sweep may delete; its end writes the entry
    // (core/data/retention.ts listForRetention), so the join's batch stays one item smaller.
    await putItems(this.table, [
      toItem(session),
      listed,
      ...(hold ? [holdEntryItem(hold)] : []),
      ...offer,
      ...scheduled,
    ]);
  }

  /** The scheduled sessions whose join_at is in [from, to), oldest first: one Query per minute of the window. */
  async listScheduled(from: string, to: string): Promise<ScheduledJoin[]> {
    const found: ScheduledJoin[] = [];
    const lastMinute = Date.parse(to);
    for (let minute = Date.parse(`${from.slice(0, 16)}:00Z`); minute <= lastMinute; minute += 60_000) {
      const items = await queryAll(this.table, {
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.scheduledJoin(new Date(minute).toISOString(), '').pk,
          ':from': from,
          ':to': to,
        },
        ProjectionExpression: 'bot_id, join_at',
      });
      for (const item of items)
        if (String(item.join_at) < to)
          found.push({ botId: String(item.bot_id), joinAt: String(item.join_at) });
    }
    return found;
  }

  async unlistScheduled(entry: ScheduledJoin): Promise<void> {
    await this.table.doc.send(
      new DeleteCommand({
        TableName: this.table.tableName,
        Key: keys.scheduledJoin(entry.joinAt, entry.botId),
      }),
    );
  }

  /**
   * Hands a scheduled session out once: only while it runs, was not asked to stop and was not handed out. With
   * `offer`, it is offered to the warm pool from `at` (the offer item follows the session's write: an offer whose
   * write failed is found by nobody, and the cold fallback serves the session).
   */
  async dispatchScheduled(botId: string, at: string, offer: boolean): Promise<boolean> {
    const sets = ['dispatched_at = :at', 'started_at = join_at'];
    if (offer) sets.push('pool_offered_at = :at');
    const handedOut = await this.updateIf(botId, {
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression:
        'attribute_exists(pk) AND #status = :running AND attribute_exists(join_at) AND ' +
        'attribute_not_exists(dispatched_at) AND attribute_not_exists(stop_requested_at)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':at': at, ':running': 'running' },
    });
    if (!handedOut) return false;
    if (offer)
      await this.table.doc.send(
        new PutCommand({ TableName: this.table.tableName, Item: offerItem(at, botId) }),
      );
    return true;
  }

  /** The pool's offers since `since`, oldest first: one strongly consistent Query of the offers partition. */
  async listPoolOffers(since: string): Promise<string[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND sk > :since',
      ExpressionAttributeValues: { ':pk': poolOffersPk, ':since': since },
      ProjectionExpression: 'bot_id',
      ConsistentRead: true,
    });
    return items.map((item) => String(item.bot_id));
  }

  /**
   * Takes a session with one conditional write, so of any number of pooled bots and the join's fallback exactly
   * one wins: `claimed_by` is set once (or moved, with `from`, only from the named claimant while nobody joined).
   */
  async claim(botId: string, claim: SessionClaim): Promise<boolean> {
    const conditions = ['attribute_exists(pk)', '#status = :running'];
    const values: Record<string, unknown> = {
      ':running': 'running',
      ':by': claim.by,
      ':at': claim.at,
      ':path': claim.path,
    };
    if (claim.from !== undefined) {
      conditions.push('claimed_by = :from', 'attribute_not_exists(joined_at)');
      values[':from'] = claim.from;
    } else conditions.push('attribute_not_exists(claimed_by)');
    // A leave that came first keeps pooled bots off: the fallback ends the session instead (pool-fallback.ts).
    if (claim.path === 'pool')
      conditions.push('attribute_exists(pool_offered_at)', 'attribute_not_exists(stop_requested_at)');
    const sets = ['claimed_by = :by', 'claimed_at = :at', 'start_path = :path'];
    if (claim.taskRef !== undefined) {
      sets.push('task_ref = :task');
      values[':task'] = claim.taskRef;
    }
    const item = await this.updateIf(botId, {
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    });
    if (!item) return false;
    const withdrawn = item.pool_offered_at
      ? // Only tidies the offers partition (a left-over offer fails every claim and expires): never fails the claim.
        this.table.doc
          .send(
            new DeleteCommand({
              TableName: this.table.tableName,
              Key: keys.poolOffer(String(item.pool_offered_at), botId),
            }),
          )
          .catch(() => {})
      : Promise.resolve();
    // A pooled bot's claim is recorded under its id too, for sessionClaimedBy. A failure is thrown: the caller then
    // reads the session, which says the claim is this bot's (bot-task/pool.ts), and the failure is logged.
    const recorded =
      claim.path === 'pool'
        ? this.table.doc.send(
            new PutCommand({
              TableName: this.table.tableName,
              Item: {
                ...keys.poolClaim(claim.by),
                type: 'pool_claim',
                bot_id: botId,
                claimed_at: claim.at,
                [ttlAttribute]: Math.floor(Date.parse(claim.at) / 1000) + claimRecordTtlSeconds,
              },
            }),
          )
        : Promise.resolve();
    const [, record] = await Promise.allSettled([withdrawn, recorded]);
    if (record.status === 'rejected') throw record.reason;
    return true;
  }

  async sessionClaimedBy(claimant: string): Promise<string | null> {
    const { Item } = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.poolClaim(claimant),
        ConsistentRead: true,
      }),
    );
    return typeof Item?.bot_id === 'string' ? Item.bot_id : null;
  }

  /**
   * One page of an account's bots, newest first: the account's list entries, then the sessions themselves (one
   * BatchGetItem, summary attributes only). `status` filters; then the page may hold fewer than `limit` bots
   * while `next` still points further back (at most `maxExamined` entries are read per call).
   */
  async listForAccount(
    accountId: string,
    options: { limit: number; status?: BotSession['status']; before?: { createdAt: string; botId: string } },
  ): Promise<{ sessions: BotSession[]; next?: { createdAt: string; botId: string } }> {
    const maxExamined = Math.max(options.limit, 100);
    const sessions: BotSession[] = [];
    let start = options.before && keys.accountBot(accountId, options.before.createdAt, options.before.botId);
    let examined = 0;
    let last: { createdAt: string; botId: string } | undefined;
    while (sessions.length < options.limit && examined < maxExamined) {
      const page = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.account(accountId).pk, ':prefix': accountBotPrefix },
          ScanIndexForward: false,
          Limit: Math.min(options.limit - sessions.length, maxExamined - examined),
          ...(start && { ExclusiveStartKey: start }),
        }),
      );
      const entries = (page.Items ?? []) as { sk: string; bot_id: string }[];
      examined += entries.length;
      const found = await this.getMany(entries.map((e) => e.bot_id));
      for (const entry of entries) {
        const session = found.get(entry.bot_id);
        if (session && (!options.status || session.status === options.status)) sessions.push(session);
      }
      const lastEntry = entries.at(-1);
      if (!page.LastEvaluatedKey || !lastEntry) return { sessions };
      last = {
        createdAt: lastEntry.sk.slice(accountBotPrefix.length, -(lastEntry.bot_id.length + 1)),
        botId: lastEntry.bot_id,
      };
      start = keys.accountBot(accountId, last.createdAt, last.botId);
    }
    return { sessions, next: last };
  }

  /** Sessions by id, summary attributes only (no transcript or results), in BatchGetItem requests of 100. */
  private async getMany(botIds: string[]): Promise<Map<string, BotSession>> {
    const found = new Map<string, BotSession>();
    for (let i = 0; i < botIds.length; i += 100) {
      await untilProcessed(
        botIds.slice(i, i + 100).map((id): Record<string, unknown> => keys.session(id)),
        async (request) => {
          const out = await this.table.doc.send(
            new BatchGetCommand({
              RequestItems: {
                [this.table.tableName]: {
                  Keys: request,
                  // As the status view reads: a bot just joined or just ended shows as it is now.
                  ConsistentRead: true,
                  ...summaryProjection,
                },
              },
            }),
          );
          for (const item of out.Responses?.[this.table.tableName] ?? []) {
            const session = fromItem(item);
            found.set(session.botId, session);
          }
          return out.UnprocessedKeys?.[this.table.tableName]?.Keys ?? [];
        },
        (left) => `BatchGetItem left ${left} key(s) unprocessed`,
      );
    }
    return found;
  }

  /** Ids of every running session (sparse index; eventually consistent). */
  async listRunning(): Promise<string[]> {
    const items = await queryAll(this.table, {
      IndexName: runningIndex.name,
      KeyConditionExpression: '#p = :running',
      ExpressionAttributeNames: { '#p': runningIndex.pk },
      ExpressionAttributeValues: { ':running': runningIndex.value },
    });
    return items.map((item) => String(item.pk).slice('BOT#'.length));
  }

  async get(botId: string): Promise<BotSession | null> {
    const { Item } = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.session(botId), ConsistentRead: true }),
    );
    return Item ? fromItem(Item) : null;
  }

  /**
   * Records a stop request on a running session (first request time wins, so a repeat is harmless), then in the
   * request's own small item, which the running bot polls. The session's field comes first: it is what the pool's
   * claim, the replacement and the sweeper check. A failure of the second write is thrown: the leave then answers
   * server_error and the caller retries (both writes are idempotent).
   */
  async requestStop(botId: string, now = new Date()): Promise<StopRequestOutcome> {
    const recorded = await this.updateIf(botId, {
      UpdateExpression: 'SET stop_requested_at = if_not_exists(stop_requested_at, :now)',
      ConditionExpression: 'attribute_exists(pk) AND #status = :running',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':now': now.toISOString(), ':running': 'running' },
    });
    if (!recorded) return (await this.get(botId)) ? 'not_running' : 'not_found';
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...keys.stopRequest(botId),
          type: 'stop_request',
          requested_at: now.toISOString(),
          [ttlAttribute]: Math.floor(now.getTime() / 1000) + stopRequestTtlSeconds,
        },
      }),
    );
    return 'requested';
  }

  /**
   * Whether the leave endpoint asked the bot to stop: one eventually consistent read of the small stop item (half a
   * read unit; a request is seen within about a second, well inside the stop's 5 seconds).
   */
  async stopRequested(botId: string): Promise<boolean> {
    const { Item } = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.stopRequest(botId),
        ConsistentRead: false,
      }),
    );
    return Item !== undefined;
  }

  /**
   * Records that the bot serving attempt `attempt` was lost and a replacement takes over: appended only while the
   * session still runs, was not asked to stop or left, and still has exactly `attempt` replacements, so two
   * reporters of the same loss (the task-stopped event, the sweeper, the bot itself) replace it once.
   */
  async addReplacement(botId: string, attempt: number, replacement: Replacement): Promise<boolean> {
    const added = await this.updateIf(botId, {
      UpdateExpression: 'SET replacements = list_append(if_not_exists(replacements, :none), :r)',
      ConditionExpression: `attribute_exists(pk) AND #status = :running AND attribute_not_exists(stop_requested_at) AND attribute_not_exists(left_at) AND ${
        attempt === 0 ? 'attribute_not_exists(replacements)' : 'size(replacements) = :n'
      }`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':running': 'running',
        ':none': [],
        ':r': [replacementItem(replacement)],
        ...(attempt > 0 && { ':n': attempt }),
      },
    });
    return added !== null;
  }

  /**
   * Records an event of the bot's life: appends its status change (when it is one) and, when it goes to the webhook,
   * takes the bot's next event number. Returns that number. Not conditional on the session running: bot.done and
   * bot.failed come after it ended. With `key`, the item keeps the last event's key (`last_event`): the bot-events
   * queue hands a bot's messages over one at a time, so a message received again after a failure is that last event,
   * and it gets its first number back (one read, only then) instead of a new one and a second status change.
   */
  async recordEvent(
    botId: string,
    event: { statusChange?: StatusChange; numbered: boolean; key?: string; content?: boolean },
  ): Promise<number | undefined | null> {
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    let add = '';
    if (event.statusChange) {
      sets.push('status_changes = list_append(if_not_exists(status_changes, :none), :change)');
      values[':none'] = [];
      values[':change'] = [
        Object.fromEntries(Object.entries(event.statusChange).filter(([, v]) => v !== undefined)),
      ];
    }
    if (event.numbered) {
      add = ' ADD webhook_seq :one';
      values[':one'] = 1;
    }
    if (sets.length === 0 && !add) return undefined;
    if (event.key !== undefined) {
      sets.push('last_event = :key');
      values[':key'] = event.key;
    }
    try {
      const out = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.session(botId),
          UpdateExpression: `${sets.length ? `SET ${sets.join(', ')}` : ''}${add}`.trim(),
          ConditionExpression: [
            'attribute_exists(pk)',
            ...(event.key !== undefined ? ['(attribute_not_exists(last_event) OR last_event <> :key)'] : []),
            ...(event.content ? ['attribute_not_exists(data_deleted_at)'] : []),
          ].join(' AND '),
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return event.numbered ? Number(out.Attributes?.webhook_seq) : undefined;
    } catch (err) {
      if (!isConditionFailure(err) || (event.key === undefined && !event.content)) throw err;
      const { Item } = await this.table.doc.send(
        new GetCommand({
          TableName: this.table.tableName,
          Key: keys.session(botId),
          ProjectionExpression: 'last_event, webhook_seq, data_deleted_at',
          ConsistentRead: true,
        }),
      );
      // Deleted: even an event numbered before the deletion is not delivered now (its delivery may not exist yet).
      if (event.content && Item?.data_deleted_at !== undefined) return null;
      // No session: the condition's first half; fail as a missing session always did.
      if (event.key === undefined || Item?.last_event !== event.key) throw err;
      return event.numbered && Item.webhook_seq !== undefined ? Number(Item.webhook_seq) : undefined;
    }
  }

  /**
   * Appends a warning unless one of its code is there: the codes are also kept as a string set (`warning_codes`), the
   * only way a condition can ask whether a list already holds an element like it. Not conditional on the session
   * running: the bot records its warnings before it hands over, but a slow write must still land.
   */
  async addWarning(botId: string, warning: SessionWarning): Promise<boolean> {
    const added = await this.updateIf(botId, {
      UpdateExpression:
        'SET warnings = list_append(if_not_exists(warnings, :none), :w) ADD warning_codes :codes',
      ConditionExpression: 'attribute_exists(pk) AND NOT contains(warning_codes, :code)',
      ExpressionAttributeValues: {
        ':none': [],
        ':w': [{ code: warning.code, message: warning.message }],
        ':codes': new Set([warning.code]),
        ':code': warning.code,
      },
    });
    return added !== null;
  }

  /** Sets fields of the `index`-th replacement (its task, when it got into the room) while the session runs. */
  async updateReplacement(
    botId: string,
    index: number,
    changes: Pick<Replacement, 'taskRef' | 'joinedAt'>,
  ): Promise<boolean> {
    if (!Number.isSafeInteger(index) || index < 0) throw new Error(`not a replacement index: ${index}`);
    const sets: string[] = [];
    const values: Record<string, unknown> = { ':running': 'running' };
    if (changes.taskRef !== undefined) {
      sets.push(`replacements[${index}].task_ref = :task`, 'task_ref = :task');
      values[':task'] = changes.taskRef;
    }
    if (changes.joinedAt !== undefined) {
      sets.push(`replacements[${index}].joined_at = :joined`);
      values[':joined'] = changes.joinedAt;
    }
    if (sets.length === 0) return true;
    const updated = await this.updateIf(botId, {
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: `attribute_exists(pk) AND #status = :running AND size(replacements) > :index`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ...values, ':index': index },
    });
    return updated !== null;
  }

  /**
   * Sets fields of a session that is still running; returns false when it already ended (first end wins).
   * Ending a session (status completed or failed) goes through here too.
   */
  async updateRunning(
    botId: string,
    changes: Partial<Omit<BotSession, 'botId' | 'accountId'>>,
  ): Promise<boolean> {
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':running': 'running' };
    const sets: string[] = [];
    let i = 0;
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      const attr = fieldToAttribute[field as Field];
      names[`#f${i}`] = attr;
      values[`:v${i}`] = toAttributeValue(field as Field, value);
      sets.push(`#f${i} = :v${i}`);
      i++;
    }
    if (sets.length === 0) return true;
    // An ended session leaves the sparse running index, and drops its Daily meeting token: a credential, needed only
    // while a bot (or its replacement) may still join the room.
    const ends = changes.status !== undefined && changes.status !== 'running';
    const remove = ends
      ? ` REMOVE ${runningIndex.pk}, ${runningIndex.sk}, ${fieldToAttribute.meetingToken}`
      : '';
    const updated = await this.updateIf(botId, {
      UpdateExpression: `SET ${sets.join(', ')}${remove}`,
      ConditionExpression: 'attribute_exists(pk) AND #status = :running',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    return updated !== null;
  }

  async setFailedRecordingFile(botId: string, file: RecordingFileInfo): Promise<boolean> {
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.session(botId),
          UpdateExpression: 'SET recording_file = :file',
          ConditionExpression:
            '#status = :failed AND attribute_not_exists(recording_file) AND attribute_not_exists(data_deleted_at)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':file': file, ':failed': 'failed' },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /**
   * Removes the session's meeting content (contentAttributes, and the prompts and texts of its bot_config). Only on a
   * session marked deleted, so a slow deletion can never strip a session that was not asked to be.
   */
  async purgeContent(botId: string): Promise<void> {
    const names: Record<string, string> = {};
    const paths = contentAttributes.map((attr, n) => {
      names[`#a${n}`] = attr;
      return `#a${n}`;
    });
    const topLevel = {
      UpdateExpression: `REMOVE ${paths.join(', ')}`,
      ExpressionAttributeNames: { ...names },
    };
    names['#config'] = fieldToAttribute.botConfig;
    for (const [n, member] of botConfigContent.entries()) {
      names[`#c${n}`] = member;
      paths.push(`#config.#c${n}`);
    }
    const purged = await this.updateIf(botId, {
      UpdateExpression: `REMOVE ${paths.join(', ')}`,
      // A map path under a missing map is an error, so only with a bot_config map (every session is created with one).
      ConditionExpression: 'attribute_exists(data_deleted_at) AND attribute_type(#config, :map)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':map': 'M' },
    });
    // None (an item written otherwise), or no tombstone: the top-level content still goes, only from a tombstone.
    if (!purged)
      await this.updateIf(botId, { ...topLevel, ConditionExpression: 'attribute_exists(data_deleted_at)' });
  }

  /**
   * One conditional UpdateItem of the bot's session item: the attributes it returned (none asked: empty), or null
   * when its condition failed (the session ended, another writer won the race, no such session). Any other error is
   * thrown.
   */
  private async updateIf(
    botId: string,
    update: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
  ): Promise<Record<string, unknown> | null> {
    try {
      const out = await this.table.doc.send(
        new UpdateCommand({ ...update, TableName: this.table.tableName, Key: keys.session(botId) }),
      );
      return out.Attributes ?? {};
    } catch (err) {
      if (isConditionFailure(err)) return null;
      throw err;
    }
  }
}
