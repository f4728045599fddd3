// Keeps the bot's transcript safe while it runs: each new line's segment is saved within a moment of being heard (a
// crash loses at most the last quarter second), a TRANSCRIPT_FLUSH_MS timer retrying a failed save, in order. A
// replacement saves its own segments beside the earlier tasks' and reads theirs, so its transcript continues theirs.
import { mergeAttempts, type Utterance } from '../core/bots/transcript';
import type { Logger } from '../core/log';
import type { TranscriptStore } from '../core/ports/transcript-store';

/** A line heard is saved after this short pause, so a burst of lines is one write. */
const saveDelayMs = 250;
/** How long a replacement keeps re-reading the earlier tasks' lines (the one it replaces may still be saving). */
const earlierRefreshMs = 180_000;

export class TranscriptRecorder {
  private readonly lines: Utterance[] = [];
  /** What earlier tasks of the session saved (a replacement's starting point). */
  private earlier: Utterance[][] = [];
  private earlierUntil = 0;
  /** Re-read at most every TRANSCRIPT_FLUSH_MS, not on every save. */
  private earlierReadAt = 0;
  private saved = 0;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private merged: Utterance[] | undefined;
  private marked: Promise<boolean> = Promise.resolve(false);

  constructor(
    private readonly botId: string,
    private readonly stores: { transcripts: Pick<TranscriptStore, 'saveSegment' | 'loadAttempts'> },
    private readonly flushMs: number,
    private readonly log: Logger,
    private readonly attempt = 0,
    /** The lines of each successful save and their positions in the transcript (1 the first): transcript.data. */
    private readonly onSaved?: (lines: { line: Utterance; seq: number }[]) => void,
  ) {}

  /** A replacement reads what the earlier tasks saved (again after joining: the lost one may still be saving). */
  async restore(): Promise<void> {
    if (this.attempt === 0) return;
    this.earlierReadAt = Date.now();
    this.earlier = await this.stores.transcripts.loadAttempts(this.botId, this.attempt);
    this.merged = undefined;
    this.earlierUntil ||= Date.now() + earlierRefreshMs;
  }

  /**
   * The join write, which marks the session's transcript (`transcriptAt`): the first save waits for it and marks the
   * session itself unless it wrote, so no saved line is ever hidden from readers.
   */
  sessionMarked(write: Promise<boolean>): void {
    this.marked = write.then(
      (written) => written,
      () => false,
    );
  }

  add(line: Utterance): void {
    this.lines.push(line);
    this.merged = undefined;
    this.soon ??= setTimeout(
      () => {
        this.soon = undefined;
        void this.flush().catch(() => {});
      },
      Math.min(saveDelayMs, this.flushMs),
    );
  }

  /** The session's transcript as this task knows it: the earlier tasks' lines, then its own, each line once. */
  get utterances(): readonly Utterance[] {
    if (this.earlier.length === 0) return this.lines;
    this.merged ??= mergeAttempts([...this.earlier, this.lines]);
    return this.merged;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush().catch(() => {}), this.flushMs);
  }

  /** Saves the lines added since the last successful flush; flushes never overlap. */
  flush(): Promise<void> {
    // A failed flush must not poison the chain: the next flush retries the same lines.
    const next = this.flushing.catch(() => {}).then(() => this.flushOnce());
    this.flushing = next;
    return next;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.soon);
    this.soon = undefined;
    await this.flush();
  }

  private async flushOnce(): Promise<void> {
    const now = Date.now();
    if (this.attempt > 0 && now < this.earlierUntil && now - this.earlierReadAt >= this.flushMs) {
      await this.restore().catch((err) => this.log.warn('could not re-read the earlier transcript', { err }));
    }
    if (this.saved === this.lines.length) return;
    const batch = this.lines.slice(this.saved);
    try {
      // The sequence number advances only after success, so a retried flush rewrites the same segment.
      const marked = this.seq === 0 && (await this.marked);
      await this.stores.transcripts.saveSegment(this.botId, this.seq + 1, batch, this.attempt, { marked });
      this.seq++;
      this.saved += batch.length;
      if (this.onSaved) {
        // New lines sit at (or, merged with a lost bot's late lines, near) the end: searched from there.
        const all = this.utterances;
        this.onSaved(batch.map((line) => ({ line, seq: all.lastIndexOf(line) + 1 })));
      }
    } catch (err) {
      this.log.warn('transcript flush failed; will retry', { err, pending: batch.length });
      throw err;
    }
  }
}
