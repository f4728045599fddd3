// A reply's lines are pipelined: the next line is handed to the voice (synthesized) while the one before plays, heard
// right after it in order, and dropped unheard when the line before is cut off. The first sentence's opening clause
// is spoken on its own as soon as it is written, yet stays one line with the rest of its sentence.
import { describe, expect, it } from 'vitest';
import { ConversationController } from '../../bot-task/conversation';
import type { Utterance } from '../../core/bots/transcript';
import { createLogger } from '../../core/log';
import {
  type ConversationContext,
  type ConversationEngine,
  replyPieces,
  type SpokenPiece,
} from '../../core/ports/conversation-engine';
import type { RoomConnection } from '../../core/ports/room-provider';
import type { SayOptions, SpeechOutcome } from '../../core/ports/speech';
import { FakeRoom } from '../support/fake-room';
import { quietFor, until } from '../support/until';

const log = createLogger('silent');

async function collect(chunks: string[]): Promise<SpokenPiece[]> {
  const out: SpokenPiece[] = [];
  async function* stream() {
    for (const c of chunks) yield c;
  }
  for await (const p of replyPieces(stream())) out.push(p);
  return out;
}

describe('reply pieces', () => {
  it('yields the first sentence’s opening clause as soon as it is written, before the sentence ends', async () => {
    const seen: string[] = [];
    let release: () => void = () => {};
    const more = new Promise<void>((r) => {
      release = r;
    });
    async function* stream() {
      yield 'Thank ';
      yield 'you, ';
      await more;
      yield 'that is helpful. What would you do differently, ';
      yield 'next time?';
    }
    const reading = (async () => {
      for await (const p of replyPieces(stream())) seen.push(`${p.text}${p.continues ? ' +' : ''}`);
    })();
    await until(async () => seen.length === 1, 1000);
    // The clause is out while the model has not yet written the rest.
    expect(seen).toEqual(['Thank you, +']);
    release();
    await reading;
    // Only the first sentence is split.
    expect(seen).toEqual(['Thank you, +', 'that is helpful.', 'What would you do differently, next time?']);
  });

  it('yields the clause on its mark when the model streams white space with the next word', async () => {
    const seen: string[] = [];
    let release: () => void = () => {};
    const more = new Promise<void>((r) => {
      release = r;
    });
    async function* stream() {
      yield 'Thank';
      yield ' you';
      yield ',';
      await more;
      yield ' that is helpful.';
    }
    const reading = (async () => {
      for await (const p of replyPieces(stream())) seen.push(`${p.text}${p.continues ? ' +' : ''}`);
    })();
    await until(async () => seen.length === 1, 1000);
    // Out before the next word (" that") has come.
    expect(seen).toEqual(['Thank you, +']);
    release();
    await reading;
    expect(seen).toEqual(['Thank you, +', 'that is helpful.']);
    // A comma after a digit may be a thousands separator: it waits for what follows.
    expect(await collect(['It cost 1', ',', '000 dollars', ',', ' roughly.'])).toEqual([
      { text: 'It cost 1,000 dollars,', continues: true },
      { text: 'roughly.' },
    ]);
  });

  it('does not split a sentence that arrived whole, a one-word opening, or a number', async () => {
    expect(await collect(['Thank you, that is helpful. Next?'])).toEqual([
      { text: 'Thank you, that is helpful.' },
      { text: 'Next?' },
    ]);
    expect(await collect(['Well, ', 'that is it.'])).toEqual([{ text: 'Well, that is it.' }]);
    expect(await collect(['It cost 1,', '000 dollars, ', 'roughly.'])).toEqual([
      { text: 'It cost 1,000 dollars,', continues: true },
      { text: 'roughly.' },
    ]);
  });

  it('joins back to the same words as sentences() gives', async () => {
    const chunks = ['Hello Ann, ', 'good to see you. ', 'Shall we start?'];
    const pieces = await collect(chunks);
    expect(pieces.map((p) => p.text).join(' ')).toBe('Hello Ann, good to see you. Shall we start?');
    expect(pieces[0]).toEqual({ text: 'Hello Ann,', continues: true });
  });
});

/**
 * A room whose voice records when each line is handed over (synthesis starts then) and when it is heard; a line plays
 * until the test finishes it or someone talks over it.
 */
function pipelinedRoom() {
  const fake = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
  const events: string[] = [];
  const playing: ((o: SpeechOutcome) => void)[] = [];
  const options: SayOptions[] = [];
  const room: RoomConnection = {
    selfId: fake.selfId,
    speech: {
      say: async (text: string, o?: SayOptions) => {
        options.push(o ?? {});
        events.push(`synthesize ${text}`);
        if (o?.startWhen && !(await o.startWhen)) {
          events.push(`dropped ${text}`);
          return 'interrupted';
        }
        events.push(`play ${text}`);
        return new Promise<SpeechOutcome>((resolve) => {
          playing.push((outcome) => {
            events.push(`${outcome} ${text}`);
            resolve(outcome);
          });
        });
      },
      write: async () => {},
      stop: () => {
        for (const finish of playing.splice(0)) finish('interrupted');
      },
    },
    participants: () => fake.participants(),
    on: (event, listener) => fake.on(event, listener),
    leave: () => fake.leave(),
  };
  return { room, fake, events, options, finish: () => playing.shift()?.('done') };
}

/** An engine whose greeting streams `chunks` and records what it was shown on each turn. */
function streamingEngine(chunks: string[]) {
  const seen: ConversationContext[] = [];
  const engine: ConversationEngine = {
    async *greet(ctx) {
      seen.push(structuredClone({ ...ctx, onUnfinished: undefined }));
      for (const c of chunks) yield c;
    },
    async *reply(ctx) {
      seen.push(structuredClone({ ...ctx, onUnfinished: undefined }));
      yield 'Thanks.';
    },
  };
  return { engine, seen };
}

describe('pipelined speech', () => {
  it('hands the next line to the voice while the one before plays, and plays them in order', async () => {
    const { room, events, finish } = pipelinedRoom();
    const { engine } = streamingEngine([
      'Hello Ann, ',
      'good to see you. ',
      'How was your week? ',
      'Shall we start?',
    ]);
    const c = new ConversationController(room, engine, { botName: 'Iris', endOfTurnMs: 5 }, () => [], log);
    c.start();
    await until(async () => events.includes('synthesize good to see you.'), 1000);
    // The second line is being synthesized while the first still plays; it is not heard yet.
    expect(events).toEqual(['synthesize Hello Ann,', 'play Hello Ann,', 'synthesize good to see you.']);
    finish();
    await until(async () => events.includes('synthesize How was your week?'), 1000);
    expect(events.slice(3)).toEqual([
      'done Hello Ann,',
      'play good to see you.',
      'synthesize How was your week?',
    ]);
    finish();
    await until(async () => events.includes('synthesize Shall we start?'), 1000);
    finish();
    await until(async () => events.includes('play Shall we start?'), 1000);
    finish();
    await until(async () => events.includes('done Shall we start?'), 1000);
    expect(events.filter((e) => e.startsWith('play '))).toEqual([
      'play Hello Ann,',
      'play good to see you.',
      'play How was your week?',
      'play Shall we start?',
    ]);
    // Only one line ahead is prepared: never two lines waiting at once.
    for (let i = 0; i < events.length; i++) {
      const ahead = events.slice(0, i + 1);
      const prepared = ahead.filter((e) => e.startsWith('synthesize ')).length;
      const ended = ahead.filter((e) => e.startsWith('done ')).length;
      expect(prepared - ended).toBeLessThanOrEqual(2);
    }
    c.stop();
  });

  it('drops the prepared line unheard when the line before is talked over, and marks that one cut off', async () => {
    const { room, fake, events, finish } = pipelinedRoom();
    const heard: Utterance[] = [];
    const { engine, seen } = streamingEngine([
      'Hello Ann. ',
      'Could you tell me, ',
      'in a few words, about your last project? ',
      'Take your time.',
    ]);
    const c = new ConversationController(room, engine, { botName: 'Iris', endOfTurnMs: 5 }, () => heard, log);
    c.start();
    await until(
      async () => events.includes('synthesize Could you tell me, in a few words, about your last project?'),
      1000,
    );
    finish(); // "Hello." heard
    await until(async () => events.includes('synthesize Take your time.'), 1000);
    // Ann talks over the question: it stops, and the line prepared after it is never heard.
    heard.push({
      speaker: 'Ann',
      participant_id: 'ann',
      started_at: new Date().toISOString(),
      text: 'Sorry, hi!',
    });
    fake.say('ann', 'Sorry, hi!');
    await until(async () => seen.length === 2, 1000);
    expect(events).toContain('interrupted Could you tell me, in a few words, about your last project?');
    expect(events).toContain('dropped Take your time.');
    expect(events).not.toContain('play Take your time.');
    const bot = seen[1]!.transcript.filter((u) => u.is_bot).map((u) => u.text);
    expect(bot).toEqual(['Hello Ann.', 'Could you tell me, in a few words, about your last project…']);
    c.stop();
  });

  it('an opening clause and the rest of its sentence are one line of the bot’s; the clause goes first, marked', async () => {
    const { room, fake, events, options, finish } = pipelinedRoom();
    const heard: Utterance[] = [];
    let release: () => void = () => {};
    const more = new Promise<void>((r) => {
      release = r;
    });
    const seen: ConversationContext[] = [];
    const engine: ConversationEngine = {
      async *greet(ctx) {
        seen.push(structuredClone({ ...ctx, onUnfinished: undefined }));
        yield 'Thank ';
        yield 'you, ';
        await more;
        yield 'that is helpful. ';
        yield 'What next?';
      },
      async *reply(ctx) {
        seen.push(structuredClone({ ...ctx, onUnfinished: undefined }));
        yield 'Thanks.';
      },
    };
    const c = new ConversationController(room, engine, { botName: 'Iris', endOfTurnMs: 5 }, () => heard, log);
    c.start();
    // The clause is heard while the model is still writing the rest.
    await until(async () => events.includes('play Thank you,'), 1000);
    expect(options[0]).toEqual({ continues: true });
    release();
    await until(async () => events.includes('synthesize that is helpful.'), 1000);
    finish();
    await until(async () => events.includes('play that is helpful.'), 1000);
    finish();
    await until(async () => events.includes('play What next?'), 1000);
    finish();
    heard.push({
      speaker: 'Ann',
      participant_id: 'ann',
      started_at: new Date().toISOString(),
      text: 'Sure.',
    });
    fake.say('ann', 'Sure.');
    await until(async () => seen.length === 2, 1000);
    expect(seen[1]!.transcript.filter((u) => u.is_bot).map((u) => u.text)).toEqual([
      'Thank you, that is helpful.',
      'What next?',
    ]);
    c.stop();
  });

  it('text only: the opening clause goes out in one chat message with the rest of its sentence', async () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const { engine } = streamingEngine(['Thank ', 'you, ', 'that is helpful. ', 'What next?']);
    const c = new ConversationController(room, engine, { botName: 'Iris', endOfTurnMs: 5 }, () => [], log, {
      inForce: [{ code: 'speech_fallback', message: 'the voice failed' }],
    });
    c.start();
    await until(async () => room.written.length === 2, 1000);
    expect(room.written).toEqual(['Thank you, that is helpful.', 'What next?']);
    c.stop();
  });

  it('a model failing mid-reply: the line already playing is heard out before the holding line', async () => {
    const { room, events, finish } = pipelinedRoom();
    let fail: () => void = () => {};
    const failing = new Promise<void>((r) => {
      fail = r;
    });
    let calls = 0;
    const engine: ConversationEngine = {
      async *greet() {
        calls++;
        if (calls > 1) {
          yield 'Hello.';
          return;
        }
        yield 'Thank ';
        yield 'you, ';
        await failing;
        throw new Error('model stream broke');
      },
      async *reply() {},
    };
    const c = new ConversationController(
      room,
      engine,
      { botName: 'Iris', endOfTurnMs: 5, retryBackoffMs: 10 },
      () => [],
      log,
    );
    c.start();
    await until(async () => events.includes('play Thank you,'), 1000);
    fail();
    // Nothing else is said while the clause still plays.
    await quietFor(50);
    expect(events).toEqual(['synthesize Thank you,', 'play Thank you,']);
    finish();
    await until(async () => events.includes('play Sorry, give me a moment.'), 1000);
    expect(events.indexOf('done Thank you,')).toBeLessThan(events.indexOf('play Sorry, give me a moment.'));
    c.stop();
  });
});
