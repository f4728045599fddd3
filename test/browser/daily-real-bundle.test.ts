// The production Daily provider with the real daily-js bundle (no stub) in Chromium, offline: for every set of
// join options the harness can produce, daily-js must accept the options and fail only where the network starts.
//
// Offline, daily-js's join() loads its call machine from Daily's CDN: 3 hosts × 3 passes, 3 s apart, then a fatal
// `connection-error` "Failed to load call object bundle." (dist/daily-esm.js; about 6 s when every request fails at
// once, about 3 minutes when the CDN swallows them: 20 s per attempt). Every request leaving our origin is aborted
// at once and recorded, and the page's clock skips daily-js's 3 s pauses, so its own error path runs in about a
// second. The first request to Daily's CDN proves createCallObject() accepted the options and join() began.
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bot-task/providers/daily/chromium';
import { DailyRoomProvider } from '../../bot-task/providers/daily/daily-provider';
import { botMeetingToken } from '../../bot-task/providers/daily/meeting-token';
import { botOrigin, dailyModule } from '../../bot-task/providers/daily/page-assets';
import { createLogger } from '../../core/log';
import { type JoinOptions, RoomJoinError } from '../../core/ports/room-provider';
import { chromiumPath, requires, skipReason } from '../support/requirements';
import { toneSynthesizer } from '../support/tone-synthesizer';
import { dailyModulePage } from './daily-module-page';
import { startTileServer } from './tile-server';

const dailyVersion: string = createRequire(import.meta.url)('@daily-co/daily-js/package.json').version;
/** Where daily-js 0.92's loader looks for its call machine, in order, on each of its 3 passes. */
const callMachineUrls = ['c.daily.co', 'c.dailywebrtc.com', 'c.dailywebrtc.net'].map(
  (host) => `https://${host}/call-machine/versioned/${dailyVersion}/static/call-machine-object-bundle.js`,
);
/** daily-js reports a fatal connection-error to Daily's Sentry project (`_maybeSendToSentry`). */
const dailySentry = 'https://o77906.ingest.sentry.io/';
/** What daily-js says when its call machine cannot be loaded (error.msg of the fatal `error` event). */
const loadFailed = 'Failed to load call object bundle.';
/** Chromium's line for each aborted request: offline, the only thing the page may log (no daily-js warning). */
const requestAborted = 'error: Failed to load resource: net::ERR_INTERNET_DISCONNECTED';

interface Offline {
  /** Every URL the page tried to reach outside our origin, in order (all aborted). */
  external: string[];
  /** window.bot.tile when daily-js first reached for its CDN (join() under way). */
  tileWhenJoining?: string;
  console: string[];
  pageErrors: string[];
}

/**
 * Cuts the page off from everything but our origin, records what it tried to reach and what it logged, and skips
 * daily-js's pauses between passes: once its first CDN request has been aborted, the page clock jumps 3 s every
 * 50 ms (a jump only fires the timers that have come due; daily-js's own code runs as it would).
 */
async function offline(page: Page, seen: Offline): Promise<void> {
  await page.clock.install();
  page.on('console', (m) => seen.console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => seen.pageErrors.push(e.message));
  let skipping: ReturnType<typeof setInterval> | undefined;
  page.on('close', () => clearInterval(skipping));
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(botOrigin)) return route.fallback();
    if (seen.external.length === 0 && page.url().startsWith(botOrigin)) {
      seen.tileWhenJoining = await page.evaluate(() => window.bot?.tile).catch(() => 'page gone');
      skipping = setInterval(() => void page.clock.fastForward(3000).catch(() => {}), 50);
    }
    seen.external.push(url);
    return route.abort('internetdisconnected');
  });
}

/**
 * The provider's `launch` for one join: a fresh context in a Chromium started once by the production
 * launchChromium(), whose close() closes only that context. Starting a Chromium per join would double this file's
 * time (36 joins) and test nothing more: the other files launch one per join.
 */
function contextIn(browser: Browser): () => Promise<Browser> {
  return async () => {
    let context: BrowserContext | undefined;
    const one = {
      newContext: async () => {
        context = await browser.newContext();
        return context;
      },
      close: async () => context?.close(),
      on: () => one,
    };
    return one as unknown as Browser;
  };
}

describe.skipIf(skipReason(requires.chromium()))(
  'Daily provider in Chromium with the real daily-js, offline',
  () => {
    let browser: Browser;
    let tiles: Awaited<ReturnType<typeof startTileServer>>;
    beforeAll(async () => {
      [browser, tiles] = await Promise.all([launchChromium(chromiumPath), startTileServer()]);
    });
    afterAll(async () => {
      tiles?.close();
      await browser?.close();
    });

    const log = createLogger('silent');
    const tokens = [
      ['absent', undefined],
      ['present', 'caller-meeting-token'],
    ] as const;
    const tileVariants = [
      ['image', 'static'],
      ['name-card', 'static'],
      ['off', 'off'],
    ] as const;
    // bot_config.language reaches the join (bot-task/bot.ts); without it the voice's language is used (Joanna: en-US).
    // Two more Deepgram codes show the language cannot reach daily-js's option checks (it is only sent by
    // startTranscription, after join).
    const languages = [
      ['en-US (the voice’s)', undefined],
      ['es', 'es'],
      ['pt-BR', 'pt-BR'],
    ] as const;
    const rooms = ['https://acme.daily.co/interview', 'https://meet.example.com/interview'] as const;
    const matrix = tokens.flatMap(([token, meetingToken]) =>
      tileVariants.flatMap(([tile, videoMode]) =>
        languages.flatMap(([lang, language]) =>
          rooms.map((roomUrl) => ({ token, meetingToken, tile, videoMode, lang, language, roomUrl })),
        ),
      ),
    );

    it.concurrent.for(matrix)(
      'token $token, tile $tile, language $lang, $roomUrl: daily-js accepts the options and fails only at its CDN',
      async ({ meetingToken, tile, videoMode, language, roomUrl }, { expect }) => {
        const seen: Offline = { external: [], console: [], pageErrors: [] };
        const provider = new DailyRoomProvider({
          log,
          synthesizer: toneSynthesizer,
          allowInsecureFetch: true,
          launch: contextIn(browser),
          // As bot-task/main.ts wires it; without DAILY_API_KEY the caller's token (or none) is used as given.
          meetingToken: (o) =>
            botMeetingToken(
              { apiUrl: 'https://api.daily.invalid/v1' },
              { roomUrl: o.roomUrl, botName: o.botName, callerToken: o.meetingToken, validForSeconds: 3600 },
              log,
            ),
          preparePage: (page) => offline(page, seen),
        });
        const options: JoinOptions = {
          roomUrl,
          meetingToken,
          botName: 'Interviewer',
          videoMode,
          backgroundImageUrl: tile === 'image' ? `${tiles.base}/tile.png` : undefined,
          voice: 'Joanna',
          ...(language && { transcription: { language } }),
          // Longer than daily-js's own failure, so the error below is daily-js's, not our timeout.
          timeoutMs: 45_000,
          waitingRoomTimeoutMs: 45_000,
        };
        const err = await provider.join(options).catch((e) => e);

        expect(err).toBeInstanceOf(RoomJoinError);
        expect({ type: err.type, message: err.providerMessage }).toEqual({
          type: 'unknown',
          message: loadFailed,
        });
        expect(seen.tileWhenJoining).toBe(tile);
        expect(seen.external.filter((url) => !url.startsWith(dailySentry))).toEqual([
          ...callMachineUrls,
          ...callMachineUrls,
          ...callMachineUrls,
        ]);
        expect(new Set(seen.console)).toEqual(new Set([requestAborted]));
        expect(seen.pageErrors).toEqual([]);
      },
    );
  },
);

describe.skipIf(skipReason(requires.chromium()))(
  'daily-js calls the harness makes, checked by the real bundle',
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium(chromiumPath);
    });
    afterAll(() => browser?.close());

    /** A page with the real daily-js as window.Daily and no network; `seen` records what it tried. */
    async function dailyPage(): Promise<{ page: Page; seen: Offline }> {
      const seen: Offline = { external: [], console: [], pageErrors: [] };
      const page = await dailyModulePage(browser, dailyModule(), (p) => offline(p, seen));
      return { page, seen };
    }

    it('createCallObject rejects a present-but-undefined token (the defect the harness no longer has)', async () => {
      const { page } = await dailyPage();
      const thrown = await page.evaluate(() => {
        try {
          window.Daily.createCallObject({
            url: 'https://acme.daily.co/interview',
            token: undefined,
          });
          return 'accepted';
        } catch (e) {
          return (e as Error).message;
        }
      });
      expect(thrown).toBe("property 'token': token should be a string");
      await page.context().close();
    });

    it('before join: startTranscription throws; the audio-level interval of 200 ms passes, below 100 ms does not', async () => {
      const { page, seen } = await dailyPage();
      const result = await page.evaluate(() => {
        const call = window.Daily.createCallObject({ url: 'https://acme.daily.co/interview' });
        const attempt = (f: () => unknown) => {
          try {
            f();
            return 'ok';
          } catch (e) {
            return (e as Error).message;
          }
        };
        return {
          transcription: attempt(() =>
            call.startTranscription({ language: 'en', punctuate: true, includeRawResponse: true }),
          ),
          levels200: attempt(() => call.startRemoteParticipantsAudioLevelObserver(200)),
          levels50: attempt(() => call.startRemoteParticipantsAudioLevelObserver(50)),
          state: call.meetingState(),
        };
      });
      expect(result).toEqual({
        transcription: 'startTranscription() only supported after join.',
        levels200: 'ok',
        levels50: 'The interval must be a number greater than or equal to 100 milliseconds.',
        state: 'new',
      });
      expect(seen.external).toEqual([]);
      await page.context().close();
    });

    // The harness subscribes to each participant's audio (their screen share's too), never video
    // (subscribeToAudio in harness.ts), and stops only a transcription it started. daily-js checks setSubscribedTracks
    // against the call's subscribeToTracksAutomatically: the harness's object passes with it off (as the harness
    // creates the call) and is refused with it on, so this check can fail.
    it('updateParticipant with audio-only subscriptions is accepted with subscribeToTracksAutomatically off; stopTranscription needs a call', async () => {
      const { page, seen } = await dailyPage();
      const result = await page.evaluate(async () => {
        const attempt = (f: () => unknown) => {
          try {
            f();
            return 'ok';
          } catch (e) {
            return (e as Error).message;
          }
        };
        // One call object at a time (daily-js refuses duplicates): each is destroyed before the next.
        const subscribe = async (automatic: boolean) => {
          const call = window.Daily.createCallObject({
            url: 'https://acme.daily.co/interview',
            subscribeToTracksAutomatically: automatic,
          });
          const outcome = attempt(() =>
            call.updateParticipant('p-ann', {
              setSubscribedTracks: { audio: true, screenAudio: true, video: false, screenVideo: false },
            }),
          );
          await call.destroy();
          return outcome;
        };
        const manual = await subscribe(false);
        const automatic = await subscribe(true);
        const call = window.Daily.createCallObject({ url: 'https://acme.daily.co/interview' });
        const stop = attempt(() => call.stopTranscription());
        return { manual, automatic, stop };
      });
      expect(result).toEqual({
        manual: 'ok',
        automatic: expect.stringContaining('setSubscribedTracks'),
        stop: 'stopTranscription() only supported after join.',
      });
      expect(seen.external).toEqual([]);
      await page.context().close();
    });

    it('a failed join: meetingState is already "error" when the fatal error fires, no left-meeting follows; leave() and destroy() settle at once', async () => {
      const { page, seen } = await dailyPage();
      const failed = await page.evaluate(async () => {
        const call = window.Daily.createCallObject({
          url: 'https://acme.daily.co/interview',
          userName: 'Interviewer',
          subscribeToTracksAutomatically: false,
        });
        const events: { action: string; state: string; type?: string; msg?: string; on?: string }[] = [];
        call.on('error', (e) =>
          events.push({
            action: e.action,
            state: call.meetingState(),
            type: e.error?.type,
            msg: e.error?.msg,
            on: e.error?.details?.on,
          }),
        );
        call.on('left-meeting', (e) => events.push({ action: e.action, state: call.meetingState() }));
        const joined = await call.join().then(
          () => 'joined',
          (e: unknown) => (typeof e === 'string' ? e : String(e)),
        );
        (window as unknown as { call: typeof call }).call = call;
        return { joined, events };
      });
      expect(failed.joined).toMatch(/^Failed to load call object bundle https:\/\/c\.dailywebrtc\.net\//);
      expect(failed.events).toEqual([
        { action: 'error', state: 'error', type: 'connection-error', msg: loadFailed, on: 'load' },
      ]);
      // Timed in Node: the page's clock is being fast-forwarded.
      const started = Date.now();
      const destroyed = await page.evaluate(async () => {
        const call = (window as unknown as { call: import('@daily-co/daily-js').DailyCall }).call;
        await call.leave();
        await call.destroy();
        return call.isDestroyed();
      });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(destroyed).toBe(true);
      expect(seen.external.filter((url) => !url.startsWith(dailySentry))).toHaveLength(9);
      await page.context().close();
    });
  },
);
