// A small in-process cache of sessions for the status endpoint. An ended session changes only when its data is
// deleted, so it stays cached for a minute; a running one is reused for at most STATUS_CACHE_TTL_MS, so a poller
// sees changes within that time.
import type { JsonText } from '../json-text';
import { BoundedMap } from './bounded-map';
import type { BotSession } from './session';

/** How long an ended session is reused: a deletion of its data shows in every status reader within this. */
export const endedSessionTtlMs = 60_000;

interface Entry {
  session: BotSession;
  until: number;
  /** The answer rendered from this session and the `version` of what else it shows (the transcript's lines). */
  rendered?: { version: object; json: JsonText };
}

export class SessionCache {
  private readonly entries: BoundedMap<Entry>;
  /** Reads in flight: concurrent misses for one bot share a single read (no stampede when an entry expires). */
  private readonly loading = new Map<string, Promise<BotSession | null>>();

  constructor(
    private readonly runningTtlMs: number,
    maxEntries = 10_000,
    /** Results (Q&A pairs, insights) make entries large: the cache also stays under this many (estimated) bytes. */
    maxBytes = 64 * 1024 * 1024,
    /**
     * An ended session only changes once more, when its data is deleted (another process, another Lambda instance):
     * it is read again after this long, so a deletion shows in every reader within it.
     */
    private readonly endedTtlMs = endedSessionTtlMs,
  ) {
    this.entries = new BoundedMap(maxEntries, maxBytes);
  }

  /** The cached session, or the loader's (shared with concurrent callers), cached for next time. */
  async load(
    botId: string,
    nowMs: number,
    loader: () => Promise<BotSession | null>,
  ): Promise<BotSession | null> {
    const hit = this.get(botId, nowMs);
    if (hit) return hit;
    let pending = this.loading.get(botId);
    if (!pending) {
      pending = loader().then(
        (session) => {
          this.loading.delete(botId);
          if (session) this.put(session, nowMs);
          return session;
        },
        (err) => {
          this.loading.delete(botId);
          throw err;
        },
      );
      this.loading.set(botId, pending);
    }
    return pending;
  }

  /**
   * The answer `render` makes of a cached session and `version` (an object that changes whenever the rest of what the
   * answer shows does), made once per pair rather than once per read, and counted in the cache's bytes. A session
   * not cached (a concurrent refresh replaced it) is rendered anew.
   */
  renderedJson(session: BotSession, version: object, render: () => JsonText): JsonText {
    const entry = this.entries.get(session.botId);
    if (entry?.session !== session) return render();
    if (entry.rendered?.version === version) return entry.rendered.json;
    const json = render();
    this.entries.set(
      session.botId,
      { ...entry, rendered: { version, json } },
      estimateBytes(session) + 2 * json.text.length,
    );
    return json;
  }

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
    this.entries.set(
      session.botId,
      { session, until: nowMs + (ended ? this.endedTtlMs : this.runningTtlMs) },
      estimateBytes(session),
    );
  }

  /** Drops a bot's entry (its data was deleted in this process: the next read shows the tombstone). */
  forget(botId: string): void {
    this.entries.delete(botId);
  }
}

/** Roughly what a session holds in memory: its results (UTF-16) and a fixed overhead (its transcript is cached apart). */
function estimateBytes(s: BotSession): number {
  const results = s.qaPairs || s.insights ? JSON.stringify({ q: s.qaPairs, i: s.insights }).length : 0;
  return 2 * results + 2048;
}
