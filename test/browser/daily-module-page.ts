// A page of the bot's origin with no harness, whose /vendor/daily-esm.js (real daily-js or the stub) is window.Daily:
// for checking what a daily-js build accepts, call by call.
import type { DailyCallFactory } from '@daily-co/daily-js';
import type { Browser, Page } from 'playwright-core';
import { botOrigin } from '../../bot-task/providers/daily/page-assets';

declare global {
  interface Window {
    Daily: DailyCallFactory;
  }
}

/** Opens the page in a new context of `browser`; `prepare` runs before it loads (routes, clock). */
export async function dailyModulePage(
  browser: Browser,
  moduleJs: string,
  prepare?: (page: Page) => Promise<void>,
): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.route(`${botOrigin}/**`, (route) =>
    new URL(route.request().url()).pathname === '/vendor/daily-esm.js'
      ? route.fulfill({ contentType: 'text/javascript', body: moduleJs })
      : route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><script type="module">import Daily from '/vendor/daily-esm.js'; window.Daily = Daily;</script>`,
        }),
  );
  await prepare?.(page);
  await page.goto(`${botOrigin}/`);
  await page.waitForFunction(() => 'Daily' in window);
  return page;
}
