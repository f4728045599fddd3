// A reply held for a person's silence: started on their words, heard only once the silence is long enough (its
// gate opens), dropped unheard when they go on (its gate is cancelled). The conversation controller holds one at a
// time; the bot's voice waits on its gate.

/** What Gate.dropped resolves to. */
export const dropped = Symbol('dropped');

/** Opens once a held reply may be heard, or is cancelled (then it never is). */
export class Gate {
  state: 'waiting' | 'open' | 'cancelled' = 'waiting';
  /** true once opened, false once cancelled. */
  readonly opened: Promise<boolean>;
  /** Resolves only when cancelled. */
  readonly dropped: Promise<typeof dropped>;
  private settle: (go: boolean) => void = () => {};

  constructor() {
    this.opened = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.dropped = this.opened.then((go) => (go ? new Promise<never>(() => {}) : dropped));
  }

  open(): boolean {
    if (this.state !== 'waiting') return false;
    this.state = 'open';
    this.settle(true);
    return true;
  }

  cancel(): boolean {
    if (this.state !== 'waiting') return false;
    this.state = 'cancelled';
    this.settle(false);
    return true;
  }
}

/** A reply started for a participant's words and held until their silence is long enough. */
export interface PendingTurn {
  /** The words it answers (wordsOf): other words drop it. */
  words: string;
  gate: Gate;
  /** When it may be heard: set by the final words (their end-of-turn wait). */
  releaseAt?: number;
  /** Not before this (someone's audio was active meanwhile). */
  notBefore: number;
  timer?: NodeJS.Timeout;
  /** Asked after the person left a thought unfinished and stayed silent: the engine answers without judging again. */
  stoppedMidThought?: true;
}

/** The words of a transcript, without case or punctuation: a final that only adds a period is the same words. */
export function wordsOf(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).join(' ');
}
