// Port: a bot's transcript as saved segments, one per flush, so a crash loses only the last.
import type { Utterance } from '../bots/transcript';

export interface TranscriptStore {
  /**
   * Saves one flush's lines under its sequence number, numbered per task of the session (`attempt`: 0 the first,
   * n the n-th replacement); a retried flush overwrites itself.
   */
  saveSegment(botId: string, seq: number, utterances: Utterance[], attempt?: number): Promise<void>;
  /** Every saved line of every task, in order, each once (mergeAttempts). */
  load(botId: string): Promise<Utterance[]>;
  /** The lines each task saved before `beforeAttempt` (all by default), by attempt, each in its saved order. */
  loadAttempts(botId: string, beforeAttempt?: number): Promise<Utterance[][]>;
}
