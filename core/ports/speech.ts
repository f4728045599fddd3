// Port: the bot's voice in the room (Polly audio into the Daily call; the local room's speech synthesis locally), and
// the text channel its lines go to when the voice fails.

export type SpeechOutcome = 'done' | 'interrupted';

export interface SayOptions {
  /**
   * The line may be prepared (synthesized) at once but is heard only once this resolves true; false drops it unheard
   * ('interrupted'). A reply started before the participant's silence was long enough to answer.
   */
  startWhen?: Promise<boolean>;
  /**
   * The text is the opening clause of a sentence whose rest comes in the next say() (the bot speaks a reply's first
   * words as soon as they are written): the two are one line of the bot's, and a room that writes each say() into its
   * transcript joins them.
   */
  continues?: boolean;
}

export interface Speech {
  /**
   * Speaks one sentence; resolves when it has been heard, or early with 'interrupted' when stop() cut it off. Rejects
   * when the voice could not produce it (the synthesizer failed): nothing of it was heard.
   */
  say(text: string, options?: SayOptions): Promise<SpeechOutcome>;
  /**
   * Sends one sentence as text to everyone in the room (Daily: an app message in Daily Prebuilt's chat format; the
   * local room: a chat line), for a bot whose voice failed. The line reaches the transcript as if the room had
   * transcribed it (an `utterance` of the bot itself).
   */
  write(text: string): Promise<void>;
  /** Stops speaking at once (barge-in, leaving). */
  stop(): void;
}
