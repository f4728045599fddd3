// The bot's Chromium outlives a SIGTERM to the task: the task decides when to leave the call (main.ts):
// a platform stop keeps the bot transcribing until its replacement is in the room.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { chromiumPath, requires, skipReason } from '../support/requirements';

const launcher = new URL('../../bot-task/providers/daily/chromium.ts', import.meta.url).pathname;

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('launchChromium and signals', () => {
  it('a SIGTERM to the process leaves the browser running until the process closes it', async () => {
    const script = `
      const { launchChromium } = await import(${JSON.stringify(launcher)});
      const browser = await launchChromium(${JSON.stringify(chromiumPath)});
      process.on('SIGTERM', async () => {
        // A moment in which Playwright's own SIGTERM handler would have closed the browser.
        await new Promise((r) => setTimeout(r, 300));
        console.log(browser.isConnected() ? 'still connected' : 'closed by the signal');
        await browser.close();
        process.exit(0);
      });
      console.log('ready');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
      if (out.includes('ready') && !child.killed) child.kill('SIGTERM');
    });
    await new Promise((resolve) => child.once('exit', resolve));
    expect(out).toContain('still connected');
  });
});
