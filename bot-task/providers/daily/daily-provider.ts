// RoomProvider for Daily: Playwright drives headless Chromium, whose page (our origin) runs daily-js.
import type { Browser, Page } from 'playwright-core';
import { joinErrorTypeOf } from '../../../core/bots/join-errors';
import type { Logger } from '../../../core/log';
import { fetchImage } from '../../../core/net/fetch-image';
import {
  JoinAbortedError,
  type JoinOptions,
  type RecordOptions,
  type RoomConnection,
  type RoomEvents,
  RoomJoinError,
  type RoomParticipant,
  type RoomProvider,
} from '../../../core/ports/room-provider';
import type { Synthesizer } from '../../../core/ports/synthesizer';
import { transcriptionLanguageFor } from '../../../core/transcription-languages';
import { type JoinLimits, joinLimits } from '../join-limits';
import { RoomEventHub } from '../room-events';
import { launchChromium } from './chromium';
import { dailySpeech } from './daily-speech';
import type { HarnessEvent, HarnessJoinOptions, HarnessJoinResult } from './page/harness';
import { botOrigin, dailyModule, harnessScript, pageHtml } from './page-assets';

export interface DailyProviderOptions {
  log: Logger;
  synthesizer: Synthesizer;
  /** Local mode: the tile image may come from http or a private address (as ALLOW_INSECURE_WEBHOOKS). */
  allowInsecureFetch?: boolean;
  launch?: () => Promise<Browser>;
  /** The token to join with (the caller's, or one the bot mints for itself: meeting-token.ts). */
  meetingToken?: (options: JoinOptions) => Promise<string | undefined>;
  /** Called with the page once our routes are in place, before it loads (tests add a stubbed daily-js here). */
  preparePage?: (page: Page) => Promise<void>;
  /** An ES module file the page imports as daily-js instead of the shipped bundle (DAILY_JS_MODULE_PATH). */
  dailyModulePath?: string;
}

/** A browser of its own with the bot page loaded and daily-js ready: everything a join needs but the room. */
interface PreparedPage {
  browser: Browser;
  page: Page;
  /** Where the page's events go: logged while the page waits for its room, then join()'s. */
  onEvent: (e: HarnessEvent) => void;
  crashed: boolean;
}

/** How many times one provider prepares a new warm page after the last one died while waiting. */
const maxRewarms = 3;

export class DailyRoomProvider implements RoomProvider {
  private warming: Promise<PreparedPage> | undefined;
  /** Warm pages lost while waiting and prepared again; bounded, so a browser that keeps dying is left to the join. */
  private rewarmed = 0;

  constructor(private readonly options: DailyProviderOptions) {}

  /** Prepares a page before the room is known (a pooled bot) for the next join(); one browser serves one session. */
  warm(): Promise<void> {
    if (!this.warming) {
      const warming = this.preparePage();
      this.warming = warming;
      // A failed warm-up is the caller's to log; join() starts afresh (takeWarmPage).
      warming.then((prepared) => this.watchWhileWaiting(prepared, warming)).catch(() => {});
    }
    return this.warming.then(() => {});
  }

  /** A pooled bot may wait for hours: a warm browser that dies meanwhile is replaced at once. */
  private watchWhileWaiting(prepared: PreparedPage, warming: Promise<PreparedPage>): void {
    const { log } = this.options;
    const lost = () => {
      // Taken by a join or discarded by close(): not ours to replace.
      if (this.warming !== warming) return;
      this.warming = undefined;
      void prepared.browser.close().catch(() => {});
      if (this.rewarmed >= maxRewarms) {
        log.warn('the warm bot browser died again while waiting; the join will start a fresh one');
        return;
      }
      this.rewarmed++;
      log.warn('the warm bot browser died while waiting; preparing another');
      this.warm().catch((err) =>
        log.warn('preparing another warm bot page failed; the join will start a fresh one', { err }),
      );
    };
    prepared.browser.on('disconnected', lost);
    prepared.page.on('crash', lost);
  }

  async close(): Promise<void> {
    await (await this.takeWarming())?.browser.close().catch(() => {});
  }

  private takeWarming(): Promise<PreparedPage | undefined> {
    const warming = this.warming;
    this.warming = undefined;
    return warming?.catch(() => undefined) ?? Promise.resolve(undefined);
  }

  /** The page warm() prepared, if it is still usable. */
  private async takeWarmPage(): Promise<PreparedPage | null> {
    const prepared = await this.takeWarming();
    if (!prepared) return null;
    if (prepared.browser.isConnected() && !prepared.page.isClosed() && !prepared.crashed) return prepared;
    this.options.log.warn('the warm bot page died while waiting; starting a fresh browser');
    await prepared.browser.close().catch(() => {});
    return null;
  }

  /** A new browser with the bot page loaded and daily-js ready; closed again when that fails. */
  private async preparePage(): Promise<PreparedPage> {
    const { log } = this.options;
    const browser = await (this.options.launch ?? launchChromium)();
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      const prepared: PreparedPage = {
        browser,
        page,
        crashed: false,
        onEvent: (e) => {
          if (e.type === 'log') log[e.level]('daily page', { detail: e.message });
        },
      };
      page.on('pageerror', (err) => log.warn('bot page error', { err: err.message }));
      page.on('crash', () => {
        prepared.crashed = true;
        prepared.onEvent({ type: 'disconnected', kind: 'crashed', reason: 'the bot page crashed' });
      });
      await page.exposeBinding('__botEvent', (_source, event: HarnessEvent) => prepared.onEvent(event));
      const harness = await harnessScript();
      const daily = dailyModule(this.options.dailyModulePath);
      await page.route(`${botOrigin}/**`, (route) => {
        const path = new URL(route.request().url()).pathname;
        if (path === '/') return route.fulfill({ contentType: 'text/html', body: pageHtml });
        if (path === '/harness.js') return route.fulfill({ contentType: 'text/javascript', body: harness });
        if (path === '/vendor/daily-esm.js')
          return route.fulfill({ contentType: 'text/javascript', body: daily });
        return route.fulfill({ status: 404, body: '' });
      });
      await this.options.preparePage?.(page);
      await page.goto(`${botOrigin}/`);
      await page.waitForFunction(() => typeof window.bot?.join === 'function', undefined, {
        timeout: 10_000,
      });
      await page.evaluate(() => window.bot.ready());
      return prepared;
    } catch (err) {
      await browser.close().catch(() => {});
      throw err;
    }
  }

  /** The tile image as a data: URL, or undefined for the generated name card (also when fetching fails). */
  private async tileImage(options: JoinOptions): Promise<string | undefined> {
    if (options.videoMode !== 'static' || !options.backgroundImageUrl) return undefined;
    try {
      return await fetchImage(options.backgroundImageUrl, {
        allowInsecure: this.options.allowInsecureFetch ?? false,
      });
    } catch (err) {
      this.options.log.warn('tile image not usable; showing the name card', {
        err: err instanceof Error ? err.message : String(err),
      });
      return undefined;
    }
  }

  async join(options: JoinOptions): Promise<RoomConnection> {
    const { log } = this.options;
    const emitter = new RoomEventHub();
    const people = new Map<string, RoomParticipant>();
    let closing = false;
    // The join's limits start once the page is ready; the page says when it is in the lobby.
    let giveUp: (err: Error) => void = () => {};
    const expired = new Promise<never>((_, reject) => {
      giveUp = reject;
    });
    let limits: JoinLimits | undefined;

    const onEvent = (e: HarnessEvent) => {
      switch (e.type) {
        case 'disconnected':
          // Reported once (RoomEventHub): a crashed page and then its browser going away are one disconnection.
          if (!closing) emitter.emit(e.type, { kind: e.kind, reason: e.reason });
          break;
        case 'waiting-room':
          limits?.lobby();
          break;
        case 'log':
          log[e.level]('daily page', { detail: e.message });
          break;
        case 'recording-piece':
          onPiece?.({ seq: e.seq, bytes: new Uint8Array(Buffer.from(e.data, 'base64')) });
          break;
        default: {
          const { type, ...payload } = e;
          if (e.type === 'participant-joined') people.set(e.participantId, payload as RoomParticipant);
          if (e.type === 'participant-left') people.delete(e.participantId);
          emitter.emit(type, payload as RoomEvents[typeof type]);
        }
      }
    };
    let onPiece: RecordOptions['onPiece'] | undefined;

    let browser: Browser | undefined;
    let page: Page;
    let result: HarnessJoinResult;
    try {
      // The tile image and the token are fetched while the browser starts; neither throws (each falls back).
      const preparing = this.takeWarmPage().then((warm) => warm ?? this.preparePage());
      const [prepared, imageDataUrl, token] = await Promise.all([
        preparing,
        this.tileImage(options),
        this.options.meetingToken ? this.options.meetingToken(options) : options.meetingToken,
      ]).catch(async (err) => {
        await (await preparing.catch(() => undefined))?.browser.close().catch(() => {});
        throw err;
      });
      ({ browser, page } = prepared);
      prepared.onEvent = onEvent;
      const joinOptions: HarnessJoinOptions = {
        imageDataUrl,
        url: options.roomUrl,
        token,
        userName: options.botName,
        videoMode: options.videoMode,
        language: options.transcription?.language ?? transcriptionLanguageFor(options.voice),
        transcriptionRetryMs: options.transcription?.retryMs ?? 5000,
        endpointingMs: options.transcription?.endpointingMs,
        interimResults: options.transcription?.interimResults,
        stopperLeaveGraceMs: options.transcription?.stopperLeaveGraceMs,
      };
      limits = joinLimits(options, giveUp);
      result = await Promise.race([page.evaluate((o) => window.bot.join(o), joinOptions), expired]);
    } catch (err) {
      // Closing the browser also takes the bot out of a lobby it was waiting in.
      await browser?.close().catch(() => {});
      if (err instanceof RoomJoinError || err instanceof JoinAbortedError) throw err;
      throw new RoomJoinError(
        'unknown',
        `the bot browser failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      limits?.settled();
    }
    if (!result.ok) {
      await browser.close().catch(() => {});
      throw new RoomJoinError(joinErrorTypeOf(result.errorType), result.message);
    }
    for (const p of result.participants) people.set(p.participantId, p);
    browser.on('disconnected', () =>
      onEvent({ type: 'disconnected', kind: 'crashed', reason: 'the bot browser exited' }),
    );

    /** False once the bot is leaving: nothing more is sent. */
    const sendText = async (text: string) => {
      if (closing) return false;
      await page.evaluate(([t, name]) => window.bot.sendText(t, name), [text, options.botName] as const);
      return true;
    };
    const speech = dailySpeech({
      synthesizer: this.options.synthesizer,
      voice: options.voice,
      closing: () => closing,
      player: {
        open: (line, rate) => page.evaluate(([l, r]) => window.bot.openAudio(l, r), [line, rate] as const),
        push: (line, pcm) => page.evaluate(([l, p]) => window.bot.pushAudio(l, p), [line, pcm] as const),
        end: (line) => page.evaluate((l) => window.bot.endAudio(l), line),
        stop: () => void page.evaluate(() => window.bot.stopSpeech()).catch(() => {}),
      },
      async write(text) {
        if (!(await sendText(text))) return;
        // Nobody transcribes a line that was never spoken: it enters the transcript as the room's words would.
        emitter.emit('utterance', {
          participantId: result.selfId,
          name: options.botName,
          text,
          final: true,
          at: new Date().toISOString(),
        });
      },
    });

    return {
      selfId: result.selfId,
      speech,
      async record(o) {
        onPiece = o.onPiece;
        const startedAtMs = await page.evaluate((ms) => window.bot.startRecording(ms), o.pieceMs);
        return {
          startedAtMs,
          stop: () => page.evaluate(() => window.bot.stopRecording()),
        };
      },
      post: async (text) => void (await sendText(text)),
      participants: () => [...people.values()],
      on: (event, listener) => emitter.on(event, listener),
      async leave(leaving) {
        closing = true;
        await Promise.race([
          page.evaluate((keep) => window.bot.leave(keep), Boolean(leaving?.keepTranscription)),
          new Promise((r) => setTimeout(r, 9000)),
        ]).catch((err) => log.warn('leaving the Daily call failed', { err }));
        await browser.close().catch(() => {});
      },
    };
  }
}
