// For a browser test file: a local room server and Chromium for the whole describe block, and people joining a
// room from its page as a person does.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from '../../bot-task/providers/daily/chromium';
import { chromiumPath } from './requirements';
import { startRoomServer } from './room-server';

/** Call inside a describe block: its beforeAll starts both, its afterAll stops them. */
export function roomPages() {
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
  return {
    get server() {
      return server;
    },
    /** A page in a browser context of its own (a person of their own). */
    async newPage(): Promise<Page> {
      return (await browser.newContext()).newPage();
    },
    /** A person named `name` opens `room`'s page in a browser of their own and joins. */
    async joinAs(name: string, room: string): Promise<Page> {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${server.base}/rooms/${room}`);
      await page.fill('#name', name);
      await page.click('#joinForm button');
      await page.waitForSelector('#call:not([hidden])');
      return page;
    },
  };
}
