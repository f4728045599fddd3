// The warm pool's claims of sessions: the claim on the session, the claimant's record.
import type { SessionClaim } from '../../bots/session';
import type { SessionsStore } from '../../ports/sessions-store';
import { updateSession } from './session-item';
import { conditional, getItem, keys, putItem, type TableHandle, ttlAttribute } from './table';

/** A pooled claim's record outlives any session (48 h at most, with replacements) and its task's stop event. */
export const claimRecordTtlSeconds = 7 * 24 * 3600;

export const poolClaims = (table: TableHandle): Pick<SessionsStore, 'claim' | 'sessionClaimedBy'> => ({
  /**
   * One conditional write, so of any number of pooled bots and the join's fallback exactly one wins: `claimed_by` is
   * set once (or moved, with `from`, only from the named claimant while nobody joined).
   */
  async claim(botId: string, claim: SessionClaim) {
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
    const won = await conditional(
      updateSession(table, botId, {
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
    );
    if (!won) return false;
    // A pooled bot's claim is recorded under its id too, for sessionClaimedBy. A failure is thrown: the caller then
    // reads the session, which says the claim is this bot's (bot-task/pool.ts), and the failure is logged.
    if (claim.path === 'pool')
      await putItem(table, {
        Item: {
          ...keys.poolClaim(claim.by),
          type: 'pool_claim',
          bot_id: botId,
          claimed_at: claim.at,
          [ttlAttribute]: Math.floor(Date.parse(claim.at) / 1000) + claimRecordTtlSeconds,
        },
      });
    return true;
  },

  async sessionClaimedBy(claimant) {
    const item = await getItem(table, keys.poolClaim(claimant));
    return typeof item?.bot_id === 'string' ? item.bot_id : null;
  },
});
