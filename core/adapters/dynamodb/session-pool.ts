// The warm pool's offers and claims of sessions: the offers partition, the claim on the session, the claimant's record.
import type { SessionClaim } from '../../bots/session';
import type { SessionsStore } from '../../ports/sessions-store';
import { updateSession } from './session-item';
import {
  conditional,
  deleteItem,
  getItem,
  keys,
  poolOffersPk,
  putItem,
  queryAll,
  type TableHandle,
  type TableItem,
  ttlAttribute,
} from './table';

/** An offer nobody withdrew (its claimant's delete failed) expires; pooled bots never read offers this old anyway. */
const offerTtlSeconds = 3600;
/** A pooled claim's record outlives any session (48 h at most, with replacements) and its task's stop event. */
export const claimRecordTtlSeconds = 7 * 24 * 3600;

/** A session offered to the warm pool from `at` (a join's creation, or a scheduled session's hand-out). */
export function offerItem(at: string, botId: string): TableItem {
  return {
    ...keys.poolOffer(at, botId),
    type: 'pool_offer',
    bot_id: botId,
    [ttlAttribute]: Math.floor(Date.parse(at) / 1000) + offerTtlSeconds,
  };
}

export const poolClaims = (
  table: TableHandle,
): Pick<SessionsStore, 'listPoolOffers' | 'claim' | 'sessionClaimedBy'> => ({
  /** One strongly consistent Query of the offers partition. */
  async listPoolOffers(since) {
    const items = await queryAll(table, {
      KeyConditionExpression: 'pk = :pk AND sk > :since',
      ExpressionAttributeValues: { ':pk': poolOffersPk, ':since': since },
      ProjectionExpression: 'bot_id',
      ConsistentRead: true,
    });
    return items.map((item) => String(item.bot_id));
  },

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
        ReturnValues: 'ALL_NEW',
      }),
    );
    if (!won) return false;
    const offeredAt = won.Attributes?.pool_offered_at;
    const withdrawn = offeredAt
      ? // Only tidies the offers partition (a left-over offer fails every claim and expires): never fails the claim.
        deleteItem(table, { Key: keys.poolOffer(String(offeredAt), botId) }).catch(() => {})
      : Promise.resolve();
    // A pooled bot's claim is recorded under its id too, for sessionClaimedBy. A failure is thrown: the caller then
    // reads the session, which says the claim is this bot's (bot-task/pool.ts), and the failure is logged.
    const recorded =
      claim.path === 'pool'
        ? putItem(table, {
            Item: {
              ...keys.poolClaim(claim.by),
              type: 'pool_claim',
              bot_id: botId,
              claimed_at: claim.at,
              [ttlAttribute]: Math.floor(Date.parse(claim.at) / 1000) + claimRecordTtlSeconds,
            },
          })
        : Promise.resolve();
    const [, record] = await Promise.allSettled([withdrawn, recorded]);
    if (record.status === 'rejected') throw record.reason;
    return true;
  },

  async sessionClaimedBy(claimant) {
    const item = await getItem(table, keys.poolClaim(claimant));
    return typeof item?.bot_id === 'string' ? item.bot_id : null;
  },
});
