// How the bot's Chromium is started: Debian's build, headless, with the flags a WebRTC bot needs.
import { type Browser, chromium } from 'playwright-core';

export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  // Fargate cannot size /dev/shm (notes/daily-bot.md).
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
];

export function launchChromium(
  executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: chromiumFlags });
}
