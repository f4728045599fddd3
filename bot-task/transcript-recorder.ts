// Keeps the bot's transcript safe while it runs: new lines are saved every TRANSCRIPT_FLUSH_MS, in order.
import { liveTranscriptMaxBytes, transcriptText, type Utterance } from '../core/bots/transcript';
import type { Logger } from '../core/log';
import type { SessionsStore } from '../core/ports/sessions-store';
import type { TranscriptStore } from '../core/ports/transcript-store';

export class TranscriptRecorder {
  private readonly lines: Utterance[] = [];
  private saved = 0;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly botId: string,
    private readonly stores: { transcripts: TranscriptStore; sessions: SessionsStore },
    private readonly flushMs: number,
    private readonly log: Logger,
  ) {}

  add(line: Utterance): void {
    this.lines.push(line);
  }

  get utterances(): readonly Utterance[] {
    return this.lines;
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
    await this.flush();
  }

  private async flushOnce(): Promise<void> {
    if (this.saved === this.lines.length) return;
    const batch = this.lines.slice(this.saved);
    try {
      // The sequence number advances only after success, so a retried flush rewrites the same segment.
      await this.stores.transcripts.saveSegment(this.botId, this.seq + 1, batch);
      this.seq++;
      this.saved += batch.length;
    } catch (err) {
      this.log.warn('transcript flush failed; will retry', { err, pending: batch.length });
      throw err;
    }
    // The live copy on the session is a convenience for the status endpoint: its failure loses nothing.
    const text = transcriptText(this.lines);
    if (Buffer.byteLength(text) <= liveTranscriptMaxBytes) {
      await this.stores.sessions.updateRunning(this.botId, { transcript: text }).catch((err) => {
        this.log.warn('live transcript copy not updated', { err });
      });
    }
  }
}
