// The bot page's files, served from our own origin: prebuilt in assets/ in a built task, else built on first use.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A real https origin (daily-js breaks on about:blank), answered by page.route. */
export const botOrigin = 'https://bot-harness.invalid';

const here = dirname(fileURLToPath(import.meta.url));
const prebuilt = join(here, 'assets');

export const pageHtml = `<!doctype html><html><head><meta charset="utf-8"><title>bot</title></head>
<body style="margin:0;background:#000"><script type="module" src="/harness.js"></script></body></html>`;

let harness: Promise<string> | undefined;

export function harnessScript(): Promise<string> {
  harness ??= (async () => {
    const file = join(prebuilt, 'harness.js');
    if (existsSync(file)) return readFileSync(file, 'utf8');
    const { build } = await import('esbuild');
    const out = await build({
      entryPoints: [fileURLToPath(new URL('./page/harness.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      target: 'chrome120',
      write: false,
      minify: true,
      logLevel: 'silent',
    });
    return out.outputFiles[0]!.text;
  })();
  return harness;
}

const dailyModules = new Map<string, string>();

/** The daily-js module the page imports: `path` (DAILY_JS_MODULE_PATH), else the task's bundle, else the package's. */
export function dailyModule(path?: string): string {
  const shipped = join(prebuilt, 'daily-esm.js');
  const file =
    path ??
    (existsSync(shipped)
      ? shipped
      : createRequire(import.meta.url).resolve('@daily-co/daily-js/dist/daily-esm.js'));
  const js = dailyModules.get(file) ?? readFileSync(file, 'utf8');
  dailyModules.set(file, js);
  return js;
}
