// The local room's page in Chromium: a person removes someone with the Remove button (the eject route), and sees
// it when they are removed themselves or the room is deleted (issue #13 §2).
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bot-task/providers/daily/chromium';
import { startRoomServer } from '../support/room-server';
import { until } from '../support/until';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe.skipIf(!existsSync(chromiumPath))('local room page', () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startRoomServer>>;
  beforeAll(async () => {
    browser = await launchChromium(chromiumPath);
    server = await startRoomServer();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function joinAs(name: string, room: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.base}/rooms/${room}`);
    await page.fill('#name', name);
    await page.click('#joinForm button');
    await page.waitForSelector('#call:not([hidden])');
    return page;
  }

  it('Remove next to a participant ejects them; the removed person’s page says so', async () => {
    const room = server.rooms.createRoom('remove', false);
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

  it('a deleted room: the page says the room closed', async () => {
    server.rooms.createRoom('deleted', false);
    const ada = await joinAs('Ada', 'deleted');
    expect((await fetch(`${server.base}/rooms/deleted`, { method: 'DELETE' })).status).toBe(200);
    await ada.waitForFunction(() => document.getElementById('status')?.textContent === 'room closed');
    expect(await ada.textContent('#transcript')).toContain('the room deleted has closed');
  });
});
