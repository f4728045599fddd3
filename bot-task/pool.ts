// A pooled bot's wait for its one session: started warm without a BOT_ID, it waits for sessions the join
// offered to the pool and claims one with a conditional write — of all pooled bots and the join's fallback, exactly
// one wins each session — then runs it as an ordinary bot and exits; the pool refills behind it.
//
// Two ways to find an offer: the pool queue wakes one idle bot per offered session (a long poll, so a claim starts
// within a round trip of the join), and every POOL_POLL_MS each bot scans the offers, for a wake-up that was lost
// (sent to a bot that died, or not sent) and for a deployment without the queue.
import { setTimeout as sleep } from 'node:timers/promises';
import { plan } from '../core/bots/lifecycle';
import type { BotSession, SessionClaim } from '../core/bots/session';
import type { Logger } from '../core/log';
import type { PoolQueue } from '../core/ports/pool-queue';
import type { SessionsStore } from '../core/ports/sessions-store';

export interface PoolWaitDeps {
  sessions: Pick<SessionsStore, 'listPoolOffers' | 'claim' | 'get'>;
  /** The wake-up; without it the bot only scans. */
  queue?: PoolQueue;
  log: Logger;
  now?: () => Date;
}

export interface PoolWaitOptions {
  /** This bot's id in the pool: the session's `claimedBy` once it wins. */
  poolBotId: string;
  /** The task this bot runs in, recorded with its claim (SessionClaim.taskRef); none locally. */
  taskRef?: string;
  /** Between scans of the offers. */
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

/** After the queue failed, how long before it is asked again (the scans go on meanwhile). */
const queueRetryMs = 1_000;

/** Waits for, and claims, one offered session; null when told to stop first. */
export async function claimFromPool(deps: PoolWaitDeps, o: PoolWaitOptions): Promise<BotSession | null> {
  const now = deps.now ?? (() => new Date());
  const abort = new AbortController();
  void o.stopped.then(() => abort.abort(new Error('pooled bot stopped')));
  const stopped = () => abort.signal.aborted;

  /** The session if this bot wins it; null when another bot or the fallback has it (or it is gone). */
  const tryClaim = async (botId: string): Promise<BotSession | null> => {
    o.onClaiming?.(botId);
    const at = now();
    const claim: SessionClaim = {
      by: o.poolBotId,
      path: 'pool',
      at: at.toISOString(),
      ...(o.taskRef !== undefined && { taskRef: o.taskRef }),
    };
    // An offered session is joining; the store's conditional write refuses it once taken, stopped or ended.
    plan('joining', 'claim', claim, botId);
    const won = await deps.sessions.claim(botId, claim).catch(async (err) => {
      // The write may have been applied with its answer lost: the session says whether this bot holds it.
      deps.log.warn('claim failed', { bot_id: botId, err });
      const session = await deps.sessions.get(botId).catch(() => null);
      return session?.claimedBy === o.poolBotId;
    });
    const session = won ? await deps.sessions.get(botId) : null;
    if (!session) {
      o.onClaiming?.(null);
      return null;
    }
    deps.log.info('claimed a session from the pool', {
      bot_id: botId,
      account_id: session.accountId,
      claim_ms: at.getTime() - Date.parse(session.createdAt),
    });
    return session;
  };

  const scan = async (): Promise<BotSession | null> => {
    const since = new Date(now().getTime() - o.offerWindowMs).toISOString();
    const offers = await deps.sessions.listPoolOffers(since).catch((err) => {
      deps.log.warn('could not read the pool offers', { err });
      return [];
    });
    // Each bot starts at a random offer, then goes round in age order: idle bots that all tried the oldest first
    // would fail against each other, one write each per offer, and a burst of joins would wait on the herd.
    const from = Math.floor((o.random ?? Math.random)() * offers.length);
    for (const botId of [...offers.slice(from), ...offers.slice(0, from)]) {
      if (stopped()) return null;
      const session = await tryClaim(botId);
      if (session) return session;
    }
    return null;
  };

  /** Waits up to `ms` for a wake-up and tries its claim; null when none came, it was lost, or the queue failed. */
  const woken = async (ms: number): Promise<BotSession | null> => {
    let offer: Awaited<ReturnType<PoolQueue['next']>>;
    try {
      offer = await deps.queue!.next(ms, abort.signal);
    } catch (err) {
      if (stopped()) return null;
      deps.log.warn('could not read the pool queue', { err });
      await pause(Math.min(ms, queueRetryMs), abort.signal);
      return null;
    }
    if (!offer || stopped()) return null;
    const session = await tryClaim(offer.botId);
    // Tried, won or lost: nobody else needs this wake-up (a bot that died before this line lets it come back).
    await offer
      .done()
      .catch((err) => deps.log.warn('could not take the wake-up off the pool queue', { err }));
    return session;
  };

  let nextScan = 0;
  while (!stopped()) {
    if (now().getTime() >= nextScan) {
      nextScan = now().getTime() + o.pollMs;
      const session = await scan();
      if (session) return session;
      continue;
    }
    const wait = Math.max(1, nextScan - now().getTime());
    if (deps.queue) {
      const session = await woken(wait);
      if (session) return session;
    } else {
      await pause(wait, abort.signal);
    }
  }
  return null;
}

/** Waits `ms`, or until the bot is told to stop (the abort ends the wait; it is not an error here). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => {});
}
