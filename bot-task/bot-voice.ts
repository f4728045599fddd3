// The bot's voice in a conversation: speaks a reply piece by piece as the engine writes it, stops the moment it is
// talked over, and never goes mute: a line the voice cannot speak is retried once, then the bot goes on in text only.
import type { SessionWarning } from '../core/bots/session';
import type { Utterance } from '../core/bots/transcript';
import { cutOff } from '../core/conversation/cut-off';
import type { Logger } from '../core/log';
import { metrics } from '../core/metrics';
import { replyPieces, type SpokenPiece } from '../core/ports/conversation-engine';
import type { RoomConnection } from '../core/ports/room-provider';
import type { SpeechOutcome } from '../core/ports/speech';
import { dropped, type Gate } from './held-reply';

interface BotVoiceOptions {
  /** Wait before the one retry of a line the voice could not speak (SPEECH_RETRY_DELAY_MS). */
  speechRetryDelayMs: number;
  /** The voice failed earlier in the session (a replaced bot's warning): text only from the start. */
  textOnly: boolean;
  isStopped: () => boolean;
  /** A wait the conversation's stop cuts short. */
  wait: (ms: number) => Promise<void>;
  onWarning?: (warning: SessionWarning) => void;
}

export class BotVoice {
  /** What the bot itself said (its own words, not the room's transcription of them). */
  readonly spoken: Utterance[] = [];
  private speakingNow = false;
  private interrupted = false;
  private textOnlyNow: boolean;

  constructor(
    private readonly room: RoomConnection,
    private readonly botName: string,
    private readonly log: Logger,
    private readonly options: BotVoiceOptions,
  ) {
    this.textOnlyNow = options.textOnly;
  }

  get speaking(): boolean {
    return this.speakingNow;
  }

  /** The voice failed: the bot's lines go out as text from now on. */
  get textOnly(): boolean {
    return this.textOnlyNow;
  }

  /** Someone talked over the bot: it stops at once. False when it was not speaking. */
  interrupt(): boolean {
    if (!this.speakingNow) return false;
    this.interrupted = true;
    this.room.speech.stop();
    return true;
  }

  /** A line that is not part of the conversation (the holding line): said, not kept among the bot's lines. */
  async sayAside(text: string): Promise<void> {
    this.interrupted = false;
    this.speakingNow = true;
    await this.voice(text);
    this.speakingNow = false;
  }

  /**
   * Speaks what the engine produces piece by piece (replyPieces), each handed to the voice as soon as it is written and
   * held until the one before has been heard: line N+1 is synthesized while line N plays, so there is no gap, and a
   * piece whose line before was cut off is dropped unheard. With a `gate` the first piece is heard only when it opens;
   * a gate cancelled first drops the reply (and stops the engine). Returns whether anything was heard or written.
   */
  async speak(produce: () => AsyncIterable<string>, gate?: Gate): Promise<boolean> {
    if (this.options.isStopped()) return false;
    this.interrupted = false;
    const pieces = replyPieces(produce())[Symbol.asyncIterator]();
    let heard = false;
    /** The piece being heard (or held) while the next is read and prepared. */
    let current: Voiced | undefined;
    /** The last piece that started to be heard: `speaking` holds until it ends. */
    let latest: Voiced | undefined;
    /** An opening clause held back to go out with the rest of its sentence (text only). */
    let carry: string | undefined;
    /** The piece's line was heard to its end; otherwise (cut off, dropped) the reply ends, its line marked cut off. */
    const heardOut = async (piece: Voiced): Promise<boolean> => {
      const outcome = await piece.outcome;
      if (piece.heard && outcome === 'done') return true;
      if (outcome === 'interrupted' && this.spoken.includes(piece.line))
        // Talked over: the engine must not take the words said over it as the answer to this line.
        piece.line.text = cutOff(piece.line.text);
      return false;
    };
    try {
      for (;;) {
        // A held reply whose person goes on is dropped while the model is still thinking; a piece cut off ends it.
        const next = await Promise.race([
          pieces.next(),
          ...(gate ? [gate.dropped] : []),
          ...(current ? [current.outcome.then((o) => (o === 'interrupted' ? cut : never))] : []),
        ]).catch(async (err: unknown) => {
          // The model failed mid-reply: the line playing is heard out before the turn is retried.
          if (current) await heardOut(current);
          throw err;
        });
        if (next === dropped) break;
        if (next === cut) {
          await heardOut(current!);
          break;
        }
        if (this.options.isStopped() || this.interrupted) break;
        // Text only: an opening clause would be a chat message of its own; it goes out with the rest of its sentence.
        let piece: SpokenPiece | undefined = next.done ? undefined : next.value;
        if (carry !== undefined) {
          piece = { text: piece ? `${carry} ${piece.text}` : carry };
          carry = undefined;
        }
        if (!piece) break;
        if (piece.continues && this.textOnlyNow) {
          carry = piece.text;
          continue;
        }
        const before = current;
        const startWhen = before
          ? before.outcome.then(
              (o) => o === 'done' && before.heard && !this.options.isStopped() && !this.interrupted,
            )
          : gate
            ? gate.opened
            : undefined;
        // An opening clause and the rest of its sentence are one line of the bot's (what the engine reads).
        const joined = before?.piece.continues ? before.line : undefined;
        const line: Utterance = joined ?? {
          speaker: this.botName,
          participant_id: this.room.selfId,
          started_at: new Date().toISOString(),
          text: piece.text,
          is_bot: true,
        };
        const voiced: Voiced = { piece, line, heard: false, outcome: Promise.resolve('done') };
        const say = () => {
          this.speakingNow = true;
          latest = voiced;
          voiced.heard = true;
          heard = true;
          if (joined) {
            line.text = `${line.text} ${voiced.piece.text}`;
            return;
          }
          line.started_at = new Date().toISOString();
          this.spoken.push(line);
        };
        if (startWhen) void startWhen.then((go) => go && !this.options.isStopped() && say());
        else say();
        voiced.outcome = this.voice(piece.text, startWhen, piece.continues);
        void voiced.outcome.then(() => {
          if (latest === voiced) this.speakingNow = false;
        });
        current = voiced;
        if (before && !(await heardOut(before))) break;
      }
      if (current) await heardOut(current);
    } finally {
      this.speakingNow = false;
      // Not awaited: a model still thinking ends its stream when it next answers (the engine aborts it then).
      void pieces.return?.(undefined).catch(() => {});
    }
    return heard;
  }

  /** Gets one piece to the room, never throwing: spoken, or sent as text once the voice failed twice (on any line). */
  private async voice(text: string, startWhen?: Promise<boolean>, continues?: true): Promise<SpeechOutcome> {
    for (let attempt = 1; !this.textOnlyNow; attempt++) {
      const go = startWhen?.then((ok) => ok && !this.textOnlyNow);
      const options = { ...(go && { startWhen: go }), ...(continues && { continues }) };
      try {
        const outcome = await this.room.speech.say(text, go || continues ? options : undefined);
        if (outcome === 'interrupted' && this.textOnlyNow && startWhen && (await startWhen)) break;
        return outcome;
      } catch (err) {
        if (this.options.isStopped() || this.interrupted) return 'interrupted';
        if (this.textOnlyNow) break;
        const reason = describe(err);
        if (attempt === 1) {
          metrics.speechFailed('retried');
          this.log.warn('the voice could not speak a line; retrying it once', {
            delay_ms: this.options.speechRetryDelayMs,
            err: reason,
          });
          await this.options.wait(this.options.speechRetryDelayMs);
          if (this.options.isStopped()) return 'interrupted';
          continue;
        }
        this.textOnlyNow = true;
        metrics.speechFailed('text_only');
        this.log.warn('the voice failed twice on a line; the bot goes on in text only', { err: reason });
        this.options.onWarning?.({
          code: 'speech_fallback',
          message: `The bot's voice failed twice on one line (${reason}); it went on in text only, its lines sent as chat messages in the room.`,
        });
      }
    }
    if (startWhen && !(await startWhen)) return 'interrupted';
    try {
      await this.room.speech.write(text);
    } catch (err) {
      this.log.error('could not send a line as text either; the room did not get it', { err: describe(err) });
    }
    return 'done';
  }
}

/** A piece of the reply was cut off while the next was awaited. */
const cut = Symbol('cut');
const never = new Promise<never>(() => {});

interface Voiced {
  piece: SpokenPiece;
  /** The bot's line it belongs to (an opening clause and the rest of its sentence share one). */
  line: Utterance;
  heard: boolean;
  outcome: Promise<SpeechOutcome>;
}

/** A failure in a few words for logs and warnings (the vendor's error name and message, bounded). */
export function describe(err: unknown): string {
  const text = (err instanceof Error ? err.message || err.name : String(err)).replace(/\.$/, '');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
