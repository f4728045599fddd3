// The session item's shape: the one mapping of a BotSession's fields to its attributes, and its conditional update.
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { type BotState, storedCondition } from '../../bots/lifecycle';
import type { BotSession, Replacement } from '../../bots/session';
import { packJson, unpackJson } from './packed-text';
import { keys, runningIndex, type TableHandle, type TableItem, updateItem } from './table';

export const fieldToAttribute = {
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

export type Field = keyof typeof fieldToAttribute;

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
    unpack: (v) => (v as object[]).map(replacementFromItem),
  },
};

/** A replacement's attributes (the list element's map keys). */
const replacementAttributes = {
  at: 'at',
  reason: 'reason',
  taskRef: 'task_ref',
  joinedAt: 'joined_at',
} as const satisfies Record<keyof Replacement, string>;

const replacementPairs = Object.entries(replacementAttributes);
export const replacementItem = (r: Replacement) => renamed(r, replacementPairs);
const replacementFromItem = (item: object) =>
  renamed(
    item,
    replacementPairs.map(([field, attr]) => [attr, field]),
  ) as unknown as Replacement;

/** `source`'s values under new names (pairs of old and new), without the undefined ones. */
function renamed(source: object, pairs: [string, string][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [from, to] of pairs) {
    const value = (source as Record<string, unknown>)[from];
    if (value !== undefined) out[to] = value;
  }
  return out;
}

export const toAttributeValue = (field: Field, value: unknown) => packed[field]?.pack(value) ?? value;

export function toItem(session: BotSession): TableItem {
  // Not `{ ...keys.session(id), type }`: properties added one by one to an object made by spreading cost V8 about
  // 40 µs here (a join's largest share of our code), against 2 µs for a plain literal.
  const { pk, sk } = keys.session(session.botId);
  const item: TableItem = { pk, sk, type: 'session' };
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

export function fromItem(item: Record<string, unknown>): BotSession {
  const session: Record<string, unknown> = {};
  for (const [field, attr] of fieldAttributes) {
    const value = item[attr];
    if (value !== undefined) session[field] = packed[field]?.unpack(value) ?? value;
  }
  session.startedAt ??= null;
  session.completedAt ??= null;
  return session as unknown as BotSession;
}

/**
 * The condition that the session is in one of `states` (lifecycle.ts storedAs), on the attributes stateOf reads; its
 * names and values are added to the update's. A missing item fails it (no status). Parenthesise it to AND it.
 */
export function inStates(
  states: readonly BotState[],
  names: Record<string, string>,
  values: Record<string, unknown>,
): string {
  names['#status'] = 'status';
  const alternatives = storedCondition(states);
  return alternatives
    .map((test) => {
      const terms = Object.entries(test).map(([field, value]) => {
        if (field === 'status') {
          values[`:${value}`] = value;
          return `#status = :${value}`;
        }
        return `attribute_${value ? '' : 'not_'}exists(${fieldToAttribute[field as Field]})`;
      });
      // Parentheses only around one of several: DynamoDB refuses redundant ones.
      return alternatives.length > 1 ? `(${terms.join(' AND ')})` : terms.join(' AND ');
    })
    .join(' OR ');
}

/** An UpdateItem of the bot's session item (table.ts `written` or `conditional` around it for a conditional one). */
export const updateSession = (
  table: TableHandle,
  botId: string,
  update: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
) => updateItem(table, { ...update, Key: keys.session(botId) });
