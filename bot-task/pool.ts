// A pooled bot's wait for its one session (issue 15): started warm without a BOT_ID, it looks for sessions the join
// offered to the pool and claims one with a conditional write — of all pooled bots and the join's fallback, exactly
// one wins each session — then runs it as an ordinary bot and exits; the pool refills behind it.
import type { BotSession } from '../core/bots/session';
import type { Logger } from '../core/log';
import type { SessionsStore } from '../core/ports/sessions-store';

export interface PoolWaitDeps {
  sessions: Pick<SessionsStore, 'listPoolOffers' | 'claim' | 'get'>;
  log: Logger;
  now?: () => Date;
}

export interface PoolWaitOptions {
  /** This bot's id in the pool: the session's `claimedBy` once it wins. */
  poolBotId: string;
  pollMs: number;
  /**
   * Offers older than this are not read: the fallback has taken them long since (POOL_CLAIM_TIMEOUT_MS), and clocks
   * of the join and the bot may differ by a little.
   */
  offerWindowMs: number;
  /** Resolves when the bot is told to stop while idle (the pool shrinking, the stack shutting down). */
  stopped: Promise<void>;
  /**
   * Called before each claim is tried, and with null after one failed: the local runner reports a bot lost
   * mid-claim against the session it was taking (a lost claimant falls back to a cold start).
   */
  onClaiming?: (botId: string | null) => void;
  /** Where in the offers this bot starts trying (tests fix it); 0 ≤ x < 1. */
  random?: () => number;
}

/** Waits for, and claims, one offered session; null when told to stop first. */
export async function claimFromPool(deps: PoolWaitDeps, o: PoolWaitOptions): Promise<BotSession | null> {
  const now = deps.now ?? (() => new Date());
  let stop = false;
  void o.stopped.then(() => {
    stop = true;
  });
  while (!stop) {
    const since = new Date(now().getTime() - o.offerWindowMs).toISOString();
    const offers = await deps.sessions.listPoolOffers(since).catch((err) => {
      deps.log.warn('could not read the pool offers', { err });
      return [];
    });
    // Each bot starts at a random offer, then goes round in age order: idle bots that all tried the oldest first
    // would fail against each other, one write each per offer, and a burst of joins would wait on the herd.
    const from = Math.floor((o.random ?? Math.random)() * offers.length);
    for (const botId of [...offers.slice(from), ...offers.slice(0, from)]) {
      if (stop) break;
      o.onClaiming?.(botId);
      const at = now();
      const won = await deps.sessions
        .claim(botId, { by: o.poolBotId, path: 'pool', at: at.toISOString() })
        .catch(async (err) => {
          // The write may have been applied with its answer lost: the session says whether this bot holds it.
          deps.log.warn('claim failed', { bot_id: botId, err });
          const session = await deps.sessions.get(botId).catch(() => null);
          return session?.claimedBy === o.poolBotId;
        });
      if (!won) {
        o.onClaiming?.(null);
        continue;
      }
      const session = await deps.sessions.get(botId);
      if (session) {
        deps.log.info('claimed a session from the pool', {
          bot_id: botId,
          account_id: session.accountId,
          claim_ms: at.getTime() - Date.parse(session.createdAt),
        });
        return session;
      }
    }
    await Promise.race([o.stopped, new Promise((r) => setTimeout(r, o.pollMs))]);
  }
  return null;
}
