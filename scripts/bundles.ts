// esbuild settings shared by `npm run build` and the local task runner, and the bot-task bundle with its page assets.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build } from 'esbuild';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export const nodeBundle: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  // ESM bundles of CommonJS dependencies need a require() in scope.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
};

/**
 * Bundles bot-task/main.ts into `outDir/main.mjs`, with the bot page's assets beside it in `outDir/assets`
 * (bot-task/providers/daily/page-assets.ts looks there first). playwright-core stays external: it loads files
 * from its own package at run time.
 */
export async function buildBotTaskBundle(outDir: string): Promise<{ bytes: number }> {
  mkdirSync(join(outDir, 'assets'), { recursive: true });
  const bot = await build({
    ...nodeBundle,
    entryPoints: [join(repoRoot, 'bot-task/main.ts')],
    outfile: join(outDir, 'main.mjs'),
    external: ['playwright-core', 'chromium-bidi'],
  });
  const harness = await build({
    entryPoints: [join(repoRoot, 'bot-task/providers/daily/page/harness.ts')],
    bundle: true,
    format: 'esm',
    target: 'chrome120',
    minify: true,
    write: false,
    logLevel: 'warning',
  });
  writeFileSync(join(outDir, 'assets', 'harness.js'), harness.outputFiles[0]!.text);
  copyFileSync(
    createRequire(import.meta.url).resolve('@daily-co/daily-js/dist/daily-esm.js'),
    join(outDir, 'assets', 'daily-esm.js'),
  );
  return { bytes: Object.values(bot.metafile?.outputs ?? {}).reduce((s, o) => s + o.bytes, 0) };
}
