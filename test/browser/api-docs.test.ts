// The API reference page (GET /docs on the local stack) in Chromium with every request outside our server refused:
// it loads, asks nothing of the network, and lists every operation and webhook of the OpenAPI document.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bot-task/providers/daily/chromium';
import { startTestStack, type TestStack } from '../support/local-stack';
import { chromiumPath, requires, skipReason } from '../support/requirements';

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('API reference at /docs', () => {
  let browser: Browser;
  let stack: TestStack;
  beforeAll(async () => {
    [browser, stack] = await Promise.all([launchChromium(chromiumPath), startTestStack()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('renders offline from our server alone and lists every operation of the document', async () => {
    const context = await browser.newContext();
    const origin = new URL(stack.baseUrl).origin;
    const outside: string[] = [];
    const served: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) {
        served.push(new URL(url).pathname);
        return route.continue();
      }
      outside.push(url);
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${stack.baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });

    const doc = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as {
      info: { title: string };
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, Record<string, unknown>>;
    };
    const expected = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => methods.includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(expected.length).toBeGreaterThanOrEqual(8);
    const listed = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${path}`;
      }),
    );
    for (const operation of expected) expect(listed, operation).toContain(operation);
    // The webhooks too (OpenAPI 3.1): each as a POST under its event name.
    for (const event of Object.keys(doc.webhooks)) expect(listed, event).toContain(`POST ${event}`);
    expect(await page.locator('.info .title').textContent()).toContain(doc.info.title);

    expect(outside).toEqual([]);
    expect(served).toEqual(
      expect.arrayContaining([
        '/docs',
        '/docs/swagger-ui.css',
        '/docs/swagger-ui-bundle.js',
        '/docs/init.js',
        '/openapi.json',
      ]),
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows example dates of one plausible meeting, not ones made up from the date-time pattern', async () => {
    const page = await browser.newPage();
    await page.goto(`${stack.baseUrl}/docs`);
    const examples: string[] = [];
    for (const operation of ['getBotStatus', 'getBotDeliveries', 'getBotRecording']) {
      const block = page.locator(`#operations-bots-${operation}`);
      await block.locator('.opblock-summary').click();
      const example = block.locator('.responses-wrapper .microlight').first();
      await example.waitFor({ timeout: 30_000 });
      examples.push((await example.textContent()) ?? '');
    }
    const dates = examples.join('\n').match(/"\d{4}-\d\d-\d\dT[^"]*"/g) ?? [];
    expect(dates.length).toBeGreaterThanOrEqual(8);
    for (const date of dates) {
      const year = new Date(JSON.parse(date)).getUTCFullYear();
      expect(year, date).toBeGreaterThanOrEqual(2020);
      expect(year, date).toBeLessThanOrEqual(2035);
    }
    await page.close();
  });

  it('serves only the page and its assets under /docs; anything else there is our 404 error body', async () => {
    const missing = await fetch(`${stack.baseUrl}/docs/package.json`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
    const traversal = await fetch(`${stack.baseUrl}/docs/..%2Fpackage.json`);
    expect(traversal.status).toBe(404);
    const post = await fetch(`${stack.baseUrl}/docs`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(await post.json()).toMatchObject({ error: 'not_found' });
  });
});
