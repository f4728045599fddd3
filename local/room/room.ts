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
  | { type: 'speaking'; active: boolean; cut?: true }
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
  /** `cut`: the speaker stopped because someone talked over them (the bot's line was cut off). */
  | { type: 'speaking'; participant_id: string; active: boolean; at: string; cut?: true }
  /** A bot in the room records its audio (`active`), or stopped (it left, or its recording ended). */
  | { type: 'recording'; participant_id: string; active: boolean }
  /** To the removed participant only, just before it is out (the local room's Daily `ejected`). */
  | { type: 'ejected'; message: string }
  /** To everyone still in the room when it closes (deleted, or idle too long), before they are out. */
  | { type: 'room-closed'; message: string }
  /** To the room: someone is asking to join (a knocking room's lobby), and their request was settled or withdrawn. */
  | { type: 'waiting-participant-added'; participant: Participant }
  | { type: 'waiting-participant-removed'; participant_id: string }
  /** To a participant in the lobby whom the room denied: Daily's fatal `not-allowed`, just before it is out. */
  | { type: 'error'; error_type: 'not-allowed'; message: string }
  /**
   * To bots: the room's transcription runs, or has failed with `reason` (fault injection, `transcriptionError`), as
   * Daily's transcription-started and transcription-error. A bot hears no utterances while it has failed.
   */
  | { type: 'transcription'; state: 'running' | 'failed'; reason: string };

export type JoinRefusal = { error_type: 'no-room' | 'not-allowed' | 'meeting-full'; message: string };

export const maxParticipants = 50;

type Member = {
  participant: Participant;
  send: (e: RoomEvent) => void;
  onLeave?: () => void;
  /** Set by listen(): the member takes the others' microphones (a recording bot). */
  hear?: (fromId: string, pcm: Buffer) => void;
};

/** The most microphone audio one message carries: a second of 16 kHz 16-bit mono PCM. */
export const maxAudioBytes = 32_000;

export class Room {
  readonly createdAt: number;
  readonly token: string | undefined;
  private readonly members = new Map<string, Member>();
  /** Who is asking to join a knocking room: connected, not in the room, waiting to be admitted or denied. */
  private readonly lobby = new Map<string, Member & { onAdmitted: () => void }>();
  readonly log: RoomLogEntry[] = [];
  /** Since when no person or bot is in the room (scripted participants do not count); undefined while occupied. */
  private idleSinceMs: number | undefined;
  /**
   * When the current meeting began: the first person or bot entering an empty room starts one. A new joiner is shown
   * the log of this meeting only, never an earlier meeting's words.
   */
  private meetingSinceMs: number;
  private closed = false;
  /**
   * Fault injection: while set, the room's transcription has failed with this reason (Daily's words
   * for it), so bots hear nothing. The room has no real transcription: typed lines are its transcript.
   */
  private failedTranscription: string | undefined;

  constructor(
    readonly name: string,
    readonly isPrivate: boolean,
    private readonly now: () => number = Date.now,
    /** Daily's `enable_knocking`: who joins without the room's token waits in the lobby (see mustKnock). */
    readonly knocking = false,
  ) {
    this.createdAt = now();
    this.idleSinceMs = this.createdAt;
    this.meetingSinceMs = this.createdAt;
    this.token = isPrivate ? `lrt_${randomBytes(18).toString('base64url')}` : undefined;
  }

  /** Since when the room has had no person or bot in it (ms since the epoch), or undefined while it has. */
  get idleSince(): number | undefined {
    return this.idleSinceMs;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Why the room's transcription has failed (fault injection), or undefined while it works. */
  get transcriptionError(): string | undefined {
    return this.failedTranscription;
  }

  /** What a bot in the room is told of its transcription. */
  transcriptionEvent(): RoomEvent {
    const reason = this.failedTranscription;
    return reason
      ? { type: 'transcription', state: 'failed', reason }
      : {
          type: 'transcription',
          state: 'running',
          reason: 'the local room transcribes what is typed or said',
        };
  }

  /** Makes the room's transcription fail with `reason` (undefined: work again), telling the bots in it. */
  failTranscription(reason: string | undefined): void {
    this.failedTranscription = reason;
    const event = this.transcriptionEvent();
    for (const m of this.members.values()) if (m.participant.kind === 'bot') tell(m, event);
  }

  get participants(): Participant[] {
    return [...this.members.values()].map((m) => m.participant);
  }

  /** Those asking to join, oldest first. */
  get waiting(): Participant[] {
    return [...this.lobby.values()].map((m) => m.participant);
  }

  /**
   * Daily's rule: a private room needs its meeting token. `canKnock`: one who may ask to join instead (not a scripted
   * participant) is not refused without a token in a knocking room, as Daily puts tokenless joiners in the lobby.
   */
  admits(token: string | undefined, canKnock = false): JoinRefusal | null {
    if (this.closed) return { error_type: 'no-room', message: `the room ${this.name} has closed` };
    const knocks = canKnock && this.knocking && token === undefined;
    if (this.isPrivate && token !== this.token && !knocks) {
      return {
        error_type: 'not-allowed',
        message: `room ${this.name} is private and the meeting token is missing or wrong`,
      };
    }
    if (this.members.size >= maxParticipants)
      return { error_type: 'meeting-full', message: `room ${this.name} is full` };
    return null;
  }

  /**
   * Whether one joining goes to the lobby first. As in Daily, only tokenless joiners knock (a private room's token
   * lets its holder straight in). In a public knocking room people joining from the page are its hosts and enter,
   * while bots knock (Daily's knocking needs a private room, so there a bot without a token always knocks).
   */
  mustKnock(kind: ParticipantKind, token: string | undefined): boolean {
    if (!this.knocking || kind === 'scripted') return false;
    if (this.isPrivate) return token !== this.token;
    return kind === 'bot';
  }

  /** `onLeave` runs once when the participant leaves or the room closes (scripted participants drop their timers). */
  join(name: string, kind: ParticipantKind, send: (e: RoomEvent) => void, onLeave?: () => void): Participant {
    const participant: Participant = { id: randomUUID(), name, kind, joinedAt: new Date().toISOString() };
    this.enter({ participant, send, onLeave });
    return participant;
  }

  /**
   * Asks to join: the participant waits in the lobby, unseen by the room, which is told someone is asking (Daily's
   * `waiting-participant-added`). `onAdmitted` runs once it is in the room; `onLeave` when it is out (denied, gone, the
   * room closed) without having got in, or later as for `join`.
   */
  knock(
    name: string,
    kind: ParticipantKind,
    send: (e: RoomEvent) => void,
    onAdmitted: () => void,
    onLeave?: () => void,
  ): Participant {
    const participant: Participant = { id: randomUUID(), name, kind, joinedAt: new Date().toISOString() };
    this.lobby.set(participant.id, { participant, send, onLeave, onAdmitted });
    this.broadcast({ type: 'waiting-participant-added', participant });
    return participant;
  }

  /** Lets one waiting in the lobby in (Daily's `updateWaitingParticipant(id, { grantRequestedAccess: true })`). */
  admit(id: string): boolean {
    const waiting = this.takeFromLobby(id);
    if (!waiting) return false;
    const participant = { ...waiting.participant, joinedAt: new Date(this.now()).toISOString() };
    this.enter({ participant, send: waiting.send, onLeave: waiting.onLeave });
    waiting.onAdmitted();
    return true;
  }

  /** Turns one waiting in the lobby away: told as Daily tells it (a fatal `not-allowed`), then out. */
  deny(id: string): boolean {
    const waiting = this.takeFromLobby(id);
    if (!waiting) return false;
    tell(waiting, {
      type: 'error',
      error_type: 'not-allowed',
      message: `${waiting.participant.name} was denied entry to the room ${this.name}`,
    });
    waiting.onLeave?.();
    return true;
  }

  leave(id: string): void {
    const knocking = this.takeFromLobby(id);
    if (knocking) {
      knocking.onLeave?.();
      return;
    }
    const member = this.members.get(id);
    if (!member) return;
    this.members.delete(id);
    this.record({ type: 'left' }, member.participant);
    if (member.hear) this.broadcast({ type: 'recording', participant_id: id, active: false });
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

  /** Everyone, in the room or its lobby, is told and leaves (their `onLeave` runs); the room takes no one again. */
  close(): void {
    this.closed = true;
    for (const m of [...this.members.values(), ...this.lobby.values()])
      tell(m, { type: 'room-closed', message: `the room ${this.name} has closed` });
    for (const id of [...this.lobby.keys(), ...this.members.keys()]) this.leave(id);
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

  /**
   * Audio activity: a participant started or stopped producing sound (the idle timer and barge-in read it); `cut`:
   * they stopped because someone talked over them.
   */
  speaking(id: string, active: boolean, cut = false): void {
    const member = this.members.get(id);
    if (!member) return;
    const mark = cut && !active ? ({ cut: true } as const) : {};
    const entry = this.record({ type: 'speaking', active, ...mark }, member.participant);
    this.broadcast({ type: 'speaking', participant_id: id, active, at: entry.at, ...mark });
  }

  /** The log of the meeting under way (see meetingSinceMs), its last `max` entries. */
  meetingLog(max: number): RoomLogEntry[] {
    const since = this.meetingSinceMs - this.createdAt;
    let first = this.log.length;
    while (first > 0 && this.log[first - 1]!.t_ms >= since && this.log.length - first < max) first--;
    return this.log.slice(first);
  }

  /** Who records the room's audio (the bots that listen). */
  get recorders(): string[] {
    return [...this.members.values()].filter((m) => m.hear).map((m) => m.participant.id);
  }

  /**
   * From now on `id` hears the others' microphones (16 kHz 16-bit mono PCM as the room page sends it): a recording
   * bot's. Nothing of it is kept: the room relays audio, it does not store it.
   */
  listen(id: string, hear: (fromId: string, pcm: Buffer) => void): void {
    const member = this.members.get(id);
    if (!member) return;
    const first = !member.hear;
    member.hear = hear;
    if (first) this.broadcast({ type: 'recording', participant_id: id, active: true });
  }

  /** A piece of `id`'s microphone, relayed to those who listen (not back to its sender). */
  audio(id: string, pcm: Buffer): void {
    if (!this.members.has(id) || pcm.length > maxAudioBytes) return;
    for (const m of this.members.values())
      if (m.hear && m.participant.id !== id) {
        try {
          m.hear(id, pcm);
        } catch {
          // as tell(): a listener whose socket broke is removed by its close handler
        }
      }
  }

  state() {
    return {
      name: this.name,
      private: this.isPrivate,
      knocking: this.knocking,
      participants: this.participants,
      lobby: this.waiting,
      log: this.log,
    };
  }

  private enter(member: Member): void {
    this.broadcast({ type: 'participant-joined', participant: member.participant });
    this.members.set(member.participant.id, member);
    if (member.participant.kind !== 'scripted') {
      if (this.idleSinceMs !== undefined) this.meetingSinceMs = this.now();
      this.idleSinceMs = undefined;
    }
    this.record({ type: 'joined' }, member.participant);
  }

  private takeFromLobby(id: string) {
    const waiting = this.lobby.get(id);
    if (!waiting) return undefined;
    this.lobby.delete(id);
    this.broadcast({ type: 'waiting-participant-removed', participant_id: id });
    return waiting;
  }

  private record(
    entry:
      | { type: 'joined' | 'left' }
      | { type: 'utterance'; text: string; final: boolean }
      | { type: 'speaking'; active: boolean; cut?: true },
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
