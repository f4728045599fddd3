// `npm run build` (after tsc): esbuild bundles of every Lambda entry and of the bot-task (with its page assets) into dist/.
import { build } from 'esbuild';
import { routeTable } from '../functions/http/route-table';
import { buildBotTaskBundle, nodeBundle } from './bundles';

/** Lambda entries: one per HTTP route name and the unmatched-route fallback, plus the queue, event and schedule handlers. */
const lambdaEntries = [
  ...new Set(routeTable.map((r) => `functions/http/${r.name}.ts`)),
  'functions/http/not-found.ts',
  'functions/results/handler.ts',
  'functions/control/handler.ts',
  'functions/delivery/handler.ts',
  'functions/ops/task-stopped.ts',
  'functions/ops/sweep-heartbeats.ts',
  'functions/ops/run-scheduler.ts',
];

const lambdas = await build({
  ...nodeBundle,
  target: 'node22',
  entryPoints: lambdaEntries.map((entry) => ({
    in: entry,
    out: entry.replace(/^functions\//, '').replace(/\.ts$/, ''),
  })),
  outdir: 'dist/functions',
  outExtension: { '.js': '.mjs' },
});
const bot = await buildBotTaskBundle('dist/bot-task');

const lines = Object.entries(lambdas.metafile?.outputs ?? {}).map(
  ([f, o]) => `${f} ${(o.bytes / 1024).toFixed(0)} KiB`,
);
lines.push(`dist/bot-task/main.mjs ${(bot.bytes / 1024).toFixed(0)} KiB (+ assets/)`);
process.stdout.write(`${lines.join('\n')}\n`);
