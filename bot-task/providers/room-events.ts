// The events of one room connection, for the providers' RoomConnection.on. A connection disconnects once: the first
// report wins (a room's message and its socket's close right behind it, a crashed page and then its browser going
// away, are one disconnection). And it is remembered: the bot attaches its listeners a moment after join() returns
// (it records the join first), and a bot ejected, or a room closed, in that moment must still hear it — otherwise it
// would sit in a room it is no longer in. The transcription's state is remembered the same way (its latest), and so
// are the utterances heard before anyone listened: a room's socket can deliver its welcome and the first words in one
// read, before the join's continuation attaches the transcript's listener, and a transcript must not lose a line.
import { EventEmitter } from 'node:events';
import type { RoomEventName, RoomEvents } from '../../core/ports/room-provider';

/** More words than a bot hears between its join and its first listener (a moment), however busy the machine. */
const maxUnheard = 100;

export class RoomEventHub {
  private readonly emitter = new EventEmitter();
  private ended: RoomEvents['disconnected'] | undefined;
  /** The transcription's latest state: it is usually decided while the bot is still joining, before it listens. */
  private transcription: RoomEvents['transcription'] | undefined;
  /** Utterances emitted while nobody listened for them (bounded): given, in order, to the first listener. */
  private unheard: RoomEvents['utterance'][] = [];

  emit<K extends RoomEventName>(event: K, payload: RoomEvents[K]): void {
    if (event === 'disconnected') {
      if (this.ended) return;
      this.ended = payload as RoomEvents['disconnected'];
    }
    if (event === 'transcription') this.transcription = payload as RoomEvents['transcription'];
    if (event === 'utterance' && this.emitter.listenerCount('utterance') === 0) {
      if (this.unheard.length < maxUnheard) this.unheard.push(payload as RoomEvents['utterance']);
      return;
    }
    this.emitter.emit(event, payload);
  }

  on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void): void {
    this.emitter.on(event, listener);
    const remembered =
      event === 'disconnected' ? this.ended : event === 'transcription' ? this.transcription : undefined;
    // Told after the current call returns, as an emitted event would be.
    if (remembered) queueMicrotask(() => listener(remembered as RoomEvents[K]));
    if (event === 'utterance' && this.unheard.length) {
      const early = this.unheard;
      this.unheard = [];
      queueMicrotask(() => {
        for (const u of early) listener(u as RoomEvents[K]);
      });
    }
  }
}
