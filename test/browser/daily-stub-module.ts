// The daily-js stand-in (daily-stub.ts) compiled for the bot page, as the ES module it imports at
// /vendor/daily-esm.js: for the browser tests, and for the join-latency benchmark's bots (DAILY_JS_MODULE_PATH).
import { build } from 'esbuild';
import type { StubScenario } from './daily-stub';

/**
 * The stub as one ES module. With `scenario`, that is the room it plays unless the page sets
 * `window.__dailyStubScenario` first (a bot process started by the local stack has no test to set it).
 */
export async function dailyStubModule(scenario?: StubScenario): Promise<string> {
  const preset = scenario ? `window.__dailyStubScenario ??= ${JSON.stringify(scenario)};` : '';
  const out = await build({
    stdin: {
      contents: `import stub from './daily-stub';\n${preset}\nexport default stub;`,
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
