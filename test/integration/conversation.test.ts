// The bot talks, through the local stack and real HTTP: greeting first, one question at a time, answers in between,
// and barge-in measured in the local room's event log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack({
    END_OF_TURN_SILENCE_MS: '300',
    LOCAL_SPEECH_MS_PER_CHAR: '10',
    TRANSCRIPT_FLUSH_MS: '200',
  });
  ({ apiKey: key } = await stack.account(50));
});
afterAll(() => stack?.close());

const prompt = `You interview candidates for a support role. Ask:
1. What drew you to customer support?
2. Tell me about a difficult customer you helped
3. How do you stay calm under pressure?`;

async function botIn(room: string, bot_config: Record<string, unknown>) {
  await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: room }) });
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/${room}`, bot_config },
  });
  expect(res.status).toBe(201);
  return res.body.bot_id as string;
}

describe('conversation', () => {
  it('greets first, then alternates bot question and participant answer, both speakers named', async () => {
    // The candidate is in the room first, so the greeting is heard whole.
    await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: 'interview' }) });
    await fetch(`${stack.baseUrl}/rooms/interview/participants`, {
      method: 'POST',
      body: JSON.stringify({
        name: 'Casey',
        answers: [
          { say: 'I like solving problems for people.', delay_ms: 200 },
          { say: 'A customer lost a week of data; we restored it together.', delay_ms: 200 },
          { say: 'I breathe, take notes, and focus on the next step.', delay_ms: 200 },
        ],
        leave_at_ms: 15_000,
      }),
    });
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/interview`,
        bot_config: {
          name: 'Iris',
          bot_prompt: prompt,
          bot_greeting: 'Hi Casey, thanks for joining us today',
        },
      },
    });
    const botId = res.body.bot_id as string;
    const status = await until(async () => {
      const s = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
      return s.transcript?.includes('That was my last question') && s;
    });
    // Turns: consecutive lines of one speaker (the bot speaks sentence by sentence).
    const turns: { speaker: string; text: string }[] = [];
    for (const line of (status.transcript as string).split('\n')) {
      const [speaker, ...rest] = line.split(': ');
      const text = rest.join(': ');
      if (turns.at(-1)?.speaker === speaker) turns.at(-1)!.text += ` ${text}`;
      else turns.push({ speaker: speaker!, text });
    }
    expect(turns.map((t) => t.speaker)).toEqual(['Iris', 'Casey', 'Iris', 'Casey', 'Iris', 'Casey', 'Iris']);
    expect(turns[0]!.text).toBe(
      'Hi Casey, thanks for joining us today. I have 3 questions for you. What drew you to customer support?',
    );
    expect(turns[1]!.text).toBe('I like solving problems for people.');
    expect(turns[2]!.text).toMatch(/Tell me about a difficult customer you helped\?$/);
    expect(turns[4]!.text).toMatch(/How do you stay calm under pressure\?$/);
    expect(turns[6]!.text).toMatch(/That was my last question\./);
    await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
  });

  it('stops speaking within 300 ms when a participant talks over it (room event log)', async () => {
    await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: 'barge' }) });
    const botId = await botIn('barge', {
      name: 'Talker',
      bot_greeting:
        'Hello and welcome to this rather long introduction which goes on and on so that there is plenty of time to interrupt it',
    });
    await until(async () => stack.rooms.rooms.get('barge')?.participants.some((p) => p.kind === 'bot'));
    // Someone joins while the bot is still on its long greeting and talks over it.
    const room = stack.rooms.rooms.get('barge')!;
    await fetch(`${stack.baseUrl}/rooms/barge/participants`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Interrupter', lines: [{ say: 'Sorry to cut in!', at_ms: 100 }] }),
    });
    const cutIn = await until(async () =>
      room.log.find((e) => e.type === 'speaking' && e.name === 'Interrupter' && e.active),
    );
    const botStopped = await until(async () =>
      room.log.find((e) => e.type === 'speaking' && e.name === 'Talker' && !e.active && e.t_ms >= cutIn.t_ms),
    );
    const botStarted = room.log.filter((e) => e.type === 'speaking' && e.name === 'Talker' && e.active);
    expect(botStarted.length).toBeGreaterThan(0);
    // It was speaking when interrupted: its last start came before the cut-in and it would have run far longer.
    expect(botStarted.at(-1)!.t_ms).toBeLessThan(cutIn.t_ms);
    expect(botStopped.t_ms - cutIn.t_ms).toBeLessThan(300);
    await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
  });
});
