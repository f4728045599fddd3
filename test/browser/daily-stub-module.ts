// The daily-js stand-in (daily-stub.ts) compiled for the bot page, as the ES module it imports at
// /vendor/daily-esm.js: for the browser tests, and for bot processes of the local stack (DAILY_JS_MODULE_PATH) in the
// join-latency benchmark and the integration tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { botOrigin } from '../../bot-task/providers/daily/page-assets';
import { freePort } from '../support/free-port';
import type { StubScenario } from './daily-stub';

/**
 * The stub as one ES module. With `scenario`, that is the room it plays unless the page sets
 * `window.__dailyStubScenario` first (a bot process started by the local stack has no test to set it). `module`: a
 * module exporting a stub of its own (one that wraps this one), relative to this folder.
 */
export async function dailyStubModule(scenario?: StubScenario, module = './daily-stub'): Promise<string> {
  const preset = scenario ? `window.__dailyStubScenario ??= ${JSON.stringify(scenario)};` : '';
  const out = await build({
    stdin: {
      contents: `import stub from '${module}';\n${preset}\nexport default stub;`,
      resolveDir: new URL('.', import.meta.url).pathname,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

/**
 * For a bot page (DailyRoomProvider's preparePage): it imports `moduleJs` as daily-js, and every request off the bot's
 * origin is refused, so nothing leaves the machine.
 */
export async function routeStubbedDaily(page: Page, moduleJs: string): Promise<void> {
  await page.route('**/*', (route) =>
    route.request().url().startsWith(botOrigin) ? route.fallback() : route.abort(),
  );
  await page.route(`${botOrigin}/vendor/daily-esm.js`, (route) =>
    route.fulfill({ contentType: 'text/javascript', body: moduleJs }),
  );
}

/**
 * The environment under which the local stack's bots run the Daily provider against the stand-in (`module`: another
 * stub, as in dailyStubModule), with a person (Ann) in every room (and what else `scenario` says): Daily's servers,
 * its REST API and Polly are past the network, so none of them is reached. No DAILY_API_KEY: the bot joins with the
 * caller's token, no REST call. Polly's endpoint is a closed local port: a greeting fails at once, after the join.
 * `close()` removes the module file.
 */
export async function stubbedDailyBots(
  scenario: StubScenario = {},
  module?: string,
): Promise<{ env: Record<string, string>; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'daily-stub-'));
  const modulePath = join(dir, 'daily-stub.js');
  writeFileSync(
    modulePath,
    await dailyStubModule({ present: [{ id: 'p-ann', name: 'Ann' }], ...scenario }, module),
  );
  return {
    env: {
      DAILY_JS_MODULE_PATH: modulePath,
      DAILY_API_KEY: '',
      // The SDK's credential chain would otherwise look for an instance role (a network call).
      AWS_ACCESS_KEY_ID: 'stub',
      AWS_SECRET_ACCESS_KEY: 'stub',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_POLLY: `http://127.0.0.1:${await freePort()}`,
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
