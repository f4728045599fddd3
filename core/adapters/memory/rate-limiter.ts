// Fixed one-minute windows counted in memory: exact for a single process (the local stack), same rule as DynamoDB's.
import type { RateDecision, RateLimiter } from '../../ports/rate-limiter';

export class MemoryRateLimiter implements RateLimiter {
  private window = -1;
  private counts = new Map<string, number>();

  async consume(subject: string, limitPerMinute: number, now = new Date()): Promise<RateDecision> {
    const epoch = Math.floor(now.getTime() / 1000);
    const window = Math.floor(epoch / 60);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const used = this.counts.get(subject) ?? 0;
    if (used >= limitPerMinute)
      return { allowed: false, retryAfterSeconds: Math.max(1, (window + 1) * 60 - epoch) };
    this.counts.set(subject, used + 1);
    return { allowed: true, retryAfterSeconds: 0 };
  }
}
