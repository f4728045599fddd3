// What every exit watcher shares: it calls `exit` with its reason once, and can be stopped.
import type { RoomConnection } from '../../core/ports/room-provider';
import type { ExitReason } from '../../core/schemas/api';

export type ExitTrigger = (reason: ExitReason) => void;

export interface Watcher {
  stop(): void;
}

/** The part of a room connection watchers read. */
export type RoomSignals = Pick<RoomConnection, 'selfId' | 'participants' | 'on'>;
