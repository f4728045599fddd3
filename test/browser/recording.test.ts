// The recording end to end in Chromium, on the Daily stand-in: two participants speak real (espeak-ng) audio into
// their tracks, the bot says the notice through its synthesizer, the page records the mix piece by piece into the
// recording store, and the results stage's assembly makes one file, decoded here with ffprobe/ffmpeg. Then a machine
// loss: the first bot's browser dies without stopping its recorder, a replacement records on, one file still comes.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DailyRoomProvider } from '../../bot-task/providers/daily/daily-provider';
import { botOrigin } from '../../bot-task/providers/daily/page-assets';
import { startRecording } from '../../bot-task/recording-uploader';
import { FileRecordingStore } from '../../core/adapters/files/recording-store';
import { createLogger } from '../../core/log';
import type { RoomConnection } from '../../core/ports/room-provider';
import { finaliseRecording } from '../../core/recording/finalise';
import { espeakSynthesizer, espeakWav } from '../support/espeak';
import { requires, skipReason } from '../support/requirements';
import { elapse } from '../support/until';
import { webmDuration, webmLoudness } from '../support/webm-audio';
import type { StubScenario } from './daily-stub';
import { dailyStubModule } from './daily-stub-module';

const log = createLogger('silent');
let stubJs: string;
const dir = mkdtempSync(join(tmpdir(), 'recording-browser-'));
const store = new FileRecordingStore(join(dir, 'store'), { baseUrl: () => 'http://localhost', key: 'k' });

beforeAll(async () => {
  stubJs = await dailyStubModule();
});

function provider(scenario: StubScenario) {
  let page: Page | undefined;
  const p = new DailyRoomProvider({
    log,
    synthesizer: espeakSynthesizer,
    preparePage: async (pg) => {
      page = pg;
      await pg.route(`${botOrigin}/vendor/daily-esm.js`, (route) =>
        route.fulfill({ contentType: 'text/javascript', body: stubJs }),
      );
      await pg.addInitScript((s) => {
        window.__dailyStubScenario = s;
      }, scenario);
    },
  });
  return { provider: p, page: () => page! };
}

const joinOptions = {
  roomUrl: 'https://acme.daily.co/interview',
  botName: 'Interviewer',
  videoMode: 'off' as const,
  voice: 'Joanna' as const,
  timeoutMs: 15_000,
  waitingRoomTimeoutMs: 15_000,
};

/** The participants' lines, spoken by espeak-ng on first use (not at import: a skipped file needs no espeak-ng). */
let lines: { alice: string; bob: string } | undefined;
const spoken = () =>
  (lines ??= {
    alice: espeakWav(
      'Hello, my name is Alice, and I am the first speaker in this meeting.',
      'en-us',
    ).toString('base64'),
    bob: espeakWav('Bob here. I am the second speaker, speaking a little later.', 'en-us+m3').toString(
      'base64',
    ),
  });

/** Has `id` say a WAV in the page; resolves once it has been played. */
const speak = (page: Page, id: string, wav: string) =>
  page.evaluate(([i, w]) => window.__dailyStub!.speak(i!, w!), [id, wav]);

/** The decoded file: its length, and its loudness (RMS) per 100 ms, gaps filled with silence as players do. */
const decode = (bytes: Uint8Array) => ({ duration: webmDuration(bytes), rms: webmLoudness(bytes, 0.1) });

/** The loudest 100 ms window between two moments of the recording, in seconds. */
const loudest = (rms: number[], from: number, to: number) =>
  Math.max(...rms.slice(Math.floor(from * 10), Math.ceil(to * 10)));

const speechLevel = 300;
/** The room's quiet between the recorder's start and the bot's notice, so the check before the notice has a window. */
const silenceBeforeNoticeMs = 1000;
const silenceLevel = 60;

const skip = skipReason(requires.chromium(), requires.espeakNg(), requires.ffmpeg());

describe.skipIf(skip)('recording in Chromium (stubbed daily-js)', () => {
  it('records both participants and the bot, the notice first, as one playable file', async () => {
    const botId = '11111111-1111-4111-8111-111111111111';
    const { provider: p, page } = provider({
      present: [
        { id: 'alice', name: 'Alice' },
        { id: 'bob', name: 'Bob' },
      ],
    });
    const room: RoomConnection = await p.join(joinOptions);
    try {
      const uploader = await startRecording({
        room,
        store,
        botId,
        attempt: 0,
        pieceMs: 1000,
        log,
        onWarning: () => {},
      });
      expect(uploader).toBeDefined();
      // Who spoke when, on the wall clock (milliseconds); placed on the recording's clock once it is known.
      const wall: Record<string, [number, number]> = {};
      const timed = async (who: string, f: () => Promise<unknown>) => {
        const from = Date.now();
        await f();
        wall[who] = [from, Date.now()];
      };
      const { alice, bob } = spoken();
      // A second of the room before the notice: the recorder's first moment can come 2 ms before the bot's first
      // word on a fast machine, leaving no window in which "nothing before the notice" could be checked.
      await elapse(silenceBeforeNoticeMs);
      await timed('bot', () => room.speech.say('This meeting is being recorded.'));
      // The speakers take turns, with a pause between them.
      await elapse(1500);
      await timed('alice', () => speak(page(), 'alice', alice));
      await elapse(1500);
      await timed('bob', () => speak(page(), 'bob', bob));
      await elapse(1000);
      await uploader!.finish();
      const ended = Date.now();

      const pieces = await store.listPieces(botId);
      expect(pieces.length).toBeGreaterThan(3);
      // The file's clock starts when the page's recorder started (the time every piece carries), not when Node heard
      // back from it: on a loaded machine that answer comes hundreds of milliseconds later, and timing the speakers
      // from it would put every sound later in the file than its span, eating the slack of the silence checks.
      const { startedAtMs } = await pieces[0]!.read();
      const at = (ms: number) => (ms - startedAtMs) / 1000;
      const meeting = at(ended);
      const spans = Object.fromEntries(
        Object.entries(wall).map(([who, [from, to]]) => [who, [at(from), at(to)] as const]),
      );
      const outcome = await finaliseRecording(store, botId, log);
      if (!('file' in outcome)) throw new Error(outcome.error);
      const { duration, rms } = decode(readFileSync(store.filePath(botId)));
      expect(Math.abs(duration - meeting)).toBeLessThan(2);
      expect(Math.abs(outcome.file.durationSeconds - duration)).toBeLessThan(0.5);
      // Energy where each spoke (0.3 s of slack each side).
      for (const who of ['bot', 'alice', 'bob']) {
        const [from, to] = spans[who]!;
        expect(loudest(rms, from + 0.3, to - 0.3), who).toBeGreaterThan(speechLevel);
      }
      // The notice is the first sound: nothing before the bot spoke, silence between the speakers.
      // The recorder started before startRecording resolved, so at least that second lies before the notice.
      expect(spans.bot![0]).toBeGreaterThanOrEqual(silenceBeforeNoticeMs / 1000);
      expect(loudest(rms, 0, spans.bot![0] - 0.1)).toBeLessThan(silenceLevel);
      expect(loudest(rms, spans.bot![1] + 0.4, spans.alice![0] - 0.2)).toBeLessThan(silenceLevel);
      expect(loudest(rms, spans.alice![1] + 0.4, spans.bob![0] - 0.2)).toBeLessThan(silenceLevel);
    } finally {
      await room.leave();
    }
  }, 90_000);

  it('a bot lost mid-recording (its browser killed) and its replacement still make one playable file', async () => {
    const botId = '22222222-2222-4222-8222-222222222222';
    const scenario = { present: [{ id: 'alice', name: 'Alice' }] };
    const { alice, bob } = spoken();
    const first = provider(scenario);
    const lostRoom = await first.provider.join(joinOptions);
    const started = Date.now();
    await startRecording({
      room: lostRoom,
      store,
      botId,
      attempt: 0,
      pieceMs: 1000,
      log,
      onWarning: () => {},
    });
    await lostRoom.speech.say('This meeting is being recorded.');
    await speak(first.page(), 'alice', alice);
    // The machine is lost: the browser dies mid-piece, its recorder never stopped.
    await first.page().context().browser()?.close();
    const lostAt = (Date.now() - started) / 1000;
    // The replacement comes a while after the loss.
    await elapse(2000);

    const second = provider(scenario);
    const room = await second.provider.join(joinOptions);
    try {
      const uploader = await startRecording({
        room,
        store,
        botId,
        attempt: 1,
        pieceMs: 1000,
        log,
        onWarning: () => {},
      });
      const resumedAt = (Date.now() - started) / 1000;
      await speak(second.page(), 'alice', bob);
      // A moment of the room after the last line.
      await elapse(500);
      await uploader!.finish();
      const meeting = (Date.now() - started) / 1000;

      const outcome = await finaliseRecording(store, botId, log);
      if (!('file' in outcome)) throw new Error(outcome.error);
      const { duration, rms } = decode(readFileSync(store.filePath(botId)));
      // One file on the meeting's clock: the lost piece and the replacement's join are a silent gap in it.
      expect(Math.abs(duration - meeting)).toBeLessThan(2);
      expect(outcome.file.gaps).toHaveLength(1);
      const gap = outcome.file.gaps[0]!;
      expect(gap.atSeconds).toBeLessThan(lostAt);
      expect(gap.atSeconds + gap.seconds).toBeGreaterThan(lostAt);
      expect(gap.atSeconds + gap.seconds).toBeLessThan(resumedAt + 1);
      expect(loudest(rms, 0.5, gap.atSeconds)).toBeGreaterThan(speechLevel);
      expect(loudest(rms, gap.atSeconds + 0.2, gap.atSeconds + gap.seconds - 0.2)).toBeLessThan(silenceLevel);
      expect(loudest(rms, resumedAt + 0.5, meeting - 1)).toBeGreaterThan(speechLevel);
    } finally {
      await room.leave();
    }
  }, 90_000);
});
