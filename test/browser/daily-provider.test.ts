// The Daily provider in real Chromium, with daily-js replaced by a typed stub served through page.route.

import { PollyClient } from '@aws-sdk/client-polly';
import type { Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withActivityFallback } from '../../bot-task/audio-activity-fallback';
import { ConversationController } from '../../bot-task/conversation';
import { chromiumFlags, launchChromium } from '../../bot-task/providers/daily/chromium';
import { type DailyProviderOptions, DailyRoomProvider } from '../../bot-task/providers/daily/daily-provider';
import { botOrigin, dailyModule } from '../../bot-task/providers/daily/page-assets';
import { PollySynthesizer } from '../../core/adapters/polly/polly-synthesizer';
import type { SessionWarning } from '../../core/bots/session';
import { createLogger } from '../../core/log';
import type { ConversationEngine } from '../../core/ports/conversation-engine';
import {
  JoinAbortedError,
  type JoinOptions,
  type RoomConnection,
  type RoomEvents,
  RoomJoinError,
} from '../../core/ports/room-provider';
import type { Synthesizer } from '../../core/ports/synthesizer';
import { espeakWav } from '../support/espeak';
import { freePort } from '../support/free-port';
import { recordingLogger } from '../support/recording-logger';
import { chromiumPath, requires, skipReason } from '../support/requirements';
import { toneSynthesizer } from '../support/tone-synthesizer';
import { elapse, quietFor, until } from '../support/until';
import { webmLoudness } from '../support/webm-audio';
import { dailyModulePage } from './daily-module-page';
import type { StubScenario } from './daily-stub';
import { dailyStubModule } from './daily-stub-module';
import { startTileServer } from './tile-server';

let stubJs: string;

beforeAll(async () => {
  stubJs = await dailyStubModule();
});

interface Harnessed {
  provider: DailyRoomProvider;
  page: () => Page;
  /** URLs the page tried to reach outside our origin (all aborted). */
  external: string[];
  /** What the provider logged at info and above, as `level msg detail`. */
  logs: string[];
}

function harnessed(
  scenario: StubScenario = {},
  allowInsecureFetch = false,
  meetingToken?: DailyProviderOptions['meetingToken'],
  more: Partial<DailyProviderOptions> = {},
): Harnessed {
  let page: Page | undefined;
  const external: string[] = [];
  const logs: string[] = [];
  const provider = new DailyRoomProvider({
    log: recordingLogger(logs),
    synthesizer: toneSynthesizer,
    allowInsecureFetch,
    meetingToken,
    ...more,
    preparePage: async (p) => {
      page = p;
      await p.route('**/*', (route) => {
        if (route.request().url().startsWith(botOrigin)) return route.fallback();
        external.push(route.request().url());
        return route.abort();
      });
      await p.route(`${botOrigin}/vendor/daily-esm.js`, (route) =>
        route.fulfill({ contentType: 'text/javascript', body: stubJs }),
      );
      await p.addInitScript((s) => {
        window.__dailyStubScenario = s;
      }, scenario);
    },
  });
  return { provider, page: () => page!, external, logs };
}

const joinOptions = {
  roomUrl: 'https://acme.daily.co/interview',
  meetingToken: 'meeting-token-123',
  botName: 'Interviewer',
  videoMode: 'static' as const,
  voice: 'Joanna' as const,
  timeoutMs: 15_000,
  waitingRoomTimeoutMs: 15_000,
};

/** What the bot subscribes to of each participant: their audio, their screen share's too, never video. */
const audioOnly = { audio: true, screenAudio: true, video: false, screenVideo: false };

function collect(conn: RoomConnection) {
  const seen: { event: keyof RoomEvents; payload: unknown }[] = [];
  for (const event of [
    'participant-joined',
    'participant-left',
    'utterance',
    'audio-activity',
    'disconnected',
  ] as const) {
    conn.on(event, (payload) => seen.push({ event, payload }));
  }
  return seen;
}

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('Daily provider in Chromium (stubbed daily-js)', () => {
  let open: RoomConnection | undefined;
  afterEach(async () => {
    await open?.leave();
    open = undefined;
  });

  it('joins with the room, token, name and our own audio and video tracks, then starts transcription', async () => {
    const h = harnessed({ present: [{ id: 'p-ann', name: 'Ann' }] });
    open = await h.provider.join({
      ...joinOptions,
      transcription: { endpointingMs: 200, interimResults: true },
    });
    const calls = () => h.page().evaluate(() => window.__dailyStub!.calls);
    // Transcription starts a moment after the join, once none was found running (never a second beside one
    // already running).
    await until(async () => (await calls()).includes('startTranscription'));
    expect(open.selfId).toBe('bot-session');
    expect(open.participants()).toEqual([{ participantId: 'p-ann', name: 'Ann' }]);
    const page = h.page();
    expect(await page.evaluate(() => window.__dailyStub!.describeOptions())).toEqual({
      url: 'https://acme.daily.co/interview',
      token: 'meeting-token-123',
      userName: 'Interviewer',
      audioSource: 'track:audio:live',
      videoSource: 'track:video:live',
      startVideoOff: false,
      subscribeToTracksAutomatically: false,
    });
    expect(await calls()).toEqual([
      'join',
      'startRemoteParticipantsAudioLevelObserver:200',
      'startTranscription',
    ]);
    // No bot_config.language: the voice's (Joanna: en-US). These options are the whole room's (docs/daily.md): exactly
    // what the bot needs, nothing more.
    expect(await page.evaluate(() => window.__dailyStub!.transcriptionOptions)).toEqual({
      language: 'en-US',
      punctuate: true,
      includeRawResponse: true,
      endpointing: 200,
      extra: { interim_results: true },
    });
    expect(h.external).toEqual([]);
  });

  it('forwards participants, transcription (finality from rawResponse), audio activity, and leaves', async () => {
    const h = harnessed();
    const conn = await h.provider.join(joinOptions);
    open = conn;
    const seen = collect(conn);
    const page = h.page();
    await page.evaluate(() => {
      const s = window.__dailyStub!;
      s.addParticipant('p-bob', 'Bob');
      s.transcribe('p-bob', 'I think we', false);
      s.transcribe('p-bob', 'I think we should ship.', true);
      s.transcribe('bot-session', 'Hello from the bot', true);
      s.audioLevels({ 'p-bob': 0.4, 'p-quiet': 0.001 });
      s.removeParticipant('p-bob');
    });
    await until(() => seen.length >= 6);
    expect(seen.map((s) => s.event)).toEqual([
      'participant-joined',
      'utterance',
      'utterance',
      'utterance',
      'audio-activity',
      'participant-left',
    ]);
    expect(seen[1]!.payload).toMatchObject({
      participantId: 'p-bob',
      name: 'Bob',
      text: 'I think we',
      final: false,
    });
    expect(seen[2]!.payload).toMatchObject({
      participantId: 'p-bob',
      name: 'Bob',
      text: 'I think we should ship.',
      final: true,
    });
    expect(seen[3]!.payload).toMatchObject({ participantId: 'bot-session' });
    expect(seen[4]!.payload).toEqual({ participantId: 'p-bob', active: true });
    expect(conn.participants()).toEqual([]);

    open = undefined;
    await conn.leave();
    expect(page.isClosed()).toBe(true);
    expect(h.external).toEqual([]);
  });

  // A transcription the customer started without includeRawResponse sends messages with no rawResponse, so
  // nothing in them says final; with interim results announced, each interim must not become a line of its own.
  it('messages without rawResponse from a transcription with interims: one final line per stretch of speech', async () => {
    const h = harnessed({
      present: [{ id: 'p-ann', name: 'Ann' }],
      transcription: { alreadyRunning: { startedBy: 'p-ann', extra: { interim_results: true } } },
    });
    const conn = await h.provider.join(joinOptions);
    open = conn;
    const utterances: RoomEvents['utterance'][] = [];
    conn.on('utterance', (u) => utterances.push(u));
    const transcription: RoomEvents['transcription'][] = [];
    conn.on('transcription', (t) => transcription.push(t));
    const page = h.page();
    // The announcement (20 ms after the join in the stand-in) is what says interims may come.
    await until(() => transcription.some((t) => t.state === 'running'));
    await page.evaluate(() => {
      const s = window.__dailyStub!;
      s.transcribe('p-ann', 'I think', undefined);
      s.transcribe('p-ann', 'I think we', undefined);
      s.transcribe('p-ann', 'I think we should ship.', undefined);
      s.transcribe('p-ann', 'Next week', undefined);
      s.removeParticipant('p-ann');
    });
    await until(() => utterances.filter((u) => u.final).length === 2);
    expect(utterances.filter((u) => u.final).map((u) => [u.name, u.text])).toEqual([
      ['Ann', 'I think we should ship.'],
      ['Ann', 'Next week'],
    ]);
    expect(utterances.filter((u) => !u.final).map((u) => u.text)).toEqual([
      'I think',
      'I think we',
      'I think we should ship.',
      'Next week',
    ]);
    expect(
      await page.evaluate(() => window.__dailyStub!.calls.includes('startTranscription')),
      'the customer transcription is used as it is',
    ).toBe(false);
  });

  // Every createCallObject the harness makes also goes through the installed daily-js's own (daily-stub.ts), so a
  // set of options daily-js rejects fails here as it would in production (the tests above cover a token).
  it.each(['static', 'off'] as const)(
    'joins a public room without a token (video_mode %s): no token key reaches daily-js',
    async (videoMode) => {
      const h = harnessed();
      open = await h.provider.join({ ...joinOptions, meetingToken: undefined, videoMode });
      expect(await h.page().evaluate(() => window.__dailyStub!.describeOptions())).toEqual({
        url: 'https://acme.daily.co/interview',
        userName: 'Interviewer',
        audioSource: 'track:audio:live',
        videoSource: videoMode === 'off' ? false : 'track:video:live',
        startVideoOff: videoMode === 'off',
        subscribeToTracksAutomatically: false,
      });
    },
  );

  it('the stub rejects what the real daily-js rejects (its createCallObject checks options with daily-js first)', async () => {
    const browser = await launchChromium(chromiumPath);
    try {
      const verdict = async (options: Record<string, unknown>, undefinedKey?: string) => {
        const page = await dailyModulePage(browser, stubJs);
        return page.evaluate(
          ([o, key]) => {
            try {
              window.Daily.createCallObject(key ? { ...o, [key]: undefined } : o);
              return 'accepted';
            } catch (e) {
              return (e as Error).message;
            }
          },
          [options, undefinedKey] as const,
        );
      };
      const url = 'https://acme.daily.co/interview';
      expect(await verdict({ url, userName: 'Interviewer' })).toBe('accepted');
      expect(await verdict({ url }, 'token')).toBe("property 'token': token should be a string");
      expect(await verdict({ url, token: 42 })).toBe("property 'token': token should be a string");
      expect(await verdict({ url, subscribeToTracks: false })).toBe(
        'daily-js ignores unrecognized properties: subscribeToTracks',
      );
    } finally {
      await browser.close();
    }
  });

  it('joins with the token the bot minted for itself when one is given', async () => {
    const asked: string[] = [];
    const h = harnessed({}, false, async (o) => {
      asked.push(`${o.roomUrl} ${o.meetingToken}`);
      return 'minted-token';
    });
    open = await h.provider.join(joinOptions);
    expect(asked).toEqual(['https://acme.daily.co/interview meeting-token-123']);
    expect(await h.page().evaluate(() => window.__dailyStub!.describeOptions())).toMatchObject({
      token: 'minted-token',
    });
  });

  /** Leaves with `options` and returns the stub's call log as it was just before the browser closed. */
  async function callsWhenLeaving(
    page: Page,
    conn: RoomConnection,
    options?: Parameters<RoomConnection['leave']>[0],
  ): Promise<string[]> {
    let calls: string[] = [];
    await page.exposeFunction('__reportCalls', (c: string[]) => {
      calls = c;
    });
    await page.evaluate(() => {
      const original = window.bot.leave;
      window.bot.leave = async (keep) => {
        await original(keep);
        await (window as unknown as { __reportCalls(c: string[]): Promise<void> }).__reportCalls(
          window.__dailyStub!.calls,
        );
      };
    });
    await conn.leave(options);
    return calls;
  }

  it('calls leave() and destroy() on the call object when leaving', async () => {
    const h = harnessed();
    const conn = await h.provider.join(joinOptions);
    expect((await callsWhenLeaving(h.page(), conn)).slice(-2)).toEqual(['leave', 'destroy']);
  });

  // Audio levels can only be measured on audio the bot receives; video it never needs.
  it('subscribes to the audio of everyone present and everyone who joins later, never their video', async () => {
    const h = harnessed({ present: [{ id: 'p-ann', name: 'Ann' }] });
    open = await h.provider.join(joinOptions);
    await h.page().evaluate(() => window.__dailyStub!.addParticipant('p-bob', 'Bob'));
    expect(await h.page().evaluate(() => window.__dailyStub!.subscriptions)).toEqual({
      'p-ann': audioOnly,
      'p-bob': audioOnly,
    });
    expect(await h.page().evaluate(() => window.__dailyStub!.describeOptions())).toMatchObject({
      subscribeToTracksAutomatically: false,
    });
  });

  // A room whose audio levels never come (only the stand-in ever produced them) still gives the bot
  // audio activity, from transcription timing, once levels have been missing for AUDIO_LEVELS_MISSING_MS.
  it('no audio levels but transcription messages: activity from transcription timing after the levels are missed', async () => {
    const h = harnessed({ present: [{ id: 'p-ann', name: 'Ann' }] });
    const conn = await h.provider.join(joinOptions);
    open = conn;
    const logs: string[] = [];
    const heard = withActivityFallback(conn, 1500, recordingLogger(logs));
    const activity: RoomEvents['audio-activity'][] = [];
    heard.on('audio-activity', (a) => activity.push(a));
    await h.page().evaluate(() => window.__dailyStub!.transcribe('p-ann', 'Hello', false));
    // Levels missing for longer than the fallback waits for them (1500 ms here).
    await elapse(1800);
    await h.page().evaluate(() => {
      const s = window.__dailyStub!;
      s.transcribe('p-ann', 'Hello there, can', false);
      s.transcribe('p-ann', 'Hello there, can you hear me?', true);
    });
    await until(() => activity.length === 2);
    expect(activity).toEqual([
      { participantId: 'p-ann', active: true },
      { participantId: 'p-ann', active: true },
    ]);
    expect(logs.some((l) => l.includes('activity from transcription timing'))).toBe(true);
    // Levels again: they are the activity.
    await h.page().evaluate(() => window.__dailyStub!.audioLevels({ 'p-ann': 0.5 }));
    await until(() => activity.length === 3);
    await h.page().evaluate(() => window.__dailyStub!.transcribe('p-ann', 'And now?', true));
    // No activity from transcription timing while levels come.
    await quietFor(200);
    expect(activity).toHaveLength(3);
  });

  // A quiet room still has levels: only loud ones become audio-activity, so Node needs to hear that levels arrive.
  it('audio levels arriving, quiet ones included, are reported as audio-levels (at most once a second)', async () => {
    const h = harnessed({ present: [{ id: 'p-ann', name: 'Ann' }] });
    const conn = await h.provider.join(joinOptions);
    open = conn;
    let levels = 0;
    const activity: RoomEvents['audio-activity'][] = [];
    conn.on('audio-levels', () => levels++);
    conn.on('audio-activity', (a) => activity.push(a));
    await h.page().evaluate(() => {
      const s = window.__dailyStub!;
      for (let i = 0; i < 5; i++) s.audioLevels({ 'p-ann': 0.001 });
    });
    await until(() => levels === 1);
    // One report of quiet levels, not one per message.
    await quietFor(200);
    expect(levels).toBe(1);
    expect(activity).toEqual([]);
  });

  // A reply held for a person's silence must learn at once that they went on: speech resuming after a quiet level is
  // reported without waiting out the once-a-second bound that sustained speech keeps.
  it('reports speech resuming after a pause at once, sustained speech at most once a second', async () => {
    const h = harnessed({ present: [{ id: 'p-ann', name: 'Ann' }] });
    const conn = await h.provider.join(joinOptions);
    open = conn;
    const activity: RoomEvents['audio-activity'][] = [];
    conn.on('audio-activity', (a) => activity.push(a));
    await h.page().evaluate(() => {
      const s = window.__dailyStub!;
      // Speaking, speaking (one report), a pause, speaking again (a second report at once), speaking (none).
      for (const level of [0.4, 0.4, 0.001, 0.4, 0.4]) s.audioLevels({ 'p-ann': level });
    });
    await until(() => activity.length === 2);
    // No third report.
    await quietFor(200);
    expect(activity).toEqual([
      { participantId: 'p-ann', active: true },
      { participantId: 'p-ann', active: true },
    ]);
  });

  // The room's transcription is reported to the bot, not only logged: a bot that cannot transcribe leaves.
  describe('the room’s transcription', () => {
    /** Joins with `scenario` and collects the transcription states reported. */
    async function transcribing(scenario: StubScenario, more: Partial<JoinOptions> = {}) {
      const h = harnessed(scenario);
      const conn = await h.provider.join({ ...joinOptions, ...more });
      open = conn;
      const states: RoomEvents['transcription'][] = [];
      conn.on('transcription', (t) => states.push(t));
      const calls = () => h.page().evaluate(() => window.__dailyStub!.calls);
      return { h, conn, states, calls };
    }

    it('started by the bot in bot_config.language: reported running and ours; stopped when the bot leaves', async () => {
      const t = await transcribing({}, { transcription: { language: 'fr' } });
      await until(() => t.states.length > 0);
      expect(t.states).toEqual([{ state: 'running', reason: 'started by the bot (fr)', ours: true }]);
      expect(await t.h.page().evaluate(() => window.__dailyStub!.transcriptionOptions)).toMatchObject({
        language: 'fr',
      });
      open = undefined;
      const calls = await callsWhenLeaving(t.h.page(), t.conn);
      expect(calls.slice(-3)).toEqual(['stopTranscription', 'leave', 'destroy']);
      expect(t.h.logs).toContain('info daily page stopped the transcription the bot started');
    });

    it('a bot handing over to its replacement leaves its transcription running', async () => {
      const t = await transcribing({});
      await until(() => t.states.length > 0);
      open = undefined;
      expect(await callsWhenLeaving(t.h.page(), t.conn, { keepTranscription: true })).not.toContain(
        'stopTranscription',
      );
    });

    it('already running when the bot joins (the customer’s app started it): used as it is, never restarted nor stopped', async () => {
      const t = await transcribing({
        present: [{ id: 'p-host', name: 'Host' }],
        transcription: { alreadyRunning: { startedBy: 'p-host' } },
      });
      await until(() => t.states.length > 0);
      expect(t.states).toEqual([
        {
          state: 'running',
          reason: 'already running, started by Host (en); used as it is',
          ours: false,
        },
      ]);
      // Past the moment the bot would have started its own.
      // Past the moment the bot would have started its own.
      await quietFor(1500);
      expect(await t.calls()).not.toContain('startTranscription');
      open = undefined;
      expect(await callsWhenLeaving(t.h.page(), t.conn)).not.toContain('stopTranscription');
    });

    // A display name proves nothing: the default "Meeting Bot" is any other bot's, or a person's, name too.
    it('started by a participant of the bot’s own name (its predecessor, or not): used, never taken over nor stopped', async () => {
      const t = await transcribing({
        present: [{ id: 'p-namesake', name: 'Interviewer' }],
        transcription: { alreadyRunning: { startedBy: 'p-namesake' } },
      });
      await until(() => t.states.length > 0);
      expect(t.states).toEqual([
        {
          state: 'running',
          reason: 'already running, started by Interviewer (en); used as it is',
          ours: false,
        },
      ]);
      open = undefined;
      const calls = await callsWhenLeaving(t.h.page(), t.conn);
      expect(calls).not.toContain('startTranscription');
      expect(calls).not.toContain('stopTranscription');
    });

    // Daily does not always announce a running transcription, and a transcription-error need not be fatal: words
    // from someone else prove it runs, and the bot must not keep retrying and reporting failed (Node would end it).
    it('refused, but transcription messages arrive from someone else: reported running (not ours), retries stop', async () => {
      const t = await transcribing(
        {
          present: [{ id: 'p-ann', name: 'Ann' }],
          transcription: { refused: 'Transcription already started' },
        },
        { transcription: { retryMs: 300 } },
      );
      const starts = async () => (await t.calls()).filter((c) => c === 'startTranscription').length;
      await until(() => t.states.length >= 1);
      expect(t.states[0]!.state).toBe('failed');
      await t.h.page().evaluate(() => window.__dailyStub!.transcribe('p-ann', 'Can everyone hear me?', true));
      // Each refused retry (every 300 ms) is reported failed until the words arrive: how many depends on the machine.
      await until(() => t.states.some((s) => s.state === 'running'));
      const running = t.states.findIndex((s) => s.state === 'running');
      expect(t.states.slice(0, running).every((s) => s.state === 'failed')).toBe(true);
      expect(t.states[running]).toEqual({
        state: 'running',
        reason: 'transcription messages arrive from the room; used as it is',
        ours: false,
      });
      const before = await starts();
      // No more retries.
      await quietFor(900);
      expect(await starts()).toBe(before);
      expect(t.states).toHaveLength(running + 1);
      open = undefined;
      expect(await callsWhenLeaving(t.h.page(), t.conn)).not.toContain('stopTranscription');
    });

    it('refused (a transcription-error): reported failed with Daily’s reason, and tried again every retryMs', async () => {
      const t = await transcribing(
        { transcription: { refused: 'Insufficient permissions to start transcription' } },
        { transcription: { retryMs: 300 } },
      );
      const starts = async () => (await t.calls()).filter((c) => c === 'startTranscription').length;
      await until(async () => (await starts()) >= 3);
      expect(t.states[0]).toEqual({
        state: 'failed',
        reason: 'Daily transcription error: Insufficient permissions to start transcription',
      });
      expect(t.states.every((s) => s.state === 'failed')).toBe(true);
      open = undefined;
      // Never running, so nothing of the bot's to stop.
      expect(await callsWhenLeaving(t.h.page(), t.conn)).not.toContain('stopTranscription');
    });

    it('never answered: nothing reported (the bot’s own deadline ends it), and not started twice', async () => {
      const t = await transcribing({ transcription: 'silent' }, { transcription: { retryMs: 200 } });
      await until(async () => (await t.calls()).includes('startTranscription'));
      // Not started a second time, nothing reported.
      await quietFor(800);
      expect(t.states).toEqual([]);
      expect((await t.calls()).filter((c) => c === 'startTranscription')).toHaveLength(1);
    });

    it('breaks mid-meeting, then a retry starts it again: failed, then running', async () => {
      const t = await transcribing({}, { transcription: { retryMs: 200 } });
      await until(() => t.states.length === 1);
      await t.h.page().evaluate(() => window.__dailyStub!.transcriptionError('Deepgram connection lost'));
      await until(() => t.states.length === 3);
      expect(t.states.map((s) => s.state)).toEqual(['running', 'failed', 'running']);
      expect(t.states[1]!.reason).toBe('Daily transcription error: Deepgram connection lost');
    });

    it('stopped by a person who stays in the room: failed while it may be a departing bot, then stopped, not started again', async () => {
      const t = await transcribing(
        { present: [{ id: 'p-ann', name: 'Ann' }] },
        { transcription: { stopperLeaveGraceMs: 400 } },
      );
      await until(() => t.states.length === 1);
      await t.h.page().evaluate(() => window.__dailyStub!.transcriptionStopped('p-ann'));
      await until(() => t.states.length === 3);
      expect(t.states.slice(1)).toEqual([
        { state: 'failed', reason: 'transcription stopped by Ann; restarted if they leave the room soon' },
        { state: 'stopped', reason: 'transcription stopped by Ann, who stays in the room; not restarted' },
      ]);
      expect(t.h.logs).toContain(
        'warn daily page transcription stopped by Ann, who stays in the room; not restarted',
      );
      // Not restarted.
      await quietFor(300);
      expect((await t.calls()).filter((c) => c === 'startTranscription')).toHaveLength(1);
    });

    // Another session's bot stops the transcription it started, then leaves: to this bot the stopper was "in the
    // room", but it is gone a moment later; left stopped, this bot would be deaf with nothing reported.
    it('stopped by a participant who then leaves (another bot ending its session): started again', async () => {
      const t = await transcribing(
        {
          present: [{ id: 'p-other-bot', name: 'Meeting Bot' }],
          transcription: { alreadyRunning: { startedBy: 'p-other-bot' } },
        },
        { transcription: { stopperLeaveGraceMs: 5000 } },
      );
      await until(() => t.states.length === 1);
      await t.h.page().evaluate(() => window.__dailyStub!.transcriptionStopped('p-other-bot'));
      await until(() => t.states.length === 2);
      expect(t.states[1]!.state).toBe('failed');
      await t.h.page().evaluate(() => window.__dailyStub!.removeParticipant('p-other-bot'));
      await until(() => t.states.length === 4);
      expect(t.states.slice(2)).toEqual([
        { state: 'failed', reason: 'transcription stopped by a participant who left the room right after' },
        { state: 'running', reason: 'started by the bot (en-US)', ours: true },
      ]);
      expect((await t.calls()).filter((c) => c === 'startTranscription')).toHaveLength(1);
      expect(t.h.logs).toContain(
        'info daily page transcription stopped by a participant who left the room right after; restarted',
      );
    });
  });

  it('speaks into the microphone track handed to the call (non-silent samples), and barge-in silences it', async () => {
    const h = harnessed();
    const conn = await h.provider.join(joinOptions);
    open = conn;
    const page = h.page();
    expect(await page.evaluate(() => window.__dailyStub!.peakAudio(300))).toBeLessThan(0.01);
    const listening = page.evaluate(() => window.__dailyStub!.peakAudio(800));
    const spoken = conn.speech.say('Hello, I am the interviewer for today.');
    expect(await listening).toBeGreaterThan(0.1);
    conn.speech.stop();
    expect(await spoken).toBe('interrupted');
    expect(await page.evaluate(() => window.__dailyStub!.peakAudio(300))).toBeLessThan(0.01);
    expect(toneSynthesizer.calls.at(-1)).toEqual({
      text: 'Hello, I am the interviewer for today.',
      voice: 'Joanna',
    });
  });

  it('plays a streamed line from its first chunk, while the synthesizer is still sending the rest', async () => {
    const sampleRate = 16_000;
    const tone = (ms: number) => {
      const n = Math.round((ms * sampleRate) / 1000);
      const pcm = Buffer.alloc(n * 2);
      for (let i = 0; i < n; i++)
        pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 12_000), i * 2);
      return pcm;
    };
    let sendRest!: () => void;
    const rest = new Promise<void>((resolve) => {
      sendRest = resolve;
    });
    let restSent = false;
    const streaming: Synthesizer = {
      synthesize: () => Promise.reject(new Error('a streaming synthesizer is played from its stream')),
      async stream() {
        return {
          sampleRate,
          chunks: (async function* () {
            // The first chunk split inside a sample, as an HTTP body may split it.
            const first = tone(1_500);
            yield first.subarray(0, 1_001);
            yield first.subarray(1_001);
            await rest;
            restSent = true;
            yield tone(200);
          })(),
        };
      },
    };
    const h = harnessed({}, false, undefined, { synthesizer: streaming });
    const conn = await h.provider.join(joinOptions);
    open = conn;
    const page = h.page();
    expect(await page.evaluate(() => window.__dailyStub!.peakAudio(300))).toBeLessThan(0.01);
    const listening = page.evaluate(() => window.__dailyStub!.peakAudio(10_000, 0.1));
    const spoken = conn.speech.say('Thank you, that is helpful.');
    // Heard on the microphone track while the rest of the line has not been sent yet (the rest waits for sendRest
    // below, however long the first chunk took to be heard on a loaded machine).
    expect(await listening).toBeGreaterThan(0.1);
    expect(restSent).toBe(false);
    sendRest();
    expect(await spoken).toBe('done');
    expect(restSent).toBe(true);
  });

  it('sends a static tile whose track keeps delivering frames; video_mode off sends none', async () => {
    const h = harnessed();
    open = await h.provider.join(joinOptions);
    const frames = await h.page().evaluate(() => window.__dailyStub!.videoFrames(3));
    expect(frames).toEqual([
      { width: 640, height: 360 },
      { width: 640, height: 360 },
      { width: 640, height: 360 },
    ]);
    await open.leave();
    const off = harnessed();
    open = await off.provider.join({ ...joinOptions, videoMode: 'off' });
    expect(await off.page().evaluate(() => window.__dailyStub!.describeOptions())).toEqual({
      url: 'https://acme.daily.co/interview',
      token: 'meeting-token-123',
      userName: 'Interviewer',
      audioSource: 'track:audio:live',
      videoSource: false,
      startVideoOff: true,
      subscribeToTracksAutomatically: false,
    });
  });

  it('shows background_image_url on the tile when it is a usable image, the name card otherwise', async () => {
    const server = await startTileServer();
    try {
      for (const [path, tile] of [
        ['/tile.png', 'image'],
        ['/page.html', 'name-card'],
      ] as const) {
        const h = harnessed({}, true);
        open = await h.provider.join({ ...joinOptions, backgroundImageUrl: `${server.base}${path}` });
        expect(await h.page().evaluate(() => window.bot.tile)).toBe(tile);
        expect(await h.page().evaluate(() => window.__dailyStub!.videoFrames(1))).toHaveLength(1);
        await open.leave();
        open = undefined;
      }
    } finally {
      server.close();
    }
  });

  /** Joins with the stub and collects events; `disconnections()` waits a moment so a second one would show. */
  async function joinedCall(more: Partial<DailyProviderOptions> = {}) {
    const h = harnessed({}, false, undefined, more);
    const conn = await h.provider.join(joinOptions);
    open = conn;
    const seen = collect(conn);
    const disconnections = async () => {
      await until(() => seen.find((s) => s.event === 'disconnected'));
      // Events come through one binding in order; a second disconnection would be right behind the first.
      await quietFor(200);
      return seen.filter((s) => s.event === 'disconnected').map((s) => s.payload);
    };
    return { h, conn, seen, disconnections };
  }

  it.each([
    ['followed by left-meeting (as documented)', true],
    ['with no left-meeting after it', false],
  ])('reports being ejected as one disconnection of kind ejected, %s', async (_, leftMeeting) => {
    const { h, disconnections } = await joinedCall();
    await h.page().evaluate((l) => window.__dailyStub!.fatal('ejected', 'You were ejected', l), leftMeeting);
    expect(await disconnections()).toEqual([{ kind: 'ejected', reason: 'ejected: You were ejected' }]);
  });

  // The kind tells an owner's ejection from the meeting ending and from a connection daily-js gave up on.
  it.each([
    ['ejected', 'You were removed from the call', 'ejected'],
    ['ejected', 'Meeting has ended', 'room_ended'],
    ['no-room', 'The room was deleted', 'room_ended'],
    ['exp-room', 'The room has expired', 'room_ended'],
    ['end-of-life', 'This version of daily-js is no longer supported', 'room_ended'],
    ['not-allowed', 'You are not allowed to join this meeting', 'ejected'],
    ['exp-token', 'The meeting token has expired', 'ejected'],
    ['connection-error', 'Reconnection failed', 'connection_lost'],
  ] as const)(
    'a fatal %s error (%s) during the call is a disconnection of kind %s',
    async (type, msg, kind) => {
      const { h, disconnections } = await joinedCall();
      await h.page().evaluate(([t, m]) => window.__dailyStub!.fatal(t, m), [type, msg] as const);
      expect(await disconnections()).toEqual([{ kind, reason: `${type}: ${msg}` }]);
    },
  );

  it('a call that ends for a reason daily-js does not name (untyped error, or left-meeting alone) is a lost connection', async () => {
    const untyped = await joinedCall();
    await untyped.h.page().evaluate(() => window.__dailyStub!.fatal(undefined, 'Something went wrong'));
    expect(await untyped.disconnections()).toEqual([
      { kind: 'connection_lost', reason: 'unknown: Something went wrong' },
    ]);
    await untyped.conn.leave();
    const leftAlone = await joinedCall();
    await leftAlone.h.page().evaluate(() => window.__dailyStub!.leftMeeting());
    expect(await leftAlone.disconnections()).toEqual([
      { kind: 'connection_lost', reason: 'left the meeting' },
    ]);
  });

  it('transcription stopped by someone gone (a replaced bot) is started again at once', async () => {
    const { h } = await joinedCall();
    const starts = () =>
      h.page().evaluate(() => window.__dailyStub!.calls.filter((c) => c === 'startTranscription').length);
    await until(async () => (await starts()) === 1);
    await h.page().evaluate(() => {
      const s = window.__dailyStub!;
      s.addParticipant('p-ann', 'Ann');
      s.transcriptionStopped('p-replaced-bot');
    });
    await until(() => h.logs.some((l) => l.includes('no longer in the room; restarted')));
    expect(await starts()).toBe(2);
  });

  // A participant's screen share carries audio of its own (a video played to the room); the bot subscribes to
  // it with their microphone, and it is in the recording.
  it("a participant's screen-share audio is subscribed and reaches the recording's mix", async () => {
    const h = harnessed({ present: [{ id: 'p-ann', name: 'Ann' }] });
    const conn = await h.provider.join({ ...joinOptions, videoMode: 'off' });
    open = conn;
    const page = h.page();
    await page.evaluate(() => window.__dailyStub!.addParticipant('p-late', 'Late'));
    const subscribed = await page.evaluate(() => window.__dailyStub!.subscriptions);
    for (const id of ['p-ann', 'p-late']) expect(subscribed[id], id).toEqual(audioOnly);

    const pieces: { seq: number; bytes: Uint8Array }[] = [];
    const recording = await conn.record!({ pieceMs: 500, onPiece: (p) => pieces.push(p) });
    // A second of the room recorded before Ann’s screen share speaks.
    await elapse(1000);
    const wav = espeakWav('This is the video Ann shares with her screen.', 'en-us').toString('base64');
    const from = Date.now();
    await page.evaluate(([w]) => window.__dailyStub!.speak('p-ann', w!, 'screenAudio'), [wav]);
    const to = Date.now();
    // And half a second after.
    await elapse(500);
    await recording.stop();

    const bytes = Buffer.concat(pieces.sort((a, b) => a.seq - b.seq).map((p) => p.bytes));
    const rms = webmLoudness(bytes, 0.1);
    const at = (ms: number) => Math.floor((ms - recording.startedAtMs) / 100);
    expect(Math.max(...rms.slice(at(from) + 3, at(to) - 3))).toBeGreaterThan(300);
    expect(Math.max(...rms.slice(0, at(from) - 1))).toBeLessThan(60);
  });

  it("an interrupted connection is daily-js's to recover: logged, not a disconnection", async () => {
    const { h, seen } = await joinedCall();
    await h.page().evaluate(() => {
      const s = window.__dailyStub!;
      s.networkConnection('signaling', 'interrupted');
      s.networkConnection('sfu', 'interrupted');
      s.networkConnection('signaling', 'connected');
      s.networkConnection('sfu', 'connected');
    });
    await until(() => h.logs.some((l) => l.includes('network connection connected (sfu)')));
    expect(h.logs.filter((l) => l.includes('network connection'))).toEqual([
      'warn daily page network connection interrupted (signaling)',
      'warn daily page network connection interrupted (sfu)',
      'info daily page network connection connected (signaling)',
      'info daily page network connection connected (sfu)',
    ]);
    // No disconnection follows.
    await quietFor(200);
    expect(seen.filter((s) => s.event === 'disconnected')).toEqual([]);
  });

  it('a crashed bot page is a disconnection of kind crashed, once; leaving afterwards still closes the browser', async () => {
    const { h, conn, disconnections } = await joinedCall();
    // Chromium's own crash URL kills the page's renderer (Playwright's tests crash pages this way).
    await h
      .page()
      .goto('chrome://crash')
      .catch(() => {});
    expect(await disconnections()).toEqual([{ kind: 'crashed', reason: 'the bot page crashed' }]);
    open = undefined;
    await conn.leave();
    expect(h.page().isClosed()).toBe(true);
  });

  it('the bot browser exiting (its process killed) is a disconnection of kind crashed', async () => {
    const { chromium } = await import('playwright-core');
    const server = await chromium.launchServer({
      executablePath: chromiumPath,
      headless: true,
      args: chromiumFlags,
    });
    try {
      const { disconnections } = await joinedCall({ launch: () => chromium.connect(server.wsEndpoint()) });
      server.process().kill('SIGKILL');
      expect(await disconnections()).toEqual([{ kind: 'crashed', reason: 'the bot browser exited' }]);
    } finally {
      await server.close().catch(() => {});
    }
  });

  it.each([
    ['no-room', 'room_not_found'],
    ['exp-room', 'room_not_found'],
    ['not-allowed', 'auth_error'],
    ['exp-token', 'auth_error'],
    ['connection-error', 'unknown'],
  ] as const)('a %s join error becomes RoomJoinError %s with Daily’s message', async (type, ours) => {
    const h = harnessed({ joinError: { type, msg: `daily says ${type}` } });
    const err = await h.provider.join(joinOptions).catch((e) => e);
    expect(err).toBeInstanceOf(RoomJoinError);
    expect(err).toMatchObject({ type: ours, providerMessage: `daily says ${type}` });
    expect(h.page().isClosed()).toBe(true);
  });

  // A knocking room (enable_knocking) the bot has no token for puts it in the lobby after join().
  describe('a knocking room: the bot asks to be let in and waits in the lobby', () => {
    /** Starts a join into the lobby; resolves once the bot has asked to be let in. */
    async function knocking(more: Partial<typeof joinOptions & { signal: AbortSignal }> = {}) {
      const h = harnessed({ lobby: true, present: [{ id: 'p-ann', name: 'Ann' }] });
      let waited = 0;
      const joining = h.provider
        .join({ ...joinOptions, ...more, onWaitingRoom: () => waited++ })
        .then((conn) => {
          open = conn;
          return conn;
        })
        .catch((e: unknown) => e);
      const calls = () => h.page().evaluate(() => window.__dailyStub?.calls ?? []);
      await until(
        async () => h.page() && (await calls().catch(() => [])).some((c) => c.startsWith('requestAccess')),
      );
      return { h, joining, calls, waited: () => waited };
    }

    it('admitted: requestAccess with the bot’s name, reported once, then in the call with the others', async () => {
      const k = await knocking();
      await until(() => k.waited() === 1);
      await k.h.page().evaluate(() => window.__dailyStub!.admit());
      const conn = (await k.joining) as RoomConnection;
      expect(conn.selfId).toBe('bot-session');
      expect(conn.participants()).toEqual([{ participantId: 'p-ann', name: 'Ann' }]);
      // Transcription and audio levels start only once the bot is in the call, and it hears Ann (audio only).
      await until(async () => (await k.calls()).includes('startTranscription'));
      expect(await k.calls()).toEqual([
        'join',
        'requestAccess:Interviewer:full',
        'startRemoteParticipantsAudioLevelObserver:200',
        'startTranscription',
      ]);
      expect(await k.h.page().evaluate(() => window.__dailyStub!.subscriptions)).toEqual({
        'p-ann': audioOnly,
      });
      expect(k.waited()).toBe(1);
      expect(k.h.external).toEqual([]);
    });

    it('the join timeout ends at the lobby: a wait longer than timeoutMs is not cut short', async () => {
      // The join's own deadline is long enough to reach the lobby on a loaded machine (the page starts Chromium's
      // renderer and daily-js first); the bot then stays in the lobby past it.
      const timeoutMs = 6_000;
      const started = Date.now();
      const k = await knocking({ timeoutMs, waitingRoomTimeoutMs: 30_000 });
      // Longer than timeoutMs since the join began, all of it after the bot asked to be let in.
      await elapse(Math.max(0, started + timeoutMs + 1_500 - Date.now()));
      await k.h.page().evaluate(() => window.__dailyStub!.admit());
      expect(await k.joining).toHaveProperty('selfId', 'bot-session');
    });

    it.each(['answer-first', 'error-first'] as const)(
      'denied (requestAccess answered granted: false and a fatal not-allowed, %s): RoomJoinError auth_error',
      async (order) => {
        const k = await knocking();
        // The provider may close the browser before this evaluate's answer is back: the denial did its work.
        await k.h
          .page()
          .evaluate((o) => window.__dailyStub!.deny('You were not admitted to the meeting', o), order)
          .catch(() => {});
        const err = await k.joining;
        expect(err).toBeInstanceOf(RoomJoinError);
        expect(err).toMatchObject({
          type: 'auth_error',
          providerMessage:
            order === 'error-first'
              ? 'You were not admitted to the meeting'
              : 'the room denied the bot entry from its waiting room',
          code: undefined,
        });
        expect(k.h.page().isClosed()).toBe(true);
      },
    );

    it('not let in within waitingRoomTimeoutMs: RoomJoinError unknown, code waiting_room_timeout; the browser closes', async () => {
      const k = await knocking({ waitingRoomTimeoutMs: 800 });
      const err = await k.joining;
      expect(err).toBeInstanceOf(RoomJoinError);
      expect(err).toMatchObject({
        type: 'unknown',
        code: 'waiting_room_timeout',
        providerMessage: 'not let in from the waiting room within 0.8 s',
      });
      expect(k.h.page().isClosed()).toBe(true);
      expect(k.waited()).toBe(1);
    });

    it('asked to stop while waiting: JoinAbortedError at once, and the browser (with the lobby) is gone', async () => {
      const abort = new AbortController();
      const k = await knocking({ signal: abort.signal });
      const asked = Date.now();
      abort.abort();
      expect(await k.joining).toBeInstanceOf(JoinAbortedError);
      expect(Date.now() - asked).toBeLessThan(2000);
      expect(k.h.page().isClosed()).toBe(true);
    });

    it('before join the stub answers accessState and requestAccess as the real daily-js does', async () => {
      const browser = await launchChromium(chromiumPath);
      try {
        const beforeJoin = async (moduleJs: string) => {
          const page = await dailyModulePage(browser, moduleJs, async (p) => {
            await p.route('**/*', (route) =>
              route.request().url().startsWith(botOrigin) ? route.fallback() : route.abort(),
            );
          });
          return page.evaluate(async () => {
            const call = window.Daily.createCallObject({ url: 'https://acme.daily.co/interview' });
            const request = await call.requestAccess({ name: 'Interviewer', access: { level: 'full' } }).then(
              () => 'resolved',
              (e: unknown) => (e instanceof Error ? e.message : String(e)),
            );
            return { access: call.accessState(), request };
          });
        };
        const real = await beforeJoin(dailyModule());
        expect(real).toEqual({
          access: { access: 'unknown' },
          request: 'requestAccess() only supported after join.',
        });
        expect(await beforeJoin(stubJs)).toEqual(real);
      } finally {
        await browser.close();
      }
    });
  });

  const neverJoining = () => {
    let page: Page | undefined;
    const provider = new DailyRoomProvider({
      log: createLogger('silent'),
      synthesizer: toneSynthesizer,
      preparePage: async (p) => {
        page = p;
        await p.route(`${botOrigin}/vendor/daily-esm.js`, (route) =>
          route.fulfill({
            contentType: 'text/javascript',
            body: 'export default { createCallObject: () => ({ on() {}, join: () => new Promise(() => {}), participants: () => ({}) }) };',
          }),
        );
      },
    });
    return { provider, page: () => page! };
  };

  it('gives up joining at once when asked to stop (abort signal), closing the browser', async () => {
    const { provider, page } = neverJoining();
    const abort = new AbortController();
    const joining = provider
      .join({ ...joinOptions, timeoutMs: 60_000, signal: abort.signal })
      .catch((e) => e);
    await until(async () =>
      page()
        ?.evaluate(() => typeof window.bot?.join === 'function')
        .catch(() => false),
    );
    const asked = Date.now();
    abort.abort();
    expect(await joining).toBeInstanceOf(JoinAbortedError);
    expect(Date.now() - asked).toBeLessThan(2000);
    expect(page().isClosed()).toBe(true);
  });

  it('gives up joining after the timeout', async () => {
    const { provider } = neverJoining();
    const err = await provider.join({ ...joinOptions, timeoutMs: 800 }).catch((e) => e);
    expect(err).toMatchObject({ type: 'unknown', providerMessage: expect.stringContaining('timed out') });
  });

  it('a line Polly cannot speak is tried twice, then sent as a chat app message and put in the transcript', async () => {
    // The real Polly adapter, its endpoint a closed port: every SynthesizeSpeech is refused before a byte is sent.
    const polly = new PollySynthesizer(
      new PollyClient({
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${await freePort()}`,
        credentials: { accessKeyId: 'stub', secretAccessKey: 'stub' },
        maxAttempts: 1,
      }),
    );
    const h = harnessed({ present: [{ id: 'p-ann', name: 'Ann' }] }, false, undefined, {
      synthesizer: polly,
    });
    const conn = await h.provider.join(joinOptions);
    open = conn;
    const seen = collect(conn);
    const warnings: SessionWarning[] = [];
    const greeting: ConversationEngine = {
      greet: async function* () {
        yield 'Hello, I am the interviewer for today. What brings you here?';
      },
      reply: async function* () {},
    };
    const controller = new ConversationController(
      conn,
      greeting,
      { botName: 'Interviewer', endOfTurnMs: 10, speechRetryDelayMs: 50 },
      () => [],
      createLogger('silent'),
      { onWarning: (w) => warnings.push(w) },
    );
    controller.start();
    const page = h.page();
    const sent = await until(async () => {
      const messages = await page.evaluate(() => window.__dailyStub!.appMessages);
      return messages.length === 2 && messages;
    });
    controller.stop();
    expect(sent).toEqual(
      ['Hello, I am the interviewer for today.', 'What brings you here?'].map((message) => ({
        data: { event: 'chat-msg', message, name: 'Interviewer', room: 'main-room' },
        to: '*',
      })),
    );
    // Nothing was played into the microphone.
    expect(await page.evaluate(() => window.__dailyStub!.peakAudio(300))).toBeLessThan(0.01);
    expect(warnings).toEqual([
      {
        code: 'speech_fallback',
        message: expect.stringMatching(/failed twice on one line \(.*ECONNREFUSED/),
      },
    ]);
    // The transcript holds what the bot said: the lines come back as the bot's own final utterances.
    expect(
      seen
        .filter((e) => e.event === 'utterance')
        .map((e) => e.payload as RoomEvents['utterance'])
        .map((u) => ({ participantId: u.participantId, name: u.name, text: u.text, final: u.final })),
    ).toEqual([
      {
        participantId: 'bot-session',
        name: 'Interviewer',
        text: 'Hello, I am the interviewer for today.',
        final: true,
      },
      { participantId: 'bot-session', name: 'Interviewer', text: 'What brings you here?', final: true },
    ]);
  });
});
