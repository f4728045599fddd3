// The warm pool grows in a storm itself: each offer no pooled bot claimed in time (the fallback's cold start) is
// demand the pool did not meet, and raises the pool's desired size at once, instead of waiting minutes for the
// per-minute idle metric's scaling. Demand that arrives together (a storm: hundreds of fallbacks a second) is summed
// into one resize, so the pool service sees one call per window, not one per session.
import { metrics } from '../metrics';
import type { PoolScaler } from '../ports/pool-scaler';
import { type RetryClock, realClock } from '../retry';

/** How long demand is gathered before one resize. */
export const poolGrowthWindowMs = 250;

export class PoolGrowth {
  private pending = 0;
  private flush: Promise<void> | undefined;

  constructor(
    private readonly scaler: PoolScaler,
    private readonly clock: Pick<RetryClock, 'sleep'> = realClock,
    private readonly windowMs = poolGrowthWindowMs,
  ) {}

  /** Asks for `sessions` more pooled bots; resolves once the resize that includes them is done (rejects if it failed). */
  demand(sessions: number): Promise<void> {
    this.pending += sessions;
    this.flush ??= this.clock.sleep(this.windowMs).then(() => {
      const by = this.pending;
      this.pending = 0;
      this.flush = undefined;
      return this.scaler.grow(by).then(
        () => metrics.poolGrown(by),
        (err: unknown) => {
          metrics.poolGrowthFailed();
          throw err;
        },
      );
    });
    return this.flush;
  }
}
