// The Daily provider's warm-up for the warm pool, in real Chromium with the stubbed daily-js: a pooled bot prepares its
// browser and page before it has a room, and the join then only joins.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFlags, launchChromium } from '../../bot-task/providers/daily/chromium';
import { DailyRoomProvider } from '../../bot-task/providers/daily/daily-provider';
import { botOrigin } from '../../bot-task/providers/daily/page-assets';
import { createLogger } from '../../core/log';
import type { RoomConnection } from '../../core/ports/room-provider';
import { recordingLogger } from '../support/recording-logger';
import { chromiumPath, requires, skipReason } from '../support/requirements';
import { toneSynthesizer } from '../support/tone-synthesizer';
import { until } from '../support/until';
import { dailyStubModule } from './daily-stub-module';

let dir: string;
let stubPath: string;

beforeAll(async () => {
  // Served the way an operator's DAILY_JS_MODULE_PATH is: a file the page imports as daily-js.
  dir = mkdtempSync(join(tmpdir(), 'daily-warm-'));
  stubPath = join(dir, 'daily-stub.js');
  writeFileSync(stubPath, await dailyStubModule({ present: [{ id: 'p-ann', name: 'Ann' }] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A provider whose launches are counted (and can be made to fail); every request off our origin is refused. */
function counted(failLaunches = 0) {
  const browsers: Browser[] = [];
  const external: string[] = [];
  let failures = failLaunches;
  const provider = new DailyRoomProvider({
    log: createLogger('silent'),
    synthesizer: toneSynthesizer,
    dailyModulePath: stubPath,
    launch: async () => {
      if (failures-- > 0) throw new Error('no browser today');
      const browser = await launchChromium(chromiumPath);
      browsers.push(browser);
      return browser;
    },
    preparePage: async (page) => {
      await page.route('**/*', (route) => {
        if (route.request().url().startsWith(botOrigin)) return route.fallback();
        external.push(route.request().url());
        return route.abort();
      });
    },
  });
  return { provider, browsers, external };
}

const joinOptions = {
  roomUrl: 'https://acme.daily.co/interview',
  botName: 'Interviewer',
  videoMode: 'static' as const,
  voice: 'Joanna' as const,
  timeoutMs: 15_000,
  waitingRoomTimeoutMs: 15_000,
};

async function timedJoin(provider: DailyRoomProvider): Promise<{ conn: RoomConnection; ms: number }> {
  const started = performance.now();
  const conn = await provider.join(joinOptions);
  return { conn, ms: performance.now() - started };
}

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('Daily provider warm-up (stubbed daily-js)', () => {
  const open: RoomConnection[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.leave()));
  });

  it('warm() then join(): the prepared page joins, no second browser, faster than a cold join', async () => {
    const cold = counted();
    const coldJoin = await timedJoin(cold.provider);
    open.push(coldJoin.conn);

    const warm = counted();
    await warm.provider.warm();
    expect(warm.browsers).toHaveLength(1);
    const warmJoin = await timedJoin(warm.provider);
    open.push(warmJoin.conn);
    expect(warm.browsers).toHaveLength(1);
    expect(warmJoin.conn.participants()).toEqual([{ participantId: 'p-ann', name: 'Ann' }]);
    expect(warmJoin.ms).toBeLessThan(coldJoin.ms);
    expect([...cold.external, ...warm.external]).toEqual([]);

    // One browser per session: it goes with the leave, and a later join starts a fresh one.
    await warmJoin.conn.leave();
    expect(warm.browsers[0]!.isConnected()).toBe(false);
  });

  it('a warm page no join took is closed by close()', async () => {
    const { provider, browsers } = counted();
    await provider.warm();
    await provider.close();
    expect(browsers).toHaveLength(1);
    expect(browsers[0]!.isConnected()).toBe(false);
  });

  it('a warm browser that dies while waiting is replaced at once, and the join takes the new one', async () => {
    const { chromium } = await import('playwright-core');
    const servers: Awaited<ReturnType<typeof chromium.launchServer>>[] = [];
    const logs: string[] = [];
    const provider = new DailyRoomProvider({
      log: recordingLogger(logs),
      synthesizer: toneSynthesizer,
      dailyModulePath: stubPath,
      // A browser whose process the test can kill, as the OOM killer would.
      launch: async () => {
        const server = await chromium.launchServer({
          executablePath: chromiumPath,
          headless: true,
          args: chromiumFlags,
        });
        servers.push(server);
        return chromium.connect(server.wsEndpoint());
      },
    });
    try {
      await provider.warm();
      servers[0]!.process().kill('SIGKILL');
      await until(
        () =>
          servers.length === 2 &&
          logs.includes('warn the warm bot browser died while waiting; preparing another'),
      );
      await provider.warm();
      const { conn } = await timedJoin(provider);
      open.push(conn);
      expect(servers).toHaveLength(2);
      expect(conn.participants()).toEqual([{ participantId: 'p-ann', name: 'Ann' }]);
    } finally {
      await Promise.all(servers.map((s) => s.close().catch(() => {})));
    }
  });

  it('join() after a failed warm() starts its own browser and joins', async () => {
    const { provider, browsers } = counted(1);
    await expect(provider.warm()).rejects.toThrow('no browser today');
    const { conn } = await timedJoin(provider);
    open.push(conn);
    expect(browsers).toHaveLength(1);
    expect(conn.selfId).toBe('bot-session');
  });
});
