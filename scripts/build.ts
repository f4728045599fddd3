// `npm run build` (after tsc): esbuild bundles of every Lambda entry and of the bot-task, into dist/.
import { build } from 'esbuild';
import { routeTable } from '../functions/http/route-table';

/** Lambda entries: one per route name, plus the event-driven handlers added by later issues. */
const lambdaEntries = [...new Set(routeTable.map((r) => r.name))].map((name) => `functions/http/${name}.ts`);

const common = {
  bundle: true,
  platform: 'node' as const,
  target: 'node22',
  format: 'esm' as const,
  minify: true,
  sourcemap: false,
  legalComments: 'none' as const,
  // ESM bundles of CommonJS dependencies need a require() in scope.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning' as const,
  metafile: true,
};

const lambdas = await build({
  ...common,
  entryPoints: lambdaEntries,
  outdir: 'dist/functions',
  outExtension: { '.js': '.mjs' },
  entryNames: '[name]/index',
});

// playwright-core ships browser-side assets it loads from its own package; it stays an external dependency.
const bot = await build({
  ...common,
  entryPoints: ['bot-task/main.ts'],
  outfile: 'dist/bot-task/main.mjs',
  external: ['playwright-core', 'chromium-bidi'],
});

const sizes = [lambdas, bot].flatMap((r) =>
  Object.entries(r.metafile?.outputs ?? {}).map(([f, o]) => `${f} ${(o.bytes / 1024).toFixed(0)} KiB`),
);
process.stdout.write(`${sizes.join('\n')}\n`);
