// Tells Daily's final transcription messages from interim ones (the page's `transcription-message`, harness.ts).
//
// daily-js declares the message as `{ instanceId?, trackType?, participantId, text, timestamp, rawResponse }`
// (DailyEventObjectTranscriptionMessage, @daily-co/daily-js 0.92 index.d.ts): no finality field of its own. Finality
// is Deepgram's `is_final`, inside `rawResponse`, which Daily includes only when whoever started the transcription asked
// for it (`includeRawResponse`, https://docs.daily.co/reference/daily-js/instance-methods/start-transcription); the
// bot always does. (Daily's older transcription app-message carried an `is_final` of its own, now deprecated on
// daily-react's `Transcription` type, daily-co/daily-react src/DailyTranscriptions.tsx; daily-js declares no such
// field on `transcription-message`, so it is not read.)
//
// A transcription someone else started may send neither. Deepgram sends interim results only when asked
// (`interim_results`, default off: https://developers.deepgram.com/docs/interim-results), and Daily announces the
// settings with `transcription-started` (its `extra`): without interims, every unmarked message is final. With them,
// or when nobody announced the settings, an unmarked message cannot say what it is, and taking each as final would put
// every interim in the transcript. Then the judge passes it on as interim and holds it as the speaker's pending words:
// Deepgram's interims of one stretch of speech restate it as it grows, so a newer message that begins with the same
// words replaces it, and one that begins otherwise (the next stretch) or `quietMs` without a newer one (the speaker
// stopped) makes it final.

/** A transcription message as the judge reads it: daily-js's fields, `rawResponse` possibly absent. */
export interface TranscriptMessage {
  participantId: string;
  text: string;
  /** When the words were said (ISO 8601). */
  at: string;
  rawResponse?: Record<string, unknown>;
}

/** Words as the page reports them (the port's `utterance` without the speaker's name). */
export interface JudgedWords {
  participantId: string;
  text: string;
  final: boolean;
  at: string;
  speechFinal?: boolean;
}

/**
 * How long an unmarked message stays the speaker's pending words before it counts as final. Deepgram sends interims
 * about as often as audio arrives (voice-latency.md assumes 250–500 ms) and finalizes after a pause: two seconds
 * without a newer message means the speaker stopped, not that an interim is late.
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
  /**
   * Whether the running transcription sends interims: known from its announcement (`transcription-started`), unknown
   * (undefined) while messages arrive unannounced.
   */
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

  /** Everyone's pending words as final. */
  settleAll(): void {
    for (const id of [...this.pending.keys()]) this.settle(id);
  }
}
