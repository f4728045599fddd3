// The greeting is for people. A bot that joins an empty room (it often joins before anyone) greets when
// the first human comes in, not into the empty room; other bots do not count as someone to greet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationController } from '../../bot-task/conversation';
import { createLogger } from '../../core/log';
import type { ConversationEngine } from '../../core/ports/conversation-engine';
import { FakeRoom } from '../support/fake-room';
import { startTestStack, type TestStack } from '../support/local-stack';
import { quietFor, until } from '../support/until';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack({ END_OF_TURN_SILENCE_MS: '300', LOCAL_SPEECH_MS_PER_CHAR: '5' });
  ({ apiKey: key } = await stack.account(50));
});
afterAll(() => stack?.close());

describe('the greeting waits for the first human (local room)', () => {
  it('a bot alone in the room says nothing; it greets right after the first participant joins', async () => {
    await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: 'early-bot' }) });
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/early-bot`,
        process_insights: false,
        bot_config: { name: 'Iris', bot_greeting: "Hi, I'm Iris from Acme!" },
      },
    });
    expect(res.status).toBe(201);
    const botId = res.body.bot_id as string;
    const room = stack.rooms.rooms.get('early-bot')!;
    await until(() => room.participants.some((p) => p.kind === 'bot'), 20_000);
    // Alone in the room for a while: no greeting into the void.
    await quietFor(1500);
    expect(room.log.filter((e) => e.type === 'utterance' || e.type === 'speaking')).toEqual([]);

    await fetch(`${stack.baseUrl}/rooms/early-bot/participants`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Casey', lines: [] }),
    });
    const greeting = await until(() =>
      room.log.find((e) => e.type === 'utterance' && e.name === 'Iris' && e.final),
    );
    const caseyJoined = room.log.find((e) => e.type === 'joined' && e.name === 'Casey')!;
    expect(greeting.type === 'utterance' && greeting.text).toMatch(/^Hi, I'm Iris from Acme!/);
    expect(greeting.t_ms).toBeGreaterThanOrEqual(caseyJoined.t_ms);
    // Promptly: the greeting follows the arrival, it does not wait for the participant to speak first.
    expect(greeting.t_ms - caseyJoined.t_ms).toBeLessThan(3000);

    await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
    const status = await until(async () => {
      const s = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
      return s.status === 'completed' && s;
    }, 30_000);
    expect(status.transcript).toMatch(/^Iris: Hi, I'm Iris from Acme!/);
  });
});

describe('the greeting waits for the first human (controller)', () => {
  const engine = (): ConversationEngine & { greetings: number } => {
    const e = {
      greetings: 0,
      async *greet() {
        e.greetings++;
        yield 'Hello everyone.';
      },
      async *reply() {},
    };
    return e;
  };
  const settings = { botName: 'Iris', endOfTurnMs: 5 };
  const log = createLogger('silent');

  it('greets once, when the first human joins; another bot joining does not count', async () => {
    const room = new FakeRoom();
    const e = engine();
    const c = new ConversationController(room, e, settings, () => [], log);
    c.start();
    // No greeting for an empty room, nor for a bot.
    await quietFor(50);
    expect(room.spoken).toEqual([]);
    room.join('recorder', 'Notetaker', true);
    await quietFor(50);
    expect(room.spoken).toEqual([]);
    room.join('ann', 'Ann');
    await until(() => room.spoken.length === 1);
    room.join('ben', 'Ben');
    // No second greeting.
    await quietFor(50);
    expect(room.spoken).toEqual(['Hello everyone.']);
    expect(e.greetings).toBe(1);
    c.stop();
  });

  it('greets at once when someone is already there', async () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const c = new ConversationController(room, engine(), settings, () => [], log);
    c.start();
    await until(() => room.spoken.length === 1);
    c.stop();
  });

  it('never greets if it is stopped before anyone came', async () => {
    const room = new FakeRoom();
    const e = engine();
    const c = new ConversationController(room, e, settings, () => [], log);
    c.start();
    c.stop();
    room.join('ann', 'Ann');
    await quietFor(50);
    expect(e.greetings).toBe(0);
  });
});
