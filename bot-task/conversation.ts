// Turn-taking: the bot greets once someone is there to hear it, then speaks only after a participant has finished (final words plus a short
// silence), sentence by sentence as the engine streams, and stops the moment someone talks over it (barge-in).
import type { Utterance } from '../core/bots/transcript';
import { cutOff } from '../core/conversation/cut-off';
import type { Logger } from '../core/log';
import { type ConversationEngine, sentences } from '../core/ports/conversation-engine';
import type { RoomConnection } from '../core/ports/room-provider';

export interface ConversationSettings {
  botName: string;
  prompt?: string;
  greeting?: string;
  /** Silence after a participant's final words before the bot answers. */
  endOfTurnMs: number;
}

export class ConversationController {
  /** What the bot itself said (its own words, not the room's transcription of them). */
  private readonly spoken: Utterance[] = [];
  private turnTimer: NodeJS.Timeout | undefined;
  private speaking = false;
  private interrupted = false;
  private stopped = false;
  private turn: Promise<void> = Promise.resolve();
  /** Lines of the bot from before this controller (a replaced task continuing a transcript) come from `heard`. */
  private readonly startedAt = new Date().toISOString();

  constructor(
    private readonly room: RoomConnection,
    private readonly engine: ConversationEngine,
    private readonly settings: ConversationSettings,
    /** The participants' lines so far (the transcript recorder's). */
    private readonly heard: () => readonly Utterance[],
    private readonly log: Logger,
  ) {}

  start(): void {
    this.room.on('utterance', (u) => {
      if (u.participantId === this.room.selfId || this.stopped) return;
      this.bargeIn();
      clearTimeout(this.turnTimer);
      // Only a finished thought is answered; partial results just mean the person is still talking.
      if (u.final) this.turnTimer = setTimeout(() => this.respond(), this.settings.endOfTurnMs);
    });
    this.room.on('audio-activity', (a) => {
      if (a.participantId === this.room.selfId || !a.active || this.stopped) return;
      this.bargeIn();
      // Someone is talking: a reply waiting for its silence waits longer.
      if (this.turnTimer) {
        clearTimeout(this.turnTimer);
        this.turnTimer = setTimeout(() => this.respond(), this.settings.endOfTurnMs);
      }
    });
    this.greetWhenSomeoneIsThere();
  }

  /**
   * The greeting is for people: a bot that joined an empty room (it often joins before anyone) waits for the first
   * human instead of greeting nobody; other bots and recorders do not count.
   */
  private greetWhenSomeoneIsThere(): void {
    // A replacement continuing a conversation (the lost bot's lines are in what it heard) does not greet again; if
    // the last word was a participant's, the lost bot owed them its reply, and this one gives it.
    const before = this.heard();
    const resuming = before.some((u) => u.is_bot);
    let greeted = resuming;
    let owed = resuming && !before.at(-1)?.is_bot;
    if (resuming)
      this.log.info('continuing the conversation of the bot this one replaces; no greeting', { owed });
    const greet = () => {
      if (owed && !this.stopped) {
        owed = false;
        this.respond();
      }
      if (greeted || this.stopped) return;
      greeted = true;
      this.enqueue(() => this.engine.greet(this.context()));
    };
    this.room.on('participant-joined', (p) => {
      if (!p.isBot && p.participantId !== this.room.selfId) greet();
    });
    if (this.room.participants().some((p) => !p.isBot && p.participantId !== this.room.selfId)) greet();
    else if (!greeted || owed) this.log.info('room is empty; the greeting waits for the first participant');
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.turnTimer);
    this.room.speech.stop();
  }

  private bargeIn(): void {
    if (!this.speaking) return;
    this.interrupted = true;
    this.room.speech.stop();
    this.log.info('barge-in: stopped speaking');
  }

  private respond(): void {
    this.turnTimer = undefined;
    this.enqueue(() => this.engine.reply(this.context()));
  }

  /**
   * The conversation as the engine reads it: the participants' lines, and the bot's own words (cut-off lines
   * marked, see core/conversation/cut-off.ts). The bot's lines from before this process, e.g. a replaced task
   * whose transcript was restored, are taken from `heard`; the engines derive where they stand from them.
   */
  private context() {
    const earlier = (u: Utterance) => !u.is_bot || u.started_at < this.startedAt;
    const transcript = [...this.heard().filter(earlier), ...this.spoken].sort((a, b) =>
      a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0,
    );
    return {
      botName: this.settings.botName,
      prompt: this.settings.prompt,
      greeting: this.settings.greeting,
      transcript,
    };
  }

  /** One turn at a time: a reply never starts while the previous one is still being spoken. */
  private enqueue(produce: () => AsyncIterable<string>): void {
    this.turn = this.turn
      .then(() => this.speak(produce))
      .catch((err) => this.log.warn('conversation turn failed; listening', { err }));
  }

  private async speak(produce: () => AsyncIterable<string>): Promise<void> {
    if (this.stopped) return;
    this.interrupted = false;
    try {
      for await (const sentence of sentences(produce())) {
        if (this.stopped || this.interrupted) break;
        this.speaking = true;
        const line: Utterance = {
          speaker: this.settings.botName,
          participant_id: this.room.selfId,
          started_at: new Date().toISOString(),
          text: sentence,
          is_bot: true,
        };
        this.spoken.push(line);
        const outcome = await this.room.speech.say(sentence);
        this.speaking = false;
        if (outcome === 'interrupted') {
          // Talked over: the engine must not take the words said over it as the answer to this line.
          line.text = cutOff(sentence);
          break;
        }
      }
    } finally {
      this.speaking = false;
    }
  }
}
