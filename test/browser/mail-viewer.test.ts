// The local mail viewer in Chromium: a long results e-mail is shown whole (its frame fits its height), and nothing of
// the mail runs (the frame allows no script).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bot-task/providers/daily/chromium';
import { type LocalMail, mailViewer } from '../../local/mail-viewer';
import { chromiumPath, requires, skipReason } from '../support/requirements';

const longMail: LocalMail = {
  messageId: 'long-mail',
  from: 'bot@example.com',
  destination: { to: ['ada@example.com'] },
  subject: 'Results',
  body: {
    html: `<html><body>${Array.from({ length: 120 }, (_, i) => `<p>Answer ${i}</p>`).join('')}<p id="last">The end</p><script>document.title='ran'</script></body></html>`,
    text: 'Results',
  },
  at: Math.floor(Date.now() / 1000),
};

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('local mail viewer page', () => {
  let browser: Browser;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    browser = await launchChromium(chromiumPath);
    const handle = mailViewer(() => [longMail]);
    server = createServer((req, res) => {
      void handle(req, res).then((handled) => {
        if (!handled) res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => server?.close(r));
  });

  it('shows a long mail whole, with its sent time, and runs none of its scripts', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/mail/long-mail`);
    const frame = page.frameLocator('iframe[title="HTML part"]');
    await frame.locator('#last').waitFor();
    const heights = await page.evaluate(() => {
      const f = document.querySelector('iframe') as HTMLIFrameElement;
      return {
        frame: f.getBoundingClientRect().height,
        content: f.contentDocument!.documentElement.scrollHeight,
      };
    });
    expect(heights.content).toBeGreaterThan(1000);
    expect(heights.frame).toBeGreaterThanOrEqual(heights.content);
    expect(await frame.locator('html').evaluate(() => document.title)).not.toBe('ran');
    expect(await page.textContent('body')).toContain(new Date(longMail.at * 1000).toISOString());
  });
});
