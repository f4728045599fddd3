// The ConversationController gives the engine what it needs to read the interview from the transcript: its own
// lines, cut-off lines marked as such, and the bot's lines from before this process (a replaced bot-task).
import { describe, expect, it, vi } from 'vitest';
import { ConversationController, thinkingPauseMs } from '../../bot-task/conversation';
import type { Utterance } from '../../core/bots/transcript';
import { wasCutOff } from '../../core/conversation/cut-off';
import { createLogger } from '../../core/log';
import type {
  ConversationContext,
  ConversationEngine,
  UnfinishedTurn,
} from '../../core/ports/conversation-engine';
import type { RoomConnection } from '../../core/ports/room-provider';
import type { SayOptions, SpeechOutcome } from '../../core/ports/speech';
import { FakeRoom } from '../support/fake-room';
import { quietFor, until } from '../support/until';

/** A room whose bot voice plays until the test ends it or someone talks over it. */
function slowSpeechRoom() {
  const fake = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
  let finish: ((o: SpeechOutcome) => void) | undefined;
  const said: string[] = [];
  const room: RoomConnection = {
    selfId: fake.selfId,
    speech: {
      say: async (text: string, options?: SayOptions) => {
        if (options?.startWhen && !(await options.startWhen)) return 'interrupted';
        said.push(text);
        return new Promise<SpeechOutcome>((resolve) => {
          finish = resolve;
        });
      },
      write: async () => {},
      stop: () => finish?.('interrupted'),
    },
    participants: () => fake.participants(),
    on: (event, listener) => fake.on(event, listener),
    leave: () => fake.leave(),
  };
  return { room, fake, said, done: () => finish?.('done') };
}

/** An engine that records what it was shown and says `line` once per turn. */
function recordingEngine(greeting: string, line: string) {
  const seen: ConversationContext[] = [];
  const engine: ConversationEngine = {
    async *greet(ctx) {
      seen.push(structuredClone({ ...ctx, onUnfinished: undefined }));
      yield greeting;
    },
    async *reply(ctx) {
      seen.push(structuredClone({ ...ctx, onUnfinished: undefined }));
      yield line;
    },
  };
  return { engine, seen };
}

const log = createLogger('silent');

describe('conversation controller', () => {
  it('marks a line cut off by barge-in, so the engine does not take the interruption as its answer', async () => {
    const { room, fake, said, done } = slowSpeechRoom();
    const heard: Utterance[] = [];
    const { engine, seen } = recordingEngine('Hello. Could you tell me about your last project?', 'Thanks.');
    const c = new ConversationController(room, engine, { botName: 'Iris', endOfTurnMs: 5 }, () => heard, log);
    c.start();
    await until(async () => said.length === 1);
    done(); // "Hello." finished
    await until(async () => said.length === 2);
    // Ann talks over the question.
    heard.push({
      speaker: 'Ann',
      participant_id: 'ann',
      started_at: new Date().toISOString(),
      text: 'Sorry, hi!',
    });
    fake.say('ann', 'Sorry, hi!');
    await until(async () => seen.length === 2);
    const bot = seen[1]!.transcript.filter((u) => u.is_bot).map((u) => u.text);
    expect(bot).toEqual(['Hello.', 'Could you tell me about your last project…']);
    expect(wasCutOff(bot[1]!)).toBe(true);
    expect(seen[1]!.transcript.at(-1)!.text).toBe('Sorry, hi!');
    c.stop();
  });

  it('says the recording notice before the greeting and posts it in the chat; a replacement does not say it again', async () => {
    const { room, said, done } = slowSpeechRoom();
    const posted: string[] = [];
    room.post = async (text) => {
      posted.push(text);
    };
    const { engine, seen: greeted } = recordingEngine('Hello, I am Iris.', 'Thanks.');
    const notice = 'This meeting is being recorded.';
    const settings = { botName: 'Iris', endOfTurnMs: 5, notice };
    const c = new ConversationController(room, engine, settings, () => [], log);
    c.start();
    await until(async () => said.length === 1);
    expect(said).toEqual([notice]);
    done();
    await until(async () => said.length === 2);
    expect(said).toEqual([notice, 'Hello, I am Iris.']);
    expect(posted).toEqual([notice]);
    // The engine greets knowing this bot is not rejoining, though the notice is a bot line before the greeting.
    expect(greeted[0]!.transcript.map((u) => u.text)).toEqual([notice]);
    expect(greeted[0]!.rejoining).toBeUndefined();
    done();
    c.stop();

    // A replacement continuing the conversation: the room heard the notice from the lost bot.
    const again = slowSpeechRoom();
    const resumed: Utterance[] = [
      {
        speaker: 'Iris',
        participant_id: 'old',
        started_at: new Date(0).toISOString(),
        text: notice,
        is_bot: true,
      },
    ];
    const r = new ConversationController(
      again.room,
      engine,
      { ...settings, replacement: true },
      () => resumed,
      log,
    );
    r.start();
    await until(async () => again.said.length === 1);
    // Its opening is the engine's rejoining turn, without the notice.
    expect(again.said).toEqual(['Hello, I am Iris.']);
    expect(greeted.at(-1)!.rejoining).toBe(true);
    r.stop();
  });

  it('a replaced task opens with the engine’s rejoining turn, once, seeing the bot’s own lines from before this process', async () => {
    const { room, fake, said, done } = slowSpeechRoom();
    const earlier = new Date(Date.now() - 60_000).toISOString();
    const heard: Utterance[] = [
      {
        speaker: 'Iris',
        participant_id: 'old-bot',
        started_at: earlier,
        text: 'Could you tell me about your last project?',
        is_bot: true,
      },
    ];
    const { engine, seen } = recordingEngine('Sorry, I lost my connection for a moment.', 'Thanks.');
    const settings = { botName: 'Iris', endOfTurnMs: 5, replacement: true };
    const c = new ConversationController(room, engine, settings, () => heard, log);
    c.start();
    // Ann is in the room: the replacement's opening, told it is rejoining the lost bot's conversation.
    await until(async () => said.length === 1);
    expect(said).toEqual(['Sorry, I lost my connection for a moment.']);
    expect(seen[0]!.rejoining).toBe(true);
    expect(seen[0]!.transcript.map((u) => u.text)).toEqual(['Could you tell me about your last project?']);
    done();
    heard.push({
      speaker: 'Ann',
      participant_id: 'ann',
      started_at: new Date().toISOString(),
      text: 'A billing system.',
    });
    fake.say('ann', 'A billing system.');
    await until(async () => seen.length === 2);
    // Later turns are ordinary replies: the apology is said once.
    expect(seen[1]!.rejoining).toBeUndefined();
    await until(async () => said.length === 2);
    expect(said).toEqual(['Sorry, I lost my connection for a moment.', 'Thanks.']);
    done();
    // The room's transcription of this process's own voice is not shown twice.
    heard.push({
      speaker: 'Iris',
      participant_id: 'bot-self',
      started_at: new Date().toISOString(),
      text: 'Thanks.',
      is_bot: true,
    });
    heard.push({
      speaker: 'Ann',
      participant_id: 'ann',
      started_at: new Date(Date.now() + 1).toISOString(),
      text: 'You are welcome.',
    });
    fake.say('ann', 'You are welcome.');
    await until(async () => seen.length === 3);
    expect(seen[2]!.transcript.filter((u) => u.text === 'Thanks.')).toHaveLength(1);
    c.stop();
  });

  it('a first bot whose transcript already holds bot lines (another bot of the same meeting) greets, not rejoins', async () => {
    const { room, said, done } = slowSpeechRoom();
    const heard: Utterance[] = [
      {
        speaker: 'Iris',
        participant_id: 'x',
        started_at: new Date(0).toISOString(),
        text: 'Hi.',
        is_bot: true,
      },
    ];
    const { engine, seen } = recordingEngine('Hello, I am Iris.', 'Thanks.');
    const c = new ConversationController(room, engine, { botName: 'Iris', endOfTurnMs: 5 }, () => heard, log);
    c.start();
    await until(async () => said.length === 1);
    expect(seen[0]!.rejoining).toBeUndefined();
    done();
    c.stop();
  });

  it('words over the bot: an acknowledgement lets it finish, an answer stops it at once, audio without words after a second', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const { room, fake, said, done } = slowSpeechRoom();
      // The outcome of the first line (the question); later turns' lines are not this test's.
      let outcome: SpeechOutcome | undefined;
      const say = room.speech.say;
      room.speech.say = async (text, options) => {
        const o = await say(text, options);
        if (text.startsWith('Could you')) outcome = o;
        return o;
      };
      const { engine } = recordingEngine('Could you tell me about your last project?', 'Thanks.');
      const c = new ConversationController(room, engine, { botName: 'Iris', endOfTurnMs: 5 }, () => [], log);
      c.start();
      await vi.waitUntil(() => said.length === 1);
      // "Sure." over the question: the bot goes on.
      fake.emit('audio-activity', { participantId: 'ann', active: true });
      fake.emit('utterance', {
        participantId: 'ann',
        name: 'Ann',
        text: 'Sure.',
        final: true,
        at: new Date().toISOString(),
      });
      await vi.advanceTimersByTimeAsync(2_000);
      expect(outcome).toBeUndefined();
      // Audio with no words for a second: it stops.
      fake.emit('audio-activity', { participantId: 'ann', active: true });
      await vi.advanceTimersByTimeAsync(999);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await vi.waitUntil(() => outcome !== undefined);
      expect(outcome).toBe('interrupted');
      done();
      c.stop();

      // Words that answer: it stops at the first interim.
      const second = slowSpeechRoom();
      let cut: SpeechOutcome | undefined;
      const say2 = second.room.speech.say;
      second.room.speech.say = async (text, options) => {
        cut = await say2(text, options);
        return cut;
      };
      const d = new ConversationController(
        second.room,
        engine,
        { botName: 'Iris', endOfTurnMs: 5 },
        () => [],
        log,
      );
      d.start();
      await vi.waitUntil(() => second.said.length === 1);
      second.fake.emit('audio-activity', { participantId: 'ann', active: true });
      second.fake.emit('utterance', {
        participantId: 'ann',
        name: 'Ann',
        text: 'I built a',
        final: false,
        at: new Date().toISOString(),
      });
      await vi.waitUntil(() => cut !== undefined);
      expect(cut).toBe('interrupted');
      d.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('starts the reply on a stable interim that ends a sentence, holds its audio for the final words, and drops it unheard when the person goes on', async () => {
    const fake = new FakeRoom([]);
    const heard: Utterance[] = [];
    let asked = 0;
    const engine: ConversationEngine = {
      async *greet() {},
      async *reply(ctx) {
        asked++;
        yield `You said: ${ctx.transcript.at(-1)!.text}`;
      },
    };
    const events: string[] = [];
    const c = new ConversationController(
      fake,
      engine,
      { botName: 'Iris', endOfTurnMs: 700, speculativeStartMs: 0, onTurn: (e) => events.push(e) },
      () => heard,
      log,
    );
    c.start();
    const ann = (text: string, final: boolean) => {
      if (final)
        heard.push({ speaker: 'Ann', participant_id: 'ann', started_at: new Date().toISOString(), text });
      fake.emit('utterance', {
        participantId: 'ann',
        name: 'Ann',
        text,
        final,
        at: new Date().toISOString(),
      });
    };
    // An interim that ends a sentence: the model is asked at once, on the interim words; nothing is heard yet.
    ann('I built a billing system.', false);
    await until(async () => asked === 1, 1000);
    // The reply is held: nothing may be heard while no final words came.
    await quietFor(50);
    expect(fake.spoken).toEqual([]);
    // She goes on: the held reply is dropped unheard.
    ann('I built a billing system. It', false);
    expect(events).toEqual(['started', 'cancelled']);
    // Her final words: a new reply, heard after the short wait for a finished sentence.
    ann('I built a billing system. It sends invoices.', true);
    await until(async () => fake.spoken.length === 2, 1000);
    expect(fake.spoken).toEqual(['You said: I built a billing system.', 'It sends invoices.']);
    expect(events).toEqual(['started', 'cancelled', 'started', 'released']);
    expect(asked).toBe(2);
    c.stop();
  });
});

describe('end-of-turn silence', () => {
  /** When the reply to final words is released, in ms after they arrived, and whether the first one was heard. */
  async function releasedAfter(text: string, speechFinal: boolean | undefined) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const fake = new FakeRoom([]);
      const events: { event: string; at: number }[] = [];
      const c = new ConversationController(
        fake,
        recordingEngine('', 'Thank you.').engine,
        {
          botName: 'Iris',
          endOfTurnMs: 700,
          heardSilenceMs: 200,
          onTurn: (event) => events.push({ event, at: Date.now() }),
        },
        () => [{ speaker: 'Ann', participant_id: 'ann', started_at: new Date().toISOString(), text }],
        log,
      );
      c.start();
      const arrived = Date.now();
      fake.emit('utterance', {
        participantId: 'ann',
        name: 'Ann',
        text,
        final: true,
        at: new Date().toISOString(),
        ...(speechFinal !== undefined && { speechFinal }),
      });
      await vi.advanceTimersByTimeAsync(2_000);
      c.stop();
      return events.find((e) => e.event === 'released')!.at - arrived;
    } finally {
      vi.useRealTimers();
    }
  }

  it('counts the silence the transcription heard before it sent speech_final (its endpointing) as part of the wait', async () => {
    // Unclear words: 700 ms of silence, 200 of them heard by the transcription before the final words came.
    expect(await releasedAfter('I rebuilt the billing pipeline', true)).toBe(500);
    // A finished sentence: 250 ms of silence, 200 already heard.
    expect(await releasedAfter('I rebuilt the billing pipeline.', true)).toBe(50);
    // Words that go on: 1.5 s.
    expect(await releasedAfter('I rebuilt the billing pipeline and', true)).toBe(1_300);
  });

  it('waits the whole silence after final words that do not say the speaker stopped', async () => {
    // No speech_final (a room whose transcription does not say): counted from the words' arrival.
    expect(await releasedAfter('I rebuilt the billing pipeline.', undefined)).toBe(250);
    // speech_final false (the speaker went on): at least the unclear wait, none of it taken as heard.
    expect(await releasedAfter('I rebuilt the billing pipeline.', false)).toBe(700);
  });
});

describe("the engine's verdict that the person has not finished", () => {
  /**
   * An engine that judges each reply by the script (`undefined`: finished) and otherwise echoes the participants'
   * words; asked after the person stopped mid-thought, it answers.
   */
  function judgingEngine(verdicts: (UnfinishedTurn | undefined)[]) {
    const asked: { at: number; stoppedMidThought: boolean; transcript: Utterance[] }[] = [];
    const engine: ConversationEngine = {
      async *greet() {},
      async *reply(ctx) {
        asked.push({
          at: Date.now(),
          stoppedMidThought: !!ctx.stoppedMidThought,
          transcript: [...ctx.transcript],
        });
        const verdict = ctx.stoppedMidThought ? undefined : verdicts.shift();
        if (verdict) {
          ctx.onUnfinished?.(verdict);
          return;
        }
        const words = ctx.transcript.filter((u) => !u.is_bot).map((u) => u.text);
        yield ctx.stoppedMidThought ? 'Take your time.' : `You said: ${words.join(' ')}`;
      },
    };
    return { engine, asked };
  }

  async function conversation(verdicts: (UnfinishedTurn | undefined)[]) {
    const fake = new FakeRoom([]);
    const heard: Utterance[] = [];
    const events: string[] = [];
    const { engine, asked } = judgingEngine(verdicts);
    const c = new ConversationController(
      fake,
      engine,
      { botName: 'Iris', endOfTurnMs: 700, onTurn: (e) => events.push(e) },
      () => heard,
      log,
    );
    c.start();
    const ann = (text: string) => {
      heard.push({ speaker: 'Ann', participant_id: 'ann', started_at: new Date().toISOString(), text });
      fake.emit('utterance', {
        participantId: 'ann',
        name: 'Ann',
        text,
        final: true,
        at: new Date().toISOString(),
      });
    };
    return { fake, c, ann, asked, events };
  }

  it('a reply judged unfinished says nothing; her next words get one reply to the whole answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const { fake, c, ann, asked, events } = await conversation(['short']);
      ann('I moved the billing system to three services.');
      await vi.advanceTimersByTimeAsync(1_000);
      expect(asked).toHaveLength(1);
      expect(fake.spoken).toEqual([]);
      expect(events).toEqual(['started', 'cancelled']);
      ann('It took us a year.');
      await vi.advanceTimersByTimeAsync(1_000);
      expect(fake.spoken.join(' ')).toBe(
        'You said: I moved the billing system to three services. It took us a year.',
      );
      // The engine never saw a line of the bot's in between, and was not asked again for the first words.
      expect(asked).toHaveLength(2);
      expect(asked[1]!.stoppedMidThought).toBe(false);
      expect(asked[1]!.transcript.some((u) => u.is_bot)).toBe(false);
      // Her silence after the second words is long, but they were answered: no third call.
      await vi.advanceTimersByTimeAsync(10_000);
      expect(asked).toHaveLength(2);
      c.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('silence past the wait for what she needs asks the engine again, told she stopped, and the bot answers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      for (const [verdict, waitMs] of [
        ['short', 1_500], // the incomplete wait (turnTakingDefaults.incompleteMs)
        ['long', thinkingPauseMs],
      ] as const) {
        const { fake, c, ann, asked } = await conversation([verdict]);
        const from = Date.now();
        ann('Let me think about that');
        await vi.advanceTimersByTimeAsync(waitMs - 100);
        expect(asked).toHaveLength(1);
        expect(fake.spoken).toEqual([]);
        await vi.advanceTimersByTimeAsync(200);
        expect(asked).toHaveLength(2);
        expect(asked[1]!.stoppedMidThought).toBe(true);
        expect(asked[1]!.at - from).toBe(waitMs);
        await vi.advanceTimersByTimeAsync(10);
        expect(fake.spoken).toEqual(['Take your time.']);
        c.stop();
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('stop() ends the wait: a stopped bot is never asked again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const { c, ann, asked } = await conversation(['long']);
      ann('Hmm, give me a second.');
      await vi.advanceTimersByTimeAsync(100);
      c.stop();
      await vi.advanceTimersByTimeAsync(thinkingPauseMs * 2);
      expect(asked).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
