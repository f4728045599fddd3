// The warm pool's wake-up queue in memory, for tests: one wake-up reaches one waiting bot (the longest waiting), as
// SQS hands a message to one long poll; a wake-up not yet `done` comes back after `visibilityMs`, as SQS's does.
import type { PoolOffer, PoolQueue } from '../../core/ports/pool-queue';

export class MemoryPoolQueue implements PoolQueue {
  readonly sent: string[] = [];
  readonly done: string[] = [];
  private readonly queued: string[] = [];
  private readonly waiters: ((botId: string) => void)[] = [];

  constructor(private readonly visibilityMs = 60_000) {}

  async offer(botId: string): Promise<void> {
    this.sent.push(botId);
    this.deliver(botId);
  }

  next(waitMs: number, signal: AbortSignal): Promise<PoolOffer | null> {
    const queued = this.queued.shift();
    if (queued !== undefined) return Promise.resolve(this.handed(queued));
    return new Promise((resolve, reject) => {
      const waiter = (botId: string) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        resolve(this.handed(botId));
      };
      const leave = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
      };
      const timer = setTimeout(() => {
        leave();
        resolve(null);
      }, waitMs);
      const aborted = () => {
        clearTimeout(timer);
        leave();
        reject(signal.reason);
      };
      signal.addEventListener('abort', aborted, { once: true });
      this.waiters.push(waiter);
    });
  }

  private deliver(botId: string): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(botId);
    else this.queued.push(botId);
  }

  private handed(botId: string): PoolOffer {
    let taken = false;
    const back = setTimeout(() => taken || this.deliver(botId), this.visibilityMs);
    back.unref?.();
    return {
      botId,
      done: async () => {
        taken = true;
        clearTimeout(back);
        this.done.push(botId);
      },
    };
  }
}
