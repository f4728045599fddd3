// The bot page's one channel to Node, `__botEvent` (daily-provider.ts): room events, log lines, recording pieces.
import type { RoomEvents } from '../../../../core/ports/room-provider';

/** A room event of the port as the page forwards it: the port's payload, its name in `type`. */
type PortEvent<K extends keyof RoomEvents> = { type: K } & RoomEvents[K];

export type HarnessEvent =
  | { type: 'participant-joined'; participantId: string; name: string }
  | PortEvent<'participant-left'>
  | PortEvent<'utterance'>
  | PortEvent<'audio-activity'>
  /** Daily's audio levels arrive (at most once a second), loud or not: the activity above is only the loud ones. */
  | { type: 'audio-levels' }
  | PortEvent<'transcription'>
  | PortEvent<'disconnected'>
  /** The bot is in the room's lobby (knocking) and has asked to be let in; the join goes on until it is decided. */
  | { type: 'waiting-room' }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  /** A piece of the recording (startRecording), base64, numbered from 0. */
  | { type: 'recording-piece'; seq: number; data: string };

declare global {
  interface Window {
    __botEvent?: (event: HarnessEvent) => void;
  }
}

export const emit = (event: HarnessEvent) => window.__botEvent?.(event);

export const log = (level: 'info' | 'warn', message: string) => emit({ type: 'log', level, message });

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : JSON.stringify(err);
}
