// The local room's voice: a reply's opening clause said on its own (SayOptions.continues) reaches the room as one line
// with the rest of its sentence, and is dropped with it when the bot is cut off before the rest; through the real room
// server over WebSocket.
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LocalRoomProvider } from '../../bot-task/providers/local-room';
import { roomServersPerTest } from '../support/room-server';
import { quietFor, until } from '../support/until';

const { cleanups, startRooms } = roomServersPerTest();

const provider = new LocalRoomProvider(1);

async function setUp() {
  const { rooms, base } = await startRooms();
  rooms.createRoom('chat', false);
  const conn = await provider.join({
    roomUrl: `${base}/rooms/chat`,
    botName: 'Iris',
    videoMode: 'off',
    voice: 'Joanna',
    timeoutMs: 5000,
    waitingRoomTimeoutMs: 5000,
  });
  cleanups.push(() => conn.leave());
  const ws = new WebSocket(`${base.replace('http', 'ws')}/rooms/chat/ws?name=Ada&kind=human`);
  const messages: { type: string; text?: string; participant_id?: string }[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(String(d))));
  await until(() => messages.find((m) => m.type === 'welcome'), 5000);
  cleanups.push(() => ws.terminate());
  const botLines = () =>
    messages.filter((m) => m.type === 'utterance' && m.participant_id === conn.selfId).map((m) => m.text);
  return { conn, botLines };
}

describe('local room: a reply’s opening clause', () => {
  it('is one line in the room with the rest of its sentence', async () => {
    const { conn, botLines } = await setUp();
    expect(await conn.speech.say('Thank you,', { continues: true })).toBe('done');
    expect(await conn.speech.say('that is helpful.')).toBe('done');
    await until(() => botLines().length > 0, 5000);
    // And no second line.
    await quietFor(100);
    expect(botLines()).toEqual(['Thank you, that is helpful.']);
  });

  it('is dropped when the bot is cut off before the rest', async () => {
    const { conn, botLines } = await setUp();
    await conn.speech.say('Thank you,', { continues: true });
    conn.speech.stop();
    await conn.speech.say('Next question.');
    await until(() => botLines().length > 0, 5000);
    // And no line with the dropped clause after it.
    await quietFor(100);
    expect(botLines()).toEqual(['Next question.']);
  });
});
