// A leave's stop request: on the session (the `request_stop` step) and in the small item the running bot polls.
import { lifecycle } from '../../bots/lifecycle';
import type { SessionsStore } from '../../ports/sessions-store';
import { inStates, updateSession } from './session-item';
import { claimRecordTtlSeconds } from './session-pool';
import { getItem, keys, putItem, type TableHandle, ttlAttribute, written } from './table';

export const stopRequests = (table: TableHandle): Pick<SessionsStore, 'requestStop' | 'stopRequested'> => ({
  /**
   * The session's field comes first: it is what the pool's claim, the replacement and the sweeper check. A failure of
   * the second write is thrown: the leave then answers server_error and the caller retries (both are idempotent).
   */
  async requestStop(botId, now = new Date()) {
    const names = {};
    const values = { ':now': now.toISOString() };
    const recorded = await written(
      updateSession(table, botId, {
        UpdateExpression: 'SET stop_requested_at = if_not_exists(stop_requested_at, :now)',
        ConditionExpression: inStates(lifecycle.request_stop.from, names, values),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    if (!recorded)
      return (await getItem(table, keys.session(botId), { ProjectionExpression: 'pk' }))
        ? 'not_running'
        : 'not_found';
    await putItem(table, {
      Item: {
        ...keys.stopRequest(botId),
        type: 'stop_request',
        requested_at: now.toISOString(),
        // It outlives its session (48 h at most) as a pooled claim's record does.
        [ttlAttribute]: Math.floor(now.getTime() / 1000) + claimRecordTtlSeconds,
      },
    });
    return 'requested';
  },

  /** One eventually consistent read of the small stop item: half a read unit, well inside the stop's 5 seconds. */
  async stopRequested(botId) {
    return (await getItem(table, keys.stopRequest(botId), { ConsistentRead: false })) !== undefined;
  },
});
