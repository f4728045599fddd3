// Run by bench/bot-runtime.ts in its own process: one Daily-adapter bot in Chromium against the stubbed daily-js,
// reporting this process's peak RSS and its Chromium's memory (sum of RSS and of PSS over the browser's processes).
import { DailyRoomProvider } from '../bot-task/providers/daily/daily-provider';
import { createLogger } from '../core/log';
import { dailyStubModule, routeStubbedDaily } from '../test/browser/daily-stub-module';
import { toneSynthesizer } from '../test/support/tone-synthesizer';
import { descendants, procKb } from './process-tree';

const stub = await dailyStubModule();

const provider = new DailyRoomProvider({
  synthesizer: toneSynthesizer,
  log: createLogger('silent'),
  preparePage: (page) => routeStubbedDaily(page, stub),
});

const conn = await provider.join({
  roomUrl: 'https://bench.daily.co/room',
  botName: 'RSS probe',
  videoMode: 'static',
  voice: 'Joanna',
  timeoutMs: 30_000,
  waitingRoomTimeoutMs: 600_000,
});
await new Promise((r) => setTimeout(r, 3000));

const browserPids = descendants(process.pid);
const rss = browserPids.reduce((s, pid) => s + procKb(`/proc/${pid}/status`, 'VmRSS'), 0);
const pss = browserPids.reduce((s, pid) => s + procKb(`/proc/${pid}/smaps_rollup`, 'Pss'), 0);
const mib = (k: number) => Math.round((k / 1024) * 10) / 10;
await conn.leave();
process.stdout.write(
  `${JSON.stringify({
    node_peak_rss_mib: mib(process.resourceUsage().maxRSS),
    chromium_processes: browserPids.length,
    chromium_rss_mib: mib(rss),
    chromium_pss_mib: mib(pss),
    note: 'chromium RSS sums every process (shared pages counted more than once); PSS shares them out',
  })}\n`,
);
process.exit(0);
