// The events of one room connection. It disconnects once (the first report wins). The bot listens a moment after
// join() returns, so the disconnection, the transcription's latest state and the utterances heard before anyone
// listened are remembered and told to the first listener: an ejected bot must not sit on, nor a transcript lose a line.
import { EventEmitter } from 'node:events';
import type { RoomEventName, RoomEvents } from '../../core/ports/room-provider';

/** More words than a bot hears between its join and its first listener (a moment), however busy the machine. */
const maxUnheard = 100;

export class RoomEventHub {
  private readonly emitter = new EventEmitter();
  private ended: RoomEvents['disconnected'] | undefined;
  private transcription: RoomEvents['transcription'] | undefined;
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
