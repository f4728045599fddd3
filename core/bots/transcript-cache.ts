// What the status view and the transcript endpoint read of a bot's transcript: its segments, caught up incrementally.
// A running bot's entry remembers how far each task's segments were read and asks only for the newer ones (one small
// Query per task), so a client polling through a 3-hour meeting reads each line about once instead of the whole
// transcript per poll; an ended bot's transcript never changes again and is served from memory.
import type { TranscriptStore } from '../ports/transcript-store';
import { BoundedMap } from './bounded-map';
import { type BotSession, currentAttempt } from './session';
import { mergeAttempts, transcriptText, type Utterance } from './transcript';

/** One task's lines as read so far; its last segment is read again on the next refresh (a retried flush grows it). */
interface TaskLines {
  lines: Utterance[];
  lastSeq: number;
  lastCount: number;
}

interface Entry {
  tasks: TaskLines[];
  /** Read after the session ended: complete, never read again. */
  final: boolean;
  checkedAt: number;
  merged?: Utterance[];
  text?: string;
}

/** A bot's transcript as the cache holds it. */
export interface TranscriptView {
  lines: readonly Utterance[];
  /** The "Speaker: text" lines (computed once per change). */
  text(): string;
}

export class TranscriptCache {
  private readonly entries: BoundedMap<Entry>;
  /** Refreshes in flight: concurrent readers of one bot share one. */
  private readonly refreshing = new Map<string, Promise<Entry>>();

  constructor(
    private readonly store: Pick<TranscriptStore, 'segmentsFrom'>,
    /** A running bot's lines are reused this long before the next catch-up read (the status cache's TTL). */
    private readonly runningTtlMs: number,
    maxEntries = 2_000,
    maxBytes = 64 * 1024 * 1024,
  ) {
    this.entries = new BoundedMap(maxEntries, maxBytes);
  }

  /**
   * The session's transcript: every saved line of every task, each once, in order. `maxAgeMs` (default the running
   * TTL) bounds how old a running bot's lines may be; 0 reads whatever was saved since the last read. The session
   * must have been read before this call: when it says ended, the lines read now are all there will be.
   */
  async read(
    session: Pick<BotSession, 'botId' | 'status' | 'replacements' | 'transcriptAt' | 'dataDeletedAt'>,
    nowMs: number,
    maxAgeMs = this.runningTtlMs,
  ): Promise<TranscriptView> {
    // Not marked when it was read: no segment was saved then (the mark is written before any, see BotSession).
    if (session.transcriptAt === null) return noLines;
    // Its data was deleted: whatever this process still holds of it goes too.
    if (session.dataDeletedAt !== undefined) {
      this.entries.delete(session.botId);
      return noLines;
    }
    const cached = this.entries.get(session.botId);
    const entry =
      cached && (cached.final || (session.status === 'running' && nowMs - cached.checkedAt <= maxAgeMs))
        ? cached
        : await this.refresh(session, nowMs);
    // Most recently used last: eviction takes the oldest.
    this.entries.touch(session.botId);
    return view(entry);
  }

  private refresh(
    session: Pick<BotSession, 'botId' | 'status' | 'replacements' | 'transcriptAt'>,
    nowMs: number,
  ): Promise<Entry> {
    const pending = this.refreshing.get(session.botId);
    if (pending) return pending;
    const next = this.catchUp(session, nowMs).finally(() => this.refreshing.delete(session.botId));
    this.refreshing.set(session.botId, next);
    return next;
  }

  private async catchUp(
    session: Pick<BotSession, 'botId' | 'status' | 'replacements' | 'transcriptAt'>,
    nowMs: number,
  ): Promise<Entry> {
    const ended = session.status !== 'running';
    const old = this.entries.get(session.botId);
    const tasks = (old?.tasks ?? []).map((t) => ({ ...t, lines: [...t.lines] }));
    const count = currentAttempt(session) + 1;
    while (tasks.length < count) tasks.push({ lines: [], lastSeq: 0, lastCount: 0 });
    const read = await Promise.all(
      tasks.map((t, attempt) => this.store.segmentsFrom(session.botId, attempt, Math.max(1, t.lastSeq))),
    );
    let changed = !old;
    for (const [attempt, segments] of read.entries()) {
      const task = tasks[attempt]!;
      for (const segment of segments) {
        if (segment.seq < task.lastSeq) continue;
        if (segment.seq === task.lastSeq) {
          if (sameLines(task.lines.slice(task.lines.length - task.lastCount), segment.utterances)) continue;
          task.lines.splice(task.lines.length - task.lastCount);
        }
        task.lines.push(...segment.utterances);
        task.lastSeq = segment.seq;
        task.lastCount = segment.utterances.length;
        changed = true;
      }
    }
    const entry: Entry =
      old && !changed
        ? { ...old, final: ended, checkedAt: nowMs }
        : { tasks, final: ended, checkedAt: nowMs };
    this.entries.set(session.botId, entry, estimateBytes(entry.tasks));
    return entry;
  }
}

const noLines: TranscriptView = { lines: [], text: () => '' };

function view(entry: Entry): TranscriptView {
  entry.merged ??= mergeAttempts(entry.tasks.map((t) => t.lines));
  const lines = entry.merged;
  return {
    lines,
    text: () => {
      entry.text ??= transcriptText(lines);
      return entry.text;
    },
  };
}

function sameLines(a: readonly Utterance[], b: readonly Utterance[]): boolean {
  return (
    a.length === b.length && a.every((u, i) => u.text === b[i]?.text && u.started_at === b[i]?.started_at)
  );
}

/** Roughly what the lines hold in memory (UTF-16 text, twice once the text is built) and a fixed overhead. */
function estimateBytes(tasks: readonly TaskLines[]): number {
  let chars = 0;
  let lines = 0;
  for (const t of tasks) {
    lines += t.lines.length;
    for (const u of t.lines) chars += u.text.length + u.speaker.length + u.participant_id.length;
  }
  return 4 * chars + 200 * lines + 1024;
}
