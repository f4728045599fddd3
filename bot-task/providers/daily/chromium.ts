// How the bot's Chromium is started: Debian's build, headless, with the flags a WebRTC bot needs.
import type { Browser } from 'playwright-core';

export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  // Fargate cannot size /dev/shm.
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
];

export async function launchChromium(
  executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
): Promise<Browser> {
  // Loaded here, not at the top: playwright-core costs about half a second of start-up a local bot never needs.
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath,
    headless: true,
    args: chromiumFlags,
    // SIGTERM is the task's to handle (main.ts): a leave request leaves the call first, a platform stop keeps
    // transcribing while the replacement joins. Playwright's default would close the browser at once,
    // dropping the bot out of the call before either. On exit Playwright still kills the browser.
    handleSIGTERM: false,
  });
}
