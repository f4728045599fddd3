// The local room's page in Chromium: a person removes someone with the Remove button (the eject route), and sees
// it when they are removed themselves or the room is deleted; in a knocking room they admit or deny whoever
// asks to join.
import { describe, expect, it } from 'vitest';
import { LocalRoomProvider } from '../../bot-task/providers/local-room';
import { RoomJoinError } from '../../core/ports/room-provider';
import { requires, skipReason } from '../support/requirements';
import { roomPages } from '../support/room-page';
import { until } from '../support/until';

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('local room page', () => {
  const pages = roomPages();
  const joinAs = pages.joinAs;

  it('Remove next to a participant ejects them; the removed person’s page says so', async () => {
    const room = pages.server.rooms.createRoom('remove', false);
    const ada = await joinAs('Ada', 'remove');
    const bob = await joinAs('Bob', 'remove');
    await ada.waitForSelector('#people li:has-text("Bob") button.remove');
    // No Remove button next to yourself.
    expect(await ada.locator('#people li:has-text("(you)") button.remove').count()).toBe(0);

    await ada.click('#people li:has-text("Bob") button.remove');
    await until(() => room.participants.every((p) => p.name !== 'Bob'), 5000);
    await bob.waitForFunction(() => document.getElementById('status')?.textContent === 'removed');
    expect(await bob.textContent('#transcript')).toContain('removed from the room remove');
    await ada.waitForFunction(() => !document.getElementById('people')?.textContent?.includes('Bob'));
  });

  // A knocking room's page lets the people in it answer whoever asks to join.
  it('a knocking room: "Scribe is asking to join — Admit / Deny"; Admit lets the bot in, Deny turns it away', async () => {
    const room = pages.server.rooms.createRoom('knock', false, { knocking: true });
    const ada = await joinAs('Ada', 'knock');
    const provider = new LocalRoomProvider(1);
    const join = (botName: string) =>
      provider
        .join({
          roomUrl: `${pages.server.base}/rooms/knock`,
          botName,
          videoMode: 'off',
          voice: 'Joanna',
          timeoutMs: 5000,
          waitingRoomTimeoutMs: 30_000,
        })
        .catch((e: unknown) => e);

    const scribe = join('Scribe');
    await ada.waitForSelector('#lobby:not([hidden]) .knock');
    expect(await ada.textContent('#lobby .knock')).toBe('Scribe is asking to join — Admit / Deny');
    await ada.click('#lobby .knock button.admit');
    const conn = await scribe;
    expect(conn).toHaveProperty('selfId');
    await ada.waitForSelector('#people li:has-text("Scribe")');
    await ada.waitForSelector('#lobby', { state: 'hidden' });

    const other = join('Other bot');
    await ada.waitForSelector('#lobby .knock:has-text("Other bot is asking to join")');
    await ada.click('#lobby .knock button.deny');
    expect(await other).toBeInstanceOf(RoomJoinError);
    expect(await other).toMatchObject({ type: 'auth_error' });
    await ada.waitForSelector('#lobby', { state: 'hidden' });
    expect(room.participants.map((p) => p.name)).toEqual(['Ada', 'Scribe']);
    await (conn as { leave(): Promise<void> }).leave();
  });

  it('a person without the token of a private knocking room asks to join and gets in when admitted', async () => {
    const room = pages.server.rooms.createRoom('knock-private', true, { knocking: true });
    const host = await pages.newPage();
    await host.goto(`${pages.server.base}/rooms/knock-private?token=${room.token}`);
    await host.fill('#name', 'Host');
    await host.click('#joinForm button');
    await host.waitForSelector('#call:not([hidden])');

    const guest = await pages.newPage();
    await guest.goto(`${pages.server.base}/rooms/knock-private`);
    await guest.fill('#name', 'Gail');
    await guest.click('#joinForm button');
    await guest.waitForFunction(() => document.getElementById('status')?.textContent === 'asking to join');
    expect(await guest.textContent('#joinError')).toContain('waiting for someone in the room to let you in');
    expect(await guest.isHidden('#call')).toBe(true);

    await host.click('#lobby .knock:has-text("Gail is asking to join") button.admit');
    await guest.waitForSelector('#call:not([hidden])');
    await guest.waitForSelector('#people li:has-text("Host")');
    expect(room.participants.map((p) => p.name)).toEqual(['Host', 'Gail']);
  });

  it('a deleted room: the page says the room closed', async () => {
    pages.server.rooms.createRoom('deleted', false);
    const ada = await joinAs('Ada', 'deleted');
    expect((await fetch(`${pages.server.base}/rooms/deleted`, { method: 'DELETE' })).status).toBe(200);
    await ada.waitForFunction(() => document.getElementById('status')?.textContent === 'room closed');
    expect(await ada.textContent('#transcript')).toContain('the room deleted has closed');
  });

  it('after Leave the page lists nobody and offers nothing to say; the mic button is drawn, not an emoji glyph', async () => {
    pages.server.rooms.createRoom('leaving', false);
    const ada = await joinAs('Ada', 'leaving');
    await joinAs('Bob', 'leaving');
    await ada.waitForSelector('#people li:has-text("Bob")');
    expect(await ada.locator('#mic svg').count()).toBe(1);
    expect(await ada.textContent('#mic')).not.toContain('🎤');
    await ada.click('#leave');
    await ada.waitForFunction(() => document.getElementById('status')?.textContent === 'left');
    expect(await ada.locator('#people li').count()).toBe(0);
    expect(await ada.isDisabled('#line')).toBe(true);
    expect(await ada.isDisabled('#sayForm button.primary')).toBe(true);
    expect(await ada.textContent('#transcript')).toContain('You left the room.');
  });
});
