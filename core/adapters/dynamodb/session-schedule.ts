// The schedule index: scheduled sessions by minute of their join time, until each is handed to a bot.
import { lifecycle } from '../../bots/lifecycle';
import type { BotSession } from '../../bots/session';
import type { ScheduledJoin, SessionsStore } from '../../ports/sessions-store';
import { inStates, updateSession } from './session-item';
import { claimRecordTtlSeconds } from './session-pool';
import { deleteItem, keys, queryAll, type TableHandle, type TableItem, ttlAttribute, written } from './table';

/** The schedule entry `create` writes with a session that has a join time and was not handed out. */
export function scheduledItems(session: BotSession): TableItem[] {
  if (!session.joinAt || session.dispatchedAt) return [];
  return [
    {
      ...keys.scheduledJoin(session.joinAt, session.botId),
      type: 'scheduled_join',
      bot_id: session.botId,
      join_at: session.joinAt,
      // A forgotten entry goes a week after its time; the sweeper fails a session that never got a bot.
      [ttlAttribute]: Math.floor(Date.parse(session.joinAt) / 1000) + claimRecordTtlSeconds,
    },
  ];
}

export const scheduleIndex = (
  table: TableHandle,
): Pick<SessionsStore, 'listScheduled' | 'unlistScheduled' | 'dispatchScheduled'> => ({
  /** One Query per minute of the window. */
  async listScheduled(from, to) {
    const found: ScheduledJoin[] = [];
    const lastMinute = Date.parse(to);
    for (let minute = Date.parse(`${from.slice(0, 16)}:00Z`); minute <= lastMinute; minute += 60_000) {
      const items = await queryAll(table, {
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
  },

  async unlistScheduled(entry) {
    await deleteItem(table, { Key: keys.scheduledJoin(entry.joinAt, entry.botId) });
  },

  /**
   * The `start` step, once: only while the session is scheduled (running, not asked to stop, not handed out).
   */
  async dispatchScheduled(botId, at, offer) {
    const sets = ['dispatched_at = :at', 'started_at = join_at'];
    if (offer) sets.push('pool_offered_at = :at');
    const names = {};
    const values = { ':at': at };
    return written(
      updateSession(table, botId, {
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: inStates(lifecycle.start.from, names, values),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  },
});
