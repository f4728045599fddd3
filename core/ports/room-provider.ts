// Port: how the bot joins a room and hears it, named for the domain (participants, utterances, activity).

import type { JoinErrorCode, JoinErrorType } from '../schemas/webhooks';
import type { VoiceId } from '../voices';
import type { Speech } from './speech';

export interface RoomParticipant {
  participantId: string;
  name: string;
  /** Another bot or recorder (when the provider can tell): not a human the bot waits for. */
  isBot?: boolean;
}

export interface RoomEvents {
  'participant-joined': RoomParticipant;
  'participant-left': { participantId: string };
  /**
   * A transcription result; only `final` ones enter the transcript. `speechFinal`: the transcription service says the
   * speaker stopped (true) or went on (false) after these words (Deepgram's speech_final,
   * https://developers.deepgram.com/docs/understand-endpointing-interim-results); absent when it does not say.
   */
  utterance: {
    participantId: string;
    name: string;
    text: string;
    final: boolean;
    at: string;
    speechFinal?: boolean;
  };
  /** Someone's audio is active (the idle timer and barge-in read it). */
  'audio-activity': { participantId: string; active: boolean };
  /**
   * The provider's audio levels arrive, loud or quiet (at most about once a second; providers that measure no levels
   * never send it): what tells a silent room from levels that are missing (audio-activity-fallback.ts).
   */
  'audio-levels': Record<string, never>;
  /**
   * The room's transcription, which everything the bot hears comes from. `running`: it runs, started by
   * the bot or already running when it joined (`ours` says which: the bot stops only its own when it leaves).
   * `failed`: it could not start or stopped with an error; `reason` is the provider's words. The provider keeps
   * trying to start it again; how long the bot waits is the bot's business (TRANSCRIPTION_RECOVERY_MS).
   * `stopped`: a person who stays in the room stopped it, their decision: not started again (a stopper who leaves
   * soon after was a departing bot: the provider restarts it, reporting `failed` meanwhile). A listener added late is
   * told the latest state at once.
   */
  transcription: { state: 'running' | 'failed' | 'stopped'; reason: string; ours?: boolean };
  /**
   * The bot is out of the room without having asked to leave (never after `leave()`), at most once per connection.
   * `kind` says what happened, so the bot can decide how to end; `reason` is the provider's words, for
   * logs and error_message.
   */
  disconnected: { kind: DisconnectKind; reason: string };
}

/**
 * Why the bot is out of the room without having left:
 * - `ejected`: the room removed the bot while the meeting goes on: its owner ejected it (Daily `ejected`, the local
 *   room's eject route), or the room's rules no longer admit it (Daily `not-allowed`, `exp-token`, `nbf-token`,
 *   `meeting-full`). Others may still be there.
 * - `room_ended`: the meeting is over: the room was deleted, closed or expired, or Daily ended the call (`no-room`,
 *   `exp-room`, `nbf-room`, `end-of-life`, `ejected` with "Meeting has ended"), so there is nobody to talk to. Daily
 *   says "Meeting has ended" for the bot's own token's time limit too (disconnect-kinds.ts): over for the bot, then.
 * - `connection_lost`: the connection to the room is gone for good after the provider's own reconnection attempts
 *   (Daily `connection-error`, or the call ending for a reason daily-js does not name; the local room's socket
 *   closing or failing unexpectedly). A transient interruption the provider recovers from is not a disconnection.
 * - `crashed`: the bot's own browser or page crashed or exited (Daily provider only).
 */
export type DisconnectKind = 'ejected' | 'room_ended' | 'connection_lost' | 'crashed';

export type RoomEventName = keyof RoomEvents;

export interface JoinOptions {
  roomUrl: string;
  meetingToken?: string;
  botName: string;
  videoMode: 'static' | 'off';
  backgroundImageUrl?: string;
  voice: VoiceId;
  /**
   * The room's transcription, where the provider has one to start: its language (a Deepgram code,
   * bot_config.language; default: the voice's, core/transcription-languages.ts) and how often to try again while it
   * does not run (default 5 s).
   */
  transcription?: {
    language?: string;
    retryMs?: number;
    /** Deepgram's endpointing (ms of silence that finalizes words); default: Deepgram's own. */
    endpointingMs?: number;
    /** Interim results (words while they are spoken, `final: false`); default off. */
    interimResults?: boolean;
    /**
     * How long someone in the room who stopped the transcription has to leave for the stop to count as a departing
     * bot's, restarted (default 10 s).
     */
    stopperLeaveGraceMs?: number;
  };
  /**
   * Give up getting to the room after this long (daily-js retries its CDN for about a minute on its own). Reaching a
   * waiting room ends this wait: from then on `waitingRoomTimeoutMs` applies instead.
   */
  timeoutMs: number;
  /**
   * How long to wait in a waiting room (a Daily room with knocking, a local room created with `knocking`) for the
   * host to let the bot in; then the join fails with RoomJoinError `unknown`, code `waiting_room_timeout`. The
   * host denying entry fails it with `auth_error`.
   */
  waitingRoomTimeoutMs: number;
  /**
   * The session records (the start request's recording.audio): a provider whose recorder takes time to make (the
   * local room's launches a browser) gets it ready before it enters, so the recording starts with the bot in the room.
   */
  recording?: boolean;
  /** Called once when the bot is put in a waiting room and has asked to be let in. */
  onWaitingRoom?: () => void;
  /**
   * Aborted when the bot is asked to stop while still joining (a waiting room included): the provider gives up,
   * leaves the waiting room and throws JoinAbortedError.
   */
  signal?: AbortSignal;
}

/** Joining was given up because the bot was asked to stop (leave endpoint or SIGTERM) before it got in. */
export class JoinAbortedError extends Error {
  constructor() {
    super('asked to stop while joining');
    this.name = 'JoinAbortedError';
  }
}

/** The room's mixed audio, recorded by the bot in its own browser (docs/recording.md). */
export interface RecordOptions {
  /** How often a piece is cut and handed over (the most a lost task loses), in ms. */
  pieceMs: number;
  /** Each piece as it is cut, numbered from 0 (the first carries the WebM header); never throws. */
  onPiece(piece: { seq: number; bytes: Uint8Array }): void;
  /**
   * Part of what the room carries cannot be recorded while the recorder goes on (the local room's bot voice without
   * its synthesizer): `message` says what, for the session's `recording_failed` warning.
   */
  onWarning?(message: string): void;
}

export interface RoomRecording {
  /** When the recorder started, on the wall clock (ms since the epoch). */
  readonly startedAtMs: number;
  /** Stops the recorder; resolves once its last piece was handed to onPiece. */
  stop(): Promise<void>;
}

export interface RoomConnection {
  /** The bot's own participant id: its own audio and transcription are ignored. */
  readonly selfId: string;
  /** Everyone else in the room at this moment. */
  participants(): RoomParticipant[];
  /**
   * Listens to the room. A `disconnected` that came before the listener was added is told to it too (just after this
   * call): the bot adds its listeners a moment after join() returns, and an ejection in that moment must not be lost.
   */
  on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void): void;
  /** The bot's voice; its lines come back as the bot's own utterances. */
  readonly speech: Speech;
  /**
   * Records the room's audio, every participant and the bot's voice mixed, as Opus in WebM, mono (absent where the
   * provider cannot). Rejects when the recorder cannot start.
   */
  record?(options: RecordOptions): Promise<RoomRecording>;
  /**
   * Posts a chat message to everyone in the room that is not a line of the conversation (the recording notice,
   * which is also spoken: the spoken line is the transcript's). Absent where the room has no chat.
   */
  post?(text: string): Promise<void>;
  /**
   * Leaves the room; resolves once out (bounded by the provider's own timeouts). A transcription the bot started is
   * stopped first, unless `keepTranscription` (a bot handing over to its replacement, which uses it as it is); one
   * somebody else started is never stopped.
   */
  leave(options?: { keepTranscription?: boolean }): Promise<void>;
}

export interface RoomProvider {
  /**
   * Optional: does ahead of time what every join needs before the room is known (a pooled bot waiting for its session:
   * the Daily provider launches its browser and loads daily-js), so that the next join() only joins. At
   * most one join() uses what it prepared. Rejects when the preparing failed; join() then starts from scratch, as it
   * does when warm() was never called.
   */
  warm?(): Promise<void>;
  /** Joins or throws RoomJoinError. */
  join(options: JoinOptions): Promise<RoomConnection>;
  /**
   * Releases what warm() prepared and no join() took (a pooled bot stopped while idle, or given a session of another
   * provider). A connection join() returned is not affected: its leave() releases its own.
   */
  close?(): Promise<void>;
}

export class RoomJoinError extends Error {
  constructor(
    readonly type: JoinErrorType,
    /** The provider's own words, for error_message. */
    readonly providerMessage: string,
    /** What happened more precisely than `type` can say (bot_join_failed `error_code`, our addition). */
    readonly code?: JoinErrorCode,
  ) {
    super(`${type}: ${providerMessage}`);
    this.name = 'RoomJoinError';
  }
}
