// Port: the warm pool's wake-up. The join rings it for each session it offers to the pool; an idle pooled
// bot waits on it, so a burst of joins wakes one bot per session at once instead of every bot scanning the offers.
// It only wakes: the claim itself is the session's conditional write (sessions-store.ts), and a bot that scans the
// offers (bot-task/pool.ts) still finds a session whose wake-up was lost. SQS on AWS; fauxqs locally.

export interface PoolOffer {
  botId: string;
  /** Takes the offer off the queue once its claim was tried (won or lost); one never done comes back later. */
  done(): Promise<void>;
}

export interface PoolQueue {
  /** Tells the idle pooled bots that `botId` waits for one of them. */
  offer(botId: string): Promise<void>;
  /**
   * The next offer, waiting up to `waitMs` for one (whole seconds on SQS, at least 1, at most 20); null when none
   * came in time. Rejects with the signal's reason when aborted.
   */
  next(waitMs: number, signal: AbortSignal): Promise<PoolOffer | null>;
}
