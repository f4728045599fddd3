// Tells Daily's final transcription messages from interim ones. daily-js's `transcription-message`
// (DailyEventObjectTranscriptionMessage, 0.92 index.d.ts) has no finality field: finality is Deepgram's `is_final` in
// `rawResponse`, present only when whoever started the transcription asked for it (`includeRawResponse`,
// https://docs.daily.co/reference/daily-js/instance-methods/start-transcription); the bot always does.
//
// A transcription someone else started may not. Deepgram sends interims only when asked (`interim_results`, default
// off: https://developers.deepgram.com/docs/interim-results), and `transcription-started` announces the settings
// (`extra`): without interims, every unmarked message is final. Otherwise an unmarked message is passed on as interim
// and held as the speaker's pending words: a newer message that begins with the same words (Deepgram restates a
// stretch as it grows) replaces it; one that begins otherwise, or `quietMs` without a newer one, makes it final.

/** daily-js's message, `rawResponse` possibly absent. */
export interface TranscriptMessage {
  participantId: string;
  text: string;
  at: string;
  rawResponse?: Record<string, unknown>;
}

/** The port's `utterance` without the speaker's name. */
export interface JudgedWords {
  participantId: string;
  text: string;
  final: boolean;
  at: string;
  speechFinal?: boolean;
}

/**
 * How long an unmarked message stays pending before it counts as final. Deepgram sends interims about as often as audio
 * arrives (voice-latency.md assumes 250–500 ms): two seconds without a newer one means the speaker stopped.
 */
export const unmarkedQuietMs = 2000;

/** Whether the message says it is final: Deepgram's `is_final` in the raw response; undefined when it does not say. */
export function markedFinality(m: TranscriptMessage): boolean | undefined {
  const raw = m.rawResponse?.is_final;
  return typeof raw === 'boolean' ? raw : undefined;
}

/** Whether a transcription announced with these settings sends interim results (`extra.interim_results`). */
export function sendsInterims(announced: { extra?: Record<string, unknown> }): boolean {
  const v = announced.extra?.interim_results;
  return v === true || v === 'true';
}

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s']/gu, '')
    .split(/\s+/)
    .filter(Boolean);

/** Whether `next` restates `pending` as it grew: the same first word, and every word but its last unchanged. */
function continues(pending: string, next: string): boolean {
  const p = wordsOf(pending);
  const n = wordsOf(next);
  if (!p.length || !n.length || p[0] !== n[0]) return false;
  return p.slice(0, -1).every((w, i) => n[i] === w);
}

export class TranscriptFinality {
  /** Whether the running transcription sends interims: undefined while it was not announced. */
  interims: boolean | undefined;
  private readonly pending = new Map<string, { words: JudgedWords; quiet: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly emit: (w: JudgedWords) => void,
    private readonly quietMs = unmarkedQuietMs,
  ) {}

  message(m: TranscriptMessage): void {
    const words = { participantId: m.participantId, text: m.text, at: m.at };
    const marked = markedFinality(m);
    if (marked !== undefined || this.interims === false) {
      this.settle(m.participantId);
      const final = marked ?? true;
      const speechFinal = m.rawResponse?.speech_final;
      this.emit({ ...words, final, ...(final && typeof speechFinal === 'boolean' && { speechFinal }) });
      return;
    }
    const held = this.pending.get(m.participantId);
    if (held && continues(held.words.text, m.text)) {
      clearTimeout(held.quiet);
      this.pending.delete(m.participantId);
      // The stretch began when its first words were said.
      words.at = held.words.at;
    } else this.settle(m.participantId);
    this.emit({ ...words, final: false });
    this.pending.set(m.participantId, {
      words: { ...words, final: false },
      quiet: setTimeout(() => this.settle(m.participantId), this.quietMs),
    });
  }

  /** The participant's pending words, if any, as final: they stopped, left, or the transcription ended. */
  settle(participantId: string): void {
    const held = this.pending.get(participantId);
    if (!held) return;
    clearTimeout(held.quiet);
    this.pending.delete(participantId);
    this.emit({ ...held.words, final: true });
  }

  settleAll(): void {
    for (const id of [...this.pending.keys()]) this.settle(id);
  }
}
