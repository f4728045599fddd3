// Port: a bot's transcript as saved segments, one per flush, so a crash loses only the last. The segments are the
// transcript's only copy (ARCHITECTURE.md, storage): the status view, the transcript endpoint and the results stage
// all read them.
import type { Utterance } from '../bots/transcript';
import type { PurgeCursor } from './data-deletions';

/** One saved flush: its number within its task's segments (1 the first) and its lines. */
export interface Segment {
  seq: number;
  utterances: Utterance[];
}

export interface TranscriptStore {
  /**
   * Saves one flush's lines under its sequence number, numbered per task of the session (`attempt`: 0 the first,
   * n the n-th replacement); a retried flush overwrites itself. A task's first segment marks the session first
   * (`transcriptAt`, what tells readers there may be segments), unless `marked`: the caller knows the session holds
   * the mark already (the bot's join write set it).
   */
  saveSegment(
    botId: string,
    seq: number,
    utterances: Utterance[],
    attempt?: number,
    options?: { marked?: boolean },
  ): Promise<void>;
  /** Every saved line of every task, in order, each once (mergeAttempts). */
  load(botId: string): Promise<Utterance[]>;
  /** The lines each task saved before `beforeAttempt` (all by default), by attempt, each in its saved order. */
  loadAttempts(botId: string, beforeAttempt?: number): Promise<Utterance[][]>;
  /**
   * The segments task `attempt` saved numbered `fromSeq` or later, in order: what a reader that has the earlier ones
   * needs to catch up (strongly consistent, so a segment saved before the call is in it).
   */
  segmentsFrom(botId: string, attempt: number, fromSeq: number): Promise<Segment[]>;
  /**
   * Deletes one page of the session's saved segments (the meeting's data deletion), from `from`: where the next page
   * starts, or undefined when none is left. Each call is bounded (a page), so a deletion can stop between two.
   */
  purgePage(botId: string, from?: PurgeCursor): Promise<PurgeCursor | undefined>;
}
