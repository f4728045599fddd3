// An in-memory RoomConnection for unit tests of the watchers and the bot runtime.
import { EventEmitter } from 'node:events';
import type {
  RoomConnection,
  RoomEventName,
  RoomEvents,
  RoomParticipant,
} from '../../core/ports/room-provider';
import type { SayOptions } from '../../core/ports/speech';

export class FakeRoom implements RoomConnection {
  readonly selfId = 'bot-self';
  private readonly emitter = new EventEmitter();
  private readonly people = new Map<string, RoomParticipant>();
  left = false;
  readonly spoken: string[] = [];
  /** Lines sent as text (the voice failed). */
  readonly written: string[] = [];
  /** An opening clause said on its own (SayOptions.continues): one line with the rest of its sentence. */
  private opening = '';
  readonly speech = {
    say: async (text: string, options?: SayOptions) => {
      // A held reply is heard only once it is released (Speech.say's contract).
      if (options?.startWhen && !(await options.startWhen)) return 'interrupted' as const;
      if (options?.continues) {
        this.opening = `${this.opening}${text} `;
        return 'done' as const;
      }
      this.spoken.push(`${this.opening}${text}`);
      this.opening = '';
      return 'done' as const;
    },
    write: async (text: string) => {
      this.written.push(text);
    },
    stop: () => {
      this.opening = '';
    },
  };

  constructor(initial: RoomParticipant[] = []) {
    for (const p of initial) this.people.set(p.participantId, p);
  }

  participants() {
    return [...this.people.values()];
  }

  on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void) {
    this.emitter.on(event, listener);
  }

  emit<K extends RoomEventName>(event: K, payload: RoomEvents[K]) {
    if (event === 'participant-joined')
      this.people.set((payload as RoomParticipant).participantId, payload as RoomParticipant);
    if (event === 'participant-left')
      this.people.delete((payload as { participantId: string }).participantId);
    this.emitter.emit(event, payload);
  }

  join(id: string, name = id, isBot = false) {
    this.emit('participant-joined', { participantId: id, name, isBot });
  }

  leaveRoom(id: string) {
    this.emit('participant-left', { participantId: id });
  }

  say(id: string, text: string, final = true) {
    this.emit('utterance', {
      participantId: id,
      name: this.people.get(id)?.name ?? id,
      text,
      final,
      at: new Date().toISOString(),
    });
  }

  async leave() {
    this.left = true;
  }
}
