// Port: the warm pool's wake-ups, the one way a pooled bot learns of a session. The join (and the scheduler) sends one
// for each session it offers to the pool; an idle pooled bot long-polls for it, so a burst of joins wakes one bot per
// session at once. The claim itself is the session's conditional write (sessions-store.ts); a wake-up that is lost
// costs time, not the session: the join's fallback starts a cold task. SQS on AWS; fauxqs locally.

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
