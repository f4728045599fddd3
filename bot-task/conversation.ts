// Turn-taking: the bot greets once someone is there to hear it, then speaks only after a participant has finished (their
// words plus a silence whose length depends on how the words end: core/conversation/turn-taking.ts), sentence by
// sentence as the engine streams, and stops the moment someone talks over it (barge-in). To answer sooner the
// reply is started while that silence runs, on the final words or on stable interim words that end a sentence:
// the model and the voice work meanwhile, the audio is held until the silence is long enough, and the reply is dropped
// unheard when the person goes on. A model engine may also judge from the meaning that the person is not done (cut
// off, or thinking): the held reply is then dropped unheard, and asked again, to be answered, if the silence runs on.
// It never goes mute when something outside fails: a failed model turn is retried with backoff after one
// neutral line, and after CONVERSATION_MODEL_MAX_FAILURES in a row the local engine finishes the interview; a line the
// voice cannot speak is retried once, then the bot goes on in text only. Each fallback is a session warning.
import type { SessionWarning } from '../core/bots/session';
import type { Utterance } from '../core/bots/transcript';
import type { Config } from '../core/config';
import { turnContextOf } from '../core/conversation/answer-completeness';
import {
  endingOf,
  endOfTurnWaitMs,
  readsMeaning,
  type TurnTakingSettings,
  turnTakingDefaults,
} from '../core/conversation/turn-taking';
import { LocalConversationEngine } from '../core/engines/rules/conversation/local-engine';
import { isAcknowledgement } from '../core/engines/rules/insights/text';
import type { Logger } from '../core/log';
import { metrics } from '../core/metrics';
import type { ConversationEngine, UnfinishedTurn } from '../core/ports/conversation-engine';
import type { RoomConnection, RoomEvents } from '../core/ports/room-provider';
import { backoffMs } from '../core/retry';
import { BotVoice, describe } from './bot-voice';
import { Gate, type PendingTurn, wordsOf } from './held-reply';

/** Said once when the model fails, while the bot retries: the people in the room hear that it is still there. */
export const holdingLine = 'Sorry, give me a moment.';

/** The turn-taking part of the settings, from the deployment's configuration (the bot and the voice bench alike). */
export function turnTakingSettings(
  config: Pick<
    Config,
    | 'END_OF_TURN_SILENCE_MS'
    | 'END_OF_TURN_MODE'
    | 'END_OF_TURN_COMPLETE_MS'
    | 'END_OF_TURN_INCOMPLETE_MS'
    | 'SPECULATIVE_START'
    | 'SPECULATIVE_START_STABLE_MS'
    | 'TRANSCRIPTION_ENDPOINTING_MS'
  >,
): Pick<ConversationSettings, 'endOfTurnMs' | 'turnTaking' | 'speculativeStartMs' | 'heardSilenceMs'> {
  return {
    endOfTurnMs: config.END_OF_TURN_SILENCE_MS,
    heardSilenceMs: config.TRANSCRIPTION_ENDPOINTING_MS,
    turnTaking: {
      mode: config.END_OF_TURN_MODE,
      completeMs: config.END_OF_TURN_COMPLETE_MS,
      incompleteMs: config.END_OF_TURN_INCOMPLETE_MS,
    },
    ...(config.SPECULATIVE_START && { speculativeStartMs: config.SPECULATIVE_START_STABLE_MS }),
  };
}

export interface ConversationSettings {
  botName: string;
  prompt?: string;
  greeting?: string;
  /**
   * Said before the greeting, and posted as a chat message, to the first person in the room: the recording notice
   * (bot_config.recording_notice_text). A replacement continuing the conversation does not say it again.
   */
  notice?: string;
  /**
   * This task replaces a bot lost mid-meeting (its task attempt is past the first). When the lost bot had spoken, this
   * one opens by apologising for the gap and goes on where the conversation stands (the engine's greeting with
   * `rejoining`), instead of greeting again.
   */
  replacement?: boolean;
  /**
   * Silence after a participant's final words before the bot answers when the words neither clearly end nor clearly
   * go on (END_OF_TURN_SILENCE_MS); with `turnTaking.mode` `fixed`, after any words.
   */
  endOfTurnMs: number;
  /**
   * The silence the transcription had already heard when it marked words `speechFinal` (its endpointing,
   * TRANSCRIPTION_ENDPOINTING_MS): part of the end-of-turn silence, which runs from the end of the words, not from
   * the arrival of their transcript. Undefined: the silence is counted from the final words' arrival.
   */
  heardSilenceMs?: number;
  /** The rest of the end-of-turn rule (END_OF_TURN_*; defaults: turnTakingDefaults). */
  turnTaking?: Partial<Omit<TurnTakingSettings, 'unclearMs'>>;
  /**
   * An interim transcript that ends a sentence and stays unchanged this long starts the reply (its audio still waits
   * for the final words and the silence): SPECULATIVE_START_STABLE_MS. Undefined: replies start on final words only.
   */
  speculativeStartMs?: number;
  /** Told when a held reply is started, released to be heard, or dropped unheard (benchmarks). */
  onTurn?: (event: 'started' | 'released' | 'cancelled') => void;
  /** Consecutive failed turns of the model before the fallback engine takes over (CONVERSATION_MODEL_MAX_FAILURES). */
  maxModelFailures?: number;
  /** Wait before the first retry of a failed turn, doubling after each (CONVERSATION_RETRY_BACKOFF_MS). */
  retryBackoffMs?: number;
  /** Wait before the one retry of a line the voice could not speak (SPEECH_RETRY_DELAY_MS). */
  speechRetryDelayMs?: number;
}

/** What the controller falls back to, and whom it tells. */
export interface ConversationFallbacks {
  /** Finishes the interview when the model keeps failing (default: the local engine, which needs nothing outside). */
  engine?: ConversationEngine;
  /** A fallback was taken: the session's warning (bot-task/session-warnings.ts records, counts and logs it). */
  onWarning?: (warning: SessionWarning) => void;
  /**
   * The session's warnings so far: a replacement task continues the session as the lost bot left it, so a fallback
   * taken before (the local engine, text only) holds for the rest of the session here too.
   */
  inForce?: readonly SessionWarning[];
}

/**
 * Someone's audio with no words yet stops the bot after this long. Words decide sooner: words that only acknowledge
 * ("sure", "mm-hmm") let the bot finish, any other stops it at once; audio the transcription does not turn into words
 * within this time (a cough, a word it missed) stops it too. Daily's transcription sends its first interim words
 * about 300–700 ms into speech.
 */
export const wordlessBargeInMs = 1_000;

/**
 * The silence after the words of someone the engine judged to be thinking (or who asked for time) before it is asked
 * again, told they stopped. Past the incomplete wait a thought cut off mid-sentence gets (a pause inside a sentence),
 * short enough that a person who is stuck does not sit in dead air: a few seconds is what a question like "take your
 * time, or shall I rephrase?" feels natural after. (Pipecat's example waits 15 s; ours is an interview, which moves on.)
 */
export const thinkingPauseMs = 5_000;

/** The configuration's defaults (core/config.ts), for controllers built without it (tests, benchmarks). */
const resilienceDefaults = { maxModelFailures: 3, retryBackoffMs: 1_000, speechRetryDelayMs: 500 };

type TurnKind = 'greet' | 'reply';

export class ConversationController {
  /** The reply started for what a participant said, held until their silence is long enough (or dropped). */
  private pending: PendingTurn | undefined;
  /** Waits for an interim transcript to stay unchanged (speculativeStartMs). */
  private stableTimer: NodeJS.Timeout | undefined;
  /** Interim words not yet final, shown to the engine as the participant's line by a reply started on them. */
  private provisional: Utterance | undefined;
  private readonly turnTaking: TurnTakingSettings;
  /** Words the engine judged unfinished, and the timer that asks it again if the person stays silent. */
  private unfinished: { words: string; timer: NodeJS.Timeout } | undefined;
  /** When the participants' latest words arrived: the wait for an unfinished thought runs from there. */
  private lastWordsAt = 0;
  private stopped = false;
  private turn: Promise<void> = Promise.resolve();
  /** How many of the participants' lines had been heard when a reply was last asked of an engine. */
  private repliedUpTo = 0;
  /** Lines of the bot from before this controller (a replaced task continuing a transcript) come from `heard`. */
  private readonly startedAt = new Date().toISOString();
  /** The notice (settings.notice) was given, or is not this controller's to give. */
  private noticeGiven = false;
  /**
   * This controller continues a lost bot's conversation (settings.replacement, and the lost bot had spoken): its
   * opening turn is the engine's greeting with `rejoining`.
   */
  private rejoining = false;
  /** Someone's audio is active while the bot speaks, and no words of theirs came yet: stops the bot when it fires. */
  private wordlessAudio: NodeJS.Timeout | undefined;
  /** The model's failed turns since its last success. */
  private modelFailures = 0;
  /** The model failed too often: the fallback engine speaks for the rest of the session. */
  private onFallbackEngine = false;
  /** Pending backoff waits, ended at once by stop(). */
  private readonly waits = new Set<() => void>();
  private readonly fallbackEngine: ConversationEngine;
  /** The bot's voice: its lines, spoken or (after the voice failed) written. */
  private readonly voice: BotVoice;
  private readonly resilience: typeof resilienceDefaults;

  constructor(
    private readonly room: RoomConnection,
    private readonly engine: ConversationEngine,
    private readonly settings: ConversationSettings,
    /** The participants' lines so far (the transcript recorder's). */
    private readonly heard: () => readonly Utterance[],
    private readonly log: Logger,
    private readonly fallbacks: ConversationFallbacks = {},
  ) {
    this.fallbackEngine = fallbacks.engine ?? new LocalConversationEngine();
    const inForce = new Set(fallbacks.inForce?.map((w) => w.code));
    this.onFallbackEngine = inForce.has('conversation_model_fallback');
    this.voice = new BotVoice(room, settings.botName, log, {
      speechRetryDelayMs: settings.speechRetryDelayMs ?? resilienceDefaults.speechRetryDelayMs,
      textOnly: inForce.has('speech_fallback'),
      isStopped: () => this.stopped,
      wait: (ms) => this.wait(ms),
      ...(fallbacks.onWarning && { onWarning: fallbacks.onWarning }),
    });
    const rule = { ...turnTakingDefaults, ...settings.turnTaking };
    // A finished sentence never waits longer than unclear words, words that go on never shorter.
    this.turnTaking = {
      ...rule,
      unclearMs: settings.endOfTurnMs,
      completeMs: Math.min(rule.completeMs, settings.endOfTurnMs),
      incompleteMs: Math.max(rule.incompleteMs, settings.endOfTurnMs),
    };
    this.resilience = {
      maxModelFailures: settings.maxModelFailures ?? resilienceDefaults.maxModelFailures,
      retryBackoffMs: settings.retryBackoffMs ?? resilienceDefaults.retryBackoffMs,
      speechRetryDelayMs: settings.speechRetryDelayMs ?? resilienceDefaults.speechRetryDelayMs,
    };
  }

  start(): void {
    this.room.on('utterance', (u) => {
      if (u.participantId === this.room.selfId || this.stopped) return;
      // Words decide: "sure", "mm-hmm" over the bot let it finish; anything else stops it.
      if (isAcknowledgement(u.text)) this.forgetWordlessAudio();
      else this.bargeIn();
      this.heardWords(u);
    });
    this.room.on('audio-activity', (a) => {
      if (a.participantId === this.room.selfId || !a.active || this.stopped) return;
      if (this.voice.speaking && !this.wordlessAudio)
        this.wordlessAudio = setTimeout(() => this.bargeIn(), wordlessBargeInMs);
      // Someone is talking: a reply held for their silence waits longer (their words, if any, drop it when they come).
      const turn = this.pending;
      if (turn?.gate.state === 'waiting') {
        turn.notBefore = Date.now() + this.turnTaking.unclearMs;
        this.scheduleRelease(turn);
      }
    });
    this.greetWhenSomeoneIsThere();
  }

  /**
   * A participant's words. New words drop a held reply (the person goes on); final words start one (or keep the one
   * started on the same interim words) and set when it may be heard.
   */
  private heardWords(u: RoomEvents['utterance']): void {
    const words = wordsOf(u.text);
    if (!words) return;
    clearTimeout(this.stableTimer);
    this.lastWordsAt = Date.now();
    // The same words the engine judged unfinished (their final after the interim): the wait for the rest goes on.
    if (this.unfinished?.words === words) {
      if (u.final) this.provisional = undefined;
      return;
    }
    this.forgetUnfinished();
    const held = this.pending?.gate.state === 'waiting' ? this.pending : undefined;
    if (held && held.words !== words) this.cancelPending();
    if (!u.final) {
      this.provisional = {
        speaker: u.name,
        participant_id: u.participantId,
        started_at: u.at,
        text: u.text.trim(),
      };
      const stableMs = this.settings.speculativeStartMs;
      if (stableMs !== undefined && this.pending?.gate.state !== 'waiting' && endingOf(u.text) === 'complete')
        this.stableTimer = setTimeout(() => this.startReply(words), stableMs);
      return;
    }
    this.provisional = undefined;
    const turn = this.pending?.gate.state === 'waiting' ? this.pending : this.startReply(words);
    turn.releaseAt = Date.now() + this.silenceStillToWait(u);
    this.scheduleRelease(turn);
  }

  /**
   * How much longer the silence after final words must run before the reply is heard. The wait is silence since the
   * words ended; words marked speechFinal (Deepgram's speech_final) come only after its endpointing silence, which
   * counts. The transcription's own latency does not: it is unknown, so the person gets that much more silence.
   */
  private silenceStillToWait(u: RoomEvents['utterance']): number {
    // What was asked and the answer so far (built only for a rule that reads it): an answer that has not yet
    // answered waits the long silence.
    const context = readsMeaning(this.turnTaking)
      ? turnContextOf(this.context().transcript, u.text, u.participantId)
      : undefined;
    const waitMs = endOfTurnWaitMs(u.text, this.turnTaking, context);
    // The transcription heard the speaker go on (speech_final false): their silence is not one yet.
    if (u.speechFinal === false) return Math.max(waitMs, this.turnTaking.unclearMs);
    if (u.speechFinal === true) return Math.max(0, waitMs - (this.settings.heardSilenceMs ?? 0));
    return waitMs;
  }

  /** Starts a reply whose audio waits for its release (set by the final words). */
  private startReply(words: string, stoppedMidThought?: true): PendingTurn {
    const turn: PendingTurn = {
      words,
      gate: new Gate(),
      notBefore: 0,
      ...(stoppedMidThought && { stoppedMidThought }),
    };
    this.pending = turn;
    this.settings.onTurn?.('started');
    this.enqueue('reply', turn);
    return turn;
  }

  private scheduleRelease(turn: PendingTurn): void {
    clearTimeout(turn.timer);
    if (turn.releaseAt === undefined) return;
    const at = Math.max(turn.releaseAt, turn.notBefore);
    turn.timer = setTimeout(
      () => {
        if (turn.gate.open()) this.settings.onTurn?.('released');
      },
      Math.max(0, at - Date.now()),
    );
  }

  /** The held reply is dropped unheard (the person went on, or the bot stops). */
  private cancelPending(): void {
    const turn = this.pending;
    if (!turn) return;
    clearTimeout(turn.timer);
    if (turn.gate.cancel()) this.settings.onTurn?.('cancelled');
    this.pending = undefined;
  }

  /**
   * The engine judged the person not done: the reply held for them is dropped unheard, and if they stay silent past
   * the wait for what they need (a thought cut off: the incomplete wait; thinking: thinkingPauseMs), it is asked again,
   * told they stopped, and answers. Words meanwhile start a reply as usual.
   */
  private awaitRest(turn: PendingTurn, wait: UnfinishedTurn): void {
    if (this.pending !== turn || this.stopped) return;
    this.cancelPending();
    const silenceMs = Math.max(this.turnTaking.incompleteMs, wait === 'long' ? thinkingPauseMs : 0);
    const timer = setTimeout(
      () => {
        this.unfinished = undefined;
        const again = this.startReply(turn.words, true);
        again.releaseAt = Date.now();
        this.scheduleRelease(again);
      },
      Math.max(0, this.lastWordsAt + silenceMs - Date.now()),
    );
    this.unfinished = { words: turn.words, timer };
  }

  private forgetUnfinished(): void {
    clearTimeout(this.unfinished?.timer);
    this.unfinished = undefined;
  }

  /**
   * The greeting is for people: a bot that joined an empty room (it often joins before anyone) waits for the first
   * human instead of greeting nobody; other bots and recorders do not count.
   */
  private greetWhenSomeoneIsThere(): void {
    // A replacement whose lost bot had spoken continues that conversation: its opening is the engine's greeting with
    // `rejoining` (an apology for the gap, then where things stand), and the notice was given already. A first bot
    // greets, whatever bot lines (the recording notice) the transcript holds.
    const resuming = this.settings.replacement === true && this.heard().some((u) => u.is_bot);
    this.rejoining = resuming;
    if (resuming) {
      this.noticeGiven = true;
      this.log.info('continuing the conversation of the bot this one replaces');
    }
    let greeted = false;
    const greet = () => {
      if (greeted || this.stopped) return;
      greeted = true;
      this.enqueue('greet');
    };
    this.room.on('participant-joined', (p) => {
      if (!p.isBot && p.participantId !== this.room.selfId) greet();
    });
    if (this.room.participants().some((p) => !p.isBot && p.participantId !== this.room.selfId)) greet();
    else this.log.info('room is empty; the greeting waits for the first participant');
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.stableTimer);
    this.forgetWordlessAudio();
    this.forgetUnfinished();
    this.cancelPending();
    for (const end of this.waits) end();
    this.room.speech.stop();
  }

  private bargeIn(): void {
    this.forgetWordlessAudio();
    if (this.voice.interrupt()) this.log.info('barge-in: stopped speaking');
  }

  /** Words came (or the bot stops): audio no longer waits to be judged without them. */
  private forgetWordlessAudio(): void {
    clearTimeout(this.wordlessAudio);
    this.wordlessAudio = undefined;
  }

  /**
   * The conversation as the engine reads it: the participants' lines, and the bot's own words (cut-off lines
   * marked, see core/conversation/cut-off.ts). The bot's lines from before this process, e.g. a replaced task
   * whose transcript was restored, are taken from `heard`; the engines derive where they stand from them.
   */
  private context() {
    // The holding line is not part of the conversation: an engine reading it would take it for its own question.
    const earlier = (u: Utterance) => !u.is_bot || (u.started_at < this.startedAt && u.text !== holdingLine);
    // Interim words a reply was started on count as said (the final words, when they come, are the same).
    const provisional = this.provisional ? [this.provisional] : [];
    const transcript = [...this.heard().filter(earlier), ...this.voice.spoken, ...provisional].sort((a, b) =>
      a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0,
    );
    return {
      botName: this.settings.botName,
      prompt: this.settings.prompt,
      greeting: this.settings.greeting,
      participants: this.room
        .participants()
        .filter((p) => !p.isBot && p.participantId !== this.room.selfId)
        .map((p) => p.name),
      transcript,
      ...(this.rejoining && { rejoining: true }),
    };
  }

  private participantLines(): number {
    return this.heard().filter((u) => !u.is_bot).length + (this.provisional ? 1 : 0);
  }

  /** One turn at a time: a reply never starts while the previous one is still being spoken. */
  private enqueue(kind: TurnKind, held?: PendingTurn): void {
    this.turn = this.turn
      .then(() => this.take(kind, held))
      .catch((err) => this.log.warn('conversation turn failed; listening', { err }));
  }

  /**
   * One turn, from the model while it works. A failed turn (at start, mid-reply, or past its time budget; the engine
   * has already retried a busy model within the turn) is tried again after a backoff, with the conversation as it
   * then stands; the first failure of a streak is covered by the holding line. After `maxModelFailures` in a row the
   * fallback engine answers this turn and every later one. A success ends the streak.
   */
  private async take(kind: TurnKind, held?: PendingTurn): Promise<void> {
    const gate = held?.gate;
    if (gate?.state === 'cancelled') return;
    // Replies queued while a turn was retrying (a failing model backs off for seconds) would each be answered in a
    // row once it recovers, though the retried turn already read what they were queued for: a reply with nothing new
    // heard since the last attempt is dropped.
    if (kind === 'reply' && this.participantLines() > 0 && this.participantLines() <= this.repliedUpTo)
      return;
    if (kind === 'greet') await this.giveNotice();
    for (;;) {
      if (this.stopped) return;
      const engine = this.onFallbackEngine ? this.fallbackEngine : this.engine;
      const repliedBefore = this.repliedUpTo;
      if (kind === 'reply') this.repliedUpTo = this.participantLines();
      let unfinished: UnfinishedTurn | undefined;
      const judged = held?.stoppedMidThought
        ? { stoppedMidThought: true }
        : held && { onUnfinished: (wait: UnfinishedTurn) => (unfinished = wait) };
      try {
        const heard = await this.voice.speak(() => engine[kind]({ ...this.context(), ...judged }), gate);
        // The apology of a replacement's opening is said once; its later turns are ordinary replies.
        if (kind === 'greet') this.rejoining = false;
        // Dropped unheard: it answered nothing, and what the person goes on to say is answered instead.
        if (!heard) this.repliedUpTo = repliedBefore;
        if (unfinished && held) this.awaitRest(held, unfinished);
        if (this.modelFailures > 0 && !this.onFallbackEngine) {
          this.log.info('conversation model answered again', { kind, failures: this.modelFailures });
          this.modelFailures = 0;
        }
        return;
      } catch (err) {
        if (this.stopped || this.onFallbackEngine) throw err;
        this.modelFailures++;
        const failures = this.modelFailures;
        const reason = describe(err);
        metrics.conversationModelFailed(errorCode(err));
        if (failures >= this.resilience.maxModelFailures) {
          this.onFallbackEngine = true;
          this.log.warn('conversation model failed; the local engine finishes the interview', {
            kind,
            failures,
            err: reason,
          });
          this.fallbacks.onWarning?.({
            code: 'conversation_model_fallback',
            message: `The conversation model failed ${failures} times in a row (last: ${reason}); the bot finished the interview with the local engine, which asks the prompt's questions without a model.`,
          });
          continue;
        }
        const delayMs = backoffMs(failures - 1, { baseMs: this.resilience.retryBackoffMs });
        this.log.warn('conversation model failed; retrying the turn', {
          kind,
          failures,
          delay_ms: delayMs,
          err: reason,
        });
        const waited = this.wait(delayMs);
        // A held reply waits for its release before the room hears anything of it, the holding line included.
        if (gate && !(await gate.opened)) return;
        if (failures === 1) await this.voice.sayAside(holdingLine);
        await waited;
      }
    }
  }

  /**
   * The notice, before anything else the bot says: spoken (in the transcript as the bot's line, like all it says) and
   * posted in the room's chat, so someone without sound sees it too. A chat that fails is logged, never fatal.
   */
  private async giveNotice(): Promise<void> {
    const notice = this.settings.notice;
    if (!notice || this.noticeGiven || this.stopped) return;
    this.noticeGiven = true;
    await this.voice.speak(async function* () {
      yield notice;
    });
    // In text-only mode the line above was already posted as text.
    if (this.voice.textOnly || !this.room.post) return;
    await this.room.post(notice).catch((err) => this.log.warn('the notice could not be posted', { err }));
  }

  /** A backoff that stop() cuts short. */
  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.waits.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.waits.add(end);
    });
  }
}

/** The engine's error code (ConversationError's model_throttled, model_error, model_timeout) as a metric dimension. */
function errorCode(err: unknown): string {
  const code = err && typeof err === 'object' && 'code' in err ? err.code : undefined;
  return typeof code === 'string' ? code : 'unknown';
}
