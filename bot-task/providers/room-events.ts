// The events of one room connection, for the providers' RoomConnection.on. A connection disconnects once: the first
// report wins (a room's message and its socket's close right behind it, a crashed page and then its browser going
// away, are one disconnection). And it is remembered: the bot attaches its listeners a moment after join() returns
// (it records the join first), and a bot ejected, or a room closed, in that moment must still hear it — otherwise it
// would sit in a room it is no longer in. The transcription's state is remembered the same way (its latest).
import { EventEmitter } from 'node:events';
import type { RoomEventName, RoomEvents } from '../../core/ports/room-provider';

export class RoomEventHub {
  private readonly emitter = new EventEmitter();
  private ended: RoomEvents['disconnected'] | undefined;
  /** The transcription's latest state: it is usually decided while the bot is still joining, before it listens. */
  private transcription: RoomEvents['transcription'] | undefined;

  emit<K extends RoomEventName>(event: K, payload: RoomEvents[K]): void {
    if (event === 'disconnected') {
      if (this.ended) return;
      this.ended = payload as RoomEvents['disconnected'];
    }
    if (event === 'transcription') this.transcription = payload as RoomEvents['transcription'];
    this.emitter.emit(event, payload);
  }

  on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void): void {
    this.emitter.on(event, listener);
    const remembered =
      event === 'disconnected' ? this.ended : event === 'transcription' ? this.transcription : undefined;
    // Told after the current call returns, as an emitted event would be.
    if (remembered) queueMicrotask(() => listener(remembered as RoomEvents[K]));
  }
}
