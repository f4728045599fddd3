// What the control plane records of a bot's life on its session: status changes, event numbers, warnings.
import type { SessionsStore } from '../../ports/sessions-store';
import { updateSession } from './session-item';
import { getItem, isConditionFailure, keys, type TableHandle, written } from './table';

export const sessionEvents = (table: TableHandle): Pick<SessionsStore, 'recordEvent' | 'addWarning'> => ({
  /**
   * Not conditional on the session running: bot.done and bot.failed come after it ended. With `key`, the item keeps
   * the last event's key (`last_event`): the bot-events queue hands a bot's messages over one at a time, so a message
   * received again after a failure is that last event, and it gets its first number back (one read, only then)
   * instead of a new one and a second status change.
   */
  async recordEvent(botId, event) {
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
      const out = await updateSession(table, botId, {
        UpdateExpression: `${sets.length ? `SET ${sets.join(', ')}` : ''}${add}`.trim(),
        ConditionExpression: [
          'attribute_exists(pk)',
          ...(event.key !== undefined ? ['(attribute_not_exists(last_event) OR last_event <> :key)'] : []),
          ...(event.content ? ['attribute_not_exists(data_deleted_at)'] : []),
        ].join(' AND '),
        ExpressionAttributeValues: values,
        ReturnValues: 'UPDATED_NEW',
      });
      return event.numbered ? Number(out.Attributes?.webhook_seq) : undefined;
    } catch (err) {
      if (!isConditionFailure(err) || (event.key === undefined && !event.content)) throw err;
      const item = await getItem(table, keys.session(botId), {
        ProjectionExpression: 'last_event, webhook_seq, data_deleted_at',
      });
      // Deleted: even an event numbered before the deletion is not delivered now (its delivery may not exist yet).
      if (event.content && item?.data_deleted_at !== undefined) return null;
      // No session: the condition's first half; fail as a missing session always did.
      if (event.key === undefined || item?.last_event !== event.key) throw err;
      return event.numbered && item.webhook_seq !== undefined ? Number(item.webhook_seq) : undefined;
    }
  },

  /**
   * The codes are also kept as a string set (`warning_codes`), the only way a condition can ask whether a list
   * already holds an element like it. Not conditional on the session running: the bot records its warnings before it
   * hands over, but a slow write must still land.
   */
  async addWarning(botId, warning) {
    return written(
      updateSession(table, botId, {
        UpdateExpression:
          'SET warnings = list_append(if_not_exists(warnings, :none), :w) ADD warning_codes :codes',
        ConditionExpression: 'attribute_exists(pk) AND NOT contains(warning_codes, :code)',
        ExpressionAttributeValues: {
          ':none': [],
          ':w': [{ code: warning.code, message: warning.message }],
          ':codes': new Set([warning.code]),
          ':code': warning.code,
        },
      }),
    );
  },
});
