// A small in-process cache of sessions for the status endpoint. Ended sessions never change again and stay cached;
// a running one is reused for at most STATUS_CACHE_TTL_MS, so a poller sees changes within that time.
import type { BotSession } from './session';

export class SessionCache {
  private readonly entries = new Map<string, { session: BotSession; until: number }>();

  constructor(
    private readonly runningTtlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(botId: string, nowMs: number): BotSession | undefined {
    const hit = this.entries.get(botId);
    if (!hit) return undefined;
    if (hit.until < nowMs) {
      this.entries.delete(botId);
      return undefined;
    }
    return hit.session;
  }

  put(session: BotSession, nowMs: number): void {
    const ended = session.status !== 'running';
    if (!ended && this.runningTtlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Oldest insertion first: Map keeps insertion order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(session.botId, {
      session,
      until: ended ? Number.POSITIVE_INFINITY : nowMs + this.runningTtlMs,
    });
  }
}
