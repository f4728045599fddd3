// Port: a bot's transcript as saved segments, one per flush, so a crash loses only the last.
import type { Utterance } from '../bots/transcript';

export interface TranscriptStore {
  /** Saves one flush's lines under its sequence number; a retried flush overwrites itself. */
  saveSegment(botId: string, seq: number, utterances: Utterance[]): Promise<void>;
  /** Every saved line, in order. */
  load(botId: string): Promise<Utterance[]>;
}
