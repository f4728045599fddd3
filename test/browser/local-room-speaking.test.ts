// The local room's page in Chromium shows what a person needs to talk with the bot: its line marked while it is being
// spoken, marked cut off when someone talked over it, and a recording badge while a bot records.
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { LocalRoomProvider } from '../../bot-task/providers/local-room';
import { requires, skipReason } from '../support/requirements';
import { roomPages } from '../support/room-page';

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('local room page: speaking and recording', () => {
  const pages = roomPages();
  const joinAs = pages.joinAs;

  it('marks the bot’s line while it speaks, and "(cut off)" when it was talked over', async () => {
    pages.server.rooms.createRoom('speaking', false);
    const ada = await joinAs('Ada', 'speaking');
    // 40 ms a character: the first line takes about 2 s to say.
    const bot = await new LocalRoomProvider(40).join({
      roomUrl: `${pages.server.base}/rooms/speaking`,
      botName: 'Iris',
      videoMode: 'off',
      voice: 'Joanna',
      timeoutMs: 5000,
      waitingRoomTimeoutMs: 5000,
    });
    const said = bot.speech.say('Could you tell me about a difficult patient you cared for?');
    await ada.waitForSelector('#transcript div.bot.live');
    expect(await ada.textContent('#transcript div.bot.live')).toContain('difficult patient');
    // Ada answers over it; the bot stops (as its conversation controller does on an answer).
    bot.speech.stop();
    expect(await said).toBe('interrupted');
    await ada.waitForSelector('#transcript div.bot.cut');
    expect(await ada.locator('#transcript div.bot.live').count()).toBe(0);

    // A line heard to its end is left unmarked.
    expect(await bot.speech.say('Thank you.')).toBe('done');
    await ada.waitForFunction(() => document.querySelectorAll('#transcript div.bot.live').length === 0);
    const last = ada.locator('#transcript div.bot').last();
    expect(await last.textContent()).toContain('Thank you.');
    expect(await last.getAttribute('class')).toBe('bot');
    await bot.leave();
  });

  it('shows "● Recording" while a bot records, to people already there and to those who join later', async () => {
    pages.server.rooms.createRoom('recorded', false);
    const ada = await joinAs('Ada', 'recorded');
    expect(await ada.isHidden('#rec')).toBe(true);
    const ws = new WebSocket(
      `${pages.server.base.replace('http', 'ws')}/rooms/recorded/ws?name=Iris&kind=bot`,
    );
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ type: 'listen', audio: true }));
    await ada.waitForSelector('#rec:not([hidden])');
    expect(await ada.textContent('#transcript')).toContain('Iris is recording this meeting.');
    const bob = await joinAs('Bob', 'recorded');
    await bob.waitForSelector('#rec:not([hidden])');
    ws.close();
    await ada.waitForSelector('#rec', { state: 'hidden' });
  });
});
