// A pooled bot's wait for its one session: it long-polls the pool queue and claims an offered session with a
// conditional write (exactly one claimant wins). A wake-up leaves the queue only once its claim was decided; else it
// comes back after the visibility timeout (1 s). One lost costs time: the join's fallback starts a cold task.
import { setTimeout as sleep } from 'node:timers/promises';
import { plan } from '../core/bots/lifecycle';
import type { BotSession, SessionClaim } from '../core/bots/session';
import type { Logger } from '../core/log';
import type { PoolQueue } from '../core/ports/pool-queue';
import type { SessionsStore } from '../core/ports/sessions-store';

export interface PoolWaitDeps {
  sessions: Pick<SessionsStore, 'claim' | 'get'>;
  queue: PoolQueue;
  log: Logger;
  now?: () => Date;
}

export interface PoolWaitOptions {
  /** This bot's id in the pool: the session's `claimedBy` once it wins. */
  poolBotId: string;
  /** The task this bot runs in, recorded with its claim (SessionClaim.taskRef); none locally. */
  taskRef?: string;
  /** Resolves when the bot is told to stop while idle (the pool shrinking, the stack shutting down). */
  stopped: Promise<void>;
  /** Called before each claim is tried, and with null after one failed (the local runner reports a lost claimant). */
  onClaiming?: (botId: string | null) => void;
}

/** One long poll of the queue (SQS allows 20 s at most). */
const wakeUpWaitMs = 20_000;
const queueRetryMs = 1_000;

/** Waits for, and claims, one offered session; null when told to stop first. */
export async function claimFromPool(deps: PoolWaitDeps, o: PoolWaitOptions): Promise<BotSession | null> {
  const now = deps.now ?? (() => new Date());
  const abort = new AbortController();
  void o.stopped.then(() => abort.abort(new Error('pooled bot stopped')));
  const stopped = () => abort.signal.aborted;

  /** The session if this bot wins it, null when lost (or gone), undefined when the claim could not be decided. */
  const tryClaim = async (botId: string): Promise<BotSession | null | undefined> => {
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
    let won: boolean | undefined;
    try {
      won = await deps.sessions.claim(botId, claim);
    } catch (err) {
      // The write may have been applied with its answer lost: the session says whether this bot holds it.
      deps.log.warn('claim failed', { bot_id: botId, err });
      won = decided(await deps.sessions.get(botId).catch(() => undefined), o.poolBotId);
    }
    const session = won ? await deps.sessions.get(botId) : null;
    if (!session) {
      o.onClaiming?.(null);
      return won === undefined ? undefined : null;
    }
    deps.log.info('claimed a session from the pool', {
      bot_id: botId,
      account_id: session.accountId,
      claim_ms: at.getTime() - Date.parse(session.createdAt),
    });
    return session;
  };

  while (!stopped()) {
    let offer: Awaited<ReturnType<PoolQueue['next']>>;
    try {
      offer = await deps.queue.next(wakeUpWaitMs, abort.signal);
    } catch (err) {
      if (stopped()) return null;
      deps.log.warn('could not read the pool queue', { err });
      await sleep(queueRetryMs, undefined, { signal: abort.signal }).catch(() => {});
      continue;
    }
    if (!offer || stopped()) continue;
    const session = await tryClaim(offer.botId);
    // Decided, won or lost: nobody else needs this wake-up. Undecided, it comes back for another try.
    if (session !== undefined)
      await offer
        .done()
        .catch((err) => deps.log.warn('could not take the wake-up off the pool queue', { err }));
    if (session) return session;
  }
  return null;
}

/** After a claim's write failed: won, lost (taken by another, ended, gone), or undefined when nothing says (unread). */
function decided(session: BotSession | null | undefined, poolBotId: string): boolean | undefined {
  if (session === undefined) return undefined;
  if (session === null) return false;
  if (session.claimedBy) return session.claimedBy === poolBotId;
  return session.status === 'running' ? undefined : false;
}
