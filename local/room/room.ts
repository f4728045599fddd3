// A local room: who is in it, what was said (the room log), and the rules a Daily room enforces on joining.
import { randomBytes, randomUUID } from 'node:crypto';

export type ParticipantKind = 'human' | 'bot' | 'scripted';

export interface Participant {
  id: string;
  name: string;
  kind: ParticipantKind;
  joinedAt: string;
}

/** One line of the room log; `t_ms` counts from the room's creation so tests can measure intervals. */
export type RoomLogEntry = { at: string; t_ms: number; participant_id: string; name: string } & (
  | { type: 'joined' | 'left' }
  | { type: 'utterance'; text: string; final: boolean }
  | { type: 'speaking'; active: boolean }
);

/** What a room sends its members: the same shapes the local provider and the room page read. */
export type RoomEvent =
  | { type: 'participant-joined'; participant: Participant }
  | { type: 'participant-left'; participant_id: string }
  | {
      type: 'utterance';
      participant_id: string;
      name: string;
      text: string;
      final: boolean;
      at: string;
      voice?: string;
    }
  | { type: 'speaking'; participant_id: string; active: boolean; at: string }
  /** To the removed participant only, just before it is out (the local room's Daily `ejected`). */
  | { type: 'ejected'; message: string }
  /** To everyone still in the room when it closes (deleted, or idle too long), before they are out. */
  | { type: 'room-closed'; message: string };

export type JoinRefusal = { error_type: 'no-room' | 'not-allowed' | 'meeting-full'; message: string };

export const maxParticipants = 50;

export class Room {
  readonly createdAt: number;
  readonly token: string | undefined;
  private readonly members = new Map<
    string,
    { participant: Participant; send: (e: RoomEvent) => void; onLeave?: () => void }
  >();
  readonly log: RoomLogEntry[] = [];
  /** Since when no person or bot is in the room (scripted participants do not count); undefined while occupied. */
  private idleSinceMs: number | undefined;
  private closed = false;

  constructor(
    readonly name: string,
    readonly isPrivate: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.createdAt = now();
    this.idleSinceMs = this.createdAt;
    this.token = isPrivate ? `lrt_${randomBytes(18).toString('base64url')}` : undefined;
  }

  /** Since when the room has had no person or bot in it (ms since the epoch), or undefined while it has. */
  get idleSince(): number | undefined {
    return this.idleSinceMs;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get participants(): Participant[] {
    return [...this.members.values()].map((m) => m.participant);
  }

  /** Daily's rule: a private room needs its meeting token. */
  admits(token: string | undefined): JoinRefusal | null {
    if (this.closed) return { error_type: 'no-room', message: `the room ${this.name} has closed` };
    if (this.isPrivate && token !== this.token) {
      return {
        error_type: 'not-allowed',
        message: `room ${this.name} is private and the meeting token is missing or wrong`,
      };
    }
    if (this.members.size >= maxParticipants)
      return { error_type: 'meeting-full', message: `room ${this.name} is full` };
    return null;
  }

  /** `onLeave` runs once when the participant leaves or the room closes (scripted participants drop their timers). */
  join(name: string, kind: ParticipantKind, send: (e: RoomEvent) => void, onLeave?: () => void): Participant {
    const participant: Participant = { id: randomUUID(), name, kind, joinedAt: new Date().toISOString() };
    this.broadcast({ type: 'participant-joined', participant });
    this.members.set(participant.id, { participant, send, onLeave });
    this.record({ type: 'joined' }, participant);
    if (kind !== 'scripted') this.idleSinceMs = undefined;
    return participant;
  }

  leave(id: string): void {
    const member = this.members.get(id);
    if (!member) return;
    this.members.delete(id);
    this.record({ type: 'left' }, member.participant);
    this.broadcast({ type: 'participant-left', participant_id: id });
    if (![...this.members.values()].some((m) => m.participant.kind !== 'scripted'))
      this.idleSinceMs ??= this.now();
    member.onLeave?.();
  }

  /** Removes a participant as the room's owner would: it is told, then leaves. False when it is not in the room. */
  eject(id: string): boolean {
    const member = this.members.get(id);
    if (!member) return false;
    tell(member, { type: 'ejected', message: `removed from the room ${this.name}` });
    this.leave(id);
    return true;
  }

  /** Everyone is told and leaves (their `onLeave` runs) and the room takes no one again; the server forgets it. */
  close(): void {
    this.closed = true;
    for (const m of this.members.values())
      tell(m, { type: 'room-closed', message: `the room ${this.name} has closed` });
    for (const id of [...this.members.keys()]) this.leave(id);
  }

  /** `voice`: the bot's requested voice, a hint for the page's speech synthesis. */
  say(id: string, text: string, final = true, voice?: string): void {
    const member = this.members.get(id);
    const clean = text.replace(/\s+/g, ' ').trim().slice(0, 2000);
    if (!member || !clean) return;
    const entry = this.record({ type: 'utterance', text: clean, final }, member.participant);
    this.broadcast({
      type: 'utterance',
      participant_id: id,
      name: member.participant.name,
      text: clean,
      final,
      at: entry.at,
      ...(voice ? { voice } : {}),
    });
  }

  /** Audio activity: a participant started or stopped producing sound (the idle timer and barge-in read it). */
  speaking(id: string, active: boolean): void {
    const member = this.members.get(id);
    if (!member) return;
    const entry = this.record({ type: 'speaking', active }, member.participant);
    this.broadcast({ type: 'speaking', participant_id: id, active, at: entry.at });
  }

  state() {
    return {
      name: this.name,
      private: this.isPrivate,
      participants: this.participants,
      log: this.log,
    };
  }

  private record(
    entry:
      | { type: 'joined' | 'left' }
      | { type: 'utterance'; text: string; final: boolean }
      | { type: 'speaking'; active: boolean },
    p: Participant,
  ) {
    const now = this.now();
    const full = {
      ...entry,
      at: new Date(now).toISOString(),
      t_ms: now - this.createdAt,
      participant_id: p.id,
      name: p.name,
    } as RoomLogEntry;
    this.log.push(full);
    if (this.log.length > 5000) this.log.splice(0, this.log.length - 5000);
    return full;
  }

  private broadcast(event: RoomEvent) {
    for (const m of this.members.values()) tell(m, event);
  }
}

function tell(member: { send: (e: RoomEvent) => void }, event: RoomEvent): void {
  try {
    member.send(event);
  } catch {
    // a member whose socket broke is removed by its close handler
  }
}
