// Port: the bot's voice in the room (Polly audio into the Daily call; the local room's speech synthesis locally).

export type SpeechOutcome = 'done' | 'interrupted';

export interface Speech {
  /** Speaks one sentence; resolves when it has been heard, or early with 'interrupted' when stop() cut it off. */
  say(text: string): Promise<SpeechOutcome>;
  /** Stops speaking at once (barge-in, leaving). */
  stop(): void;
}
