// Port: how the bot joins a room and hears it, named for the domain (participants, utterances, activity).

import type { JoinErrorType } from '../schemas/webhooks';
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
  /** A transcription result; only `final` ones enter the transcript. */
  utterance: { participantId: string; name: string; text: string; final: boolean; at: string };
  /** Someone's audio is active (the idle timer and barge-in read it). */
  'audio-activity': { participantId: string; active: boolean };
  /** The room ended the bot's presence (ejected, room deleted, connection lost for good). */
  disconnected: { reason: string };
}

export type RoomEventName = keyof RoomEvents;

export interface JoinOptions {
  roomUrl: string;
  meetingToken?: string;
  botName: string;
  videoMode: 'static' | 'off';
  backgroundImageUrl?: string;
  voice: VoiceId;
  /** Give up joining after this long (daily-js retries its CDN for about a minute on its own). */
  timeoutMs: number;
  /** Aborted when the bot is asked to stop while still joining: the provider gives up and throws JoinAbortedError. */
  signal?: AbortSignal;
}

/** Joining was given up because the bot was asked to stop (leave endpoint or SIGTERM) before it got in. */
export class JoinAbortedError extends Error {
  constructor() {
    super('asked to stop while joining');
    this.name = 'JoinAbortedError';
  }
}

export interface RoomConnection {
  /** The bot's own participant id: its own audio and transcription are ignored. */
  readonly selfId: string;
  /** Everyone else in the room at this moment. */
  participants(): RoomParticipant[];
  on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void): void;
  /** The bot's voice; its lines come back as the bot's own utterances. */
  readonly speech: Speech;
  /** Leaves the room; resolves once out (bounded by the provider's own timeouts). */
  leave(): Promise<void>;
}

export interface RoomProvider {
  /** Joins or throws RoomJoinError. */
  join(options: JoinOptions): Promise<RoomConnection>;
}

export class RoomJoinError extends Error {
  constructor(
    readonly type: JoinErrorType,
    /** The provider's own words, for error_message (spec §6.2). */
    readonly providerMessage: string,
  ) {
    super(`${type}: ${providerMessage}`);
    this.name = 'RoomJoinError';
  }
}
