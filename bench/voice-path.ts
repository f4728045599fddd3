// The measured end of the voice benchmark: from the moment the reply's first synthesized audio reaches the bot, through
// our code (PollySynthesizer.stream, dailySpeech), the Daily provider's page.evaluate calls, the bot page's WebAudio
// player, the microphone track daily-js would send, a WebRTC connection, to a listener in Chromium hearing its first
// audible sample. Real Chromium as the bot task starts it, the real bot page; daily-js is the test stand-in (no
// network), and the listener receives the microphone track over a peer connection of its own instead of Daily's SFU.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { PollyClient } from '@aws-sdk/client-polly';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../bot-task/providers/daily/chromium';
import { DailyRoomProvider } from '../bot-task/providers/daily/daily-provider';
import { wavPcm } from '../core/adapters/espeak/espeak-synthesizer';
import { PollySynthesizer, pollySampleRate } from '../core/adapters/polly/polly-synthesizer';
import { createLogger } from '../core/log';
import { dailyStubModule, routeStubbedDaily } from '../test/browser/daily-stub-module';
import { audibleLevel, detect, listenTo, nowMs } from './voice-listener';

/** The line said each time: the reply's first clause, as the bot speaks it first (voice.ts's reply). */
export const measuredLine = 'Thank you,';
/** Polly's chunks as the stand-in sends them: 100 ms of audio each, 10 ms apart (faster than it plays). */
const chunkBytes = 3_200;
const chunkEveryMs = 10;

export interface VoicePathFigures {
  /** First audio bytes reaching the bot → the listener's first audible sample, one per line (ms). */
  toListener: number[];
  /** The same start → the first audible sample on the bot's own microphone track, in its page (ms). */
  toMicrophone: number[];
  /** The listener's jitter buffer: its mean delay over the measured lines (ms), from the receiver's getStats. */
  jitterBufferMs: number;
  /** How far the pages' clocks may be off Node's, at most (ms). */
  clockUncertaintyMs: number;
  codec: string;
  /** The espeak-ng audio said: its length (ms) after its leading quiet was cut. */
  lineMs: number;
}

/** Where measuring is impossible here: why (printed, and the run marked invalid), or undefined. */
export function voicePathMissing(chromiumPath: string): string | undefined {
  if (!existsSync(chromiumPath))
    return `Chromium is not at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`;
  try {
    execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'espeak-ng is not installed (apt-get install espeak-ng)';
  }
  return undefined;
}

/**
 * Where the line is cut to begin: its first sample at five times the detector's level. espeak-ng's "Thank" opens with
 * about 80 ms of a faint "th" at the detector's level, which the codec may drop: the listener would hear the vowel
 * and charge those 80 ms to the path.
 */
const clearLevel = 5 * audibleLevel;

/**
 * The line in Polly's format (16 kHz 16-bit mono PCM), resampled linearly from espeak-ng's 22,050 Hz, with its leading
 * quiet cut (clearLevel): its first sample is plainly audible, so what is measured is the path, not the voice's own
 * lead-in.
 */
export function spokenLine(text: string): Buffer {
  const { pcm, sampleRate } = wavPcm(
    execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '--stdout', text]),
  );
  const source = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1);
  const first = source.findIndex((s) => Math.abs(s) / 32768 >= clearLevel);
  const n = Math.floor(((source.length - Math.max(0, first)) * pollySampleRate) / sampleRate);
  const out = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) {
    const at = Math.max(0, first) + (i * sampleRate) / pollySampleRate;
    const lo = Math.floor(at);
    const hi = Math.min(source.length - 1, lo + 1);
    out.writeInt16LE(Math.round(source[lo]! + (source[hi]! - source[lo]!) * (at - lo)), i * 2);
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polly as the SDK hands its response over: the line's PCM at once, in chunks; `firstBytes` stamps the first. */
function pollyStandIn(pcm: Buffer, firstBytes: number[]): PollyClient {
  return {
    async send() {
      return {
        AudioStream: (async function* () {
          for (let at = 0; at < pcm.length; at += chunkBytes) {
            if (at === 0) firstBytes.push(nowMs());
            else await sleep(chunkEveryMs);
            yield pcm.subarray(at, at + chunkBytes);
          }
        })(),
      };
    },
  } as unknown as PollyClient;
}

/**
 * Says the line `lines` times (after `warmupMs` of the connection carrying the bot's silent track and two unmeasured
 * lines: in a meeting the listener's connection has run since the bot joined, and its jitter buffer has settled),
 * each once the listener has heard quiet again.
 */
export async function measureVoicePath(
  chromiumPath: string,
  o: { lines: number; warmupMs: number },
): Promise<VoicePathFigures> {
  const pcm = spokenLine(measuredLine);
  const firstBytes: number[] = [];
  const stubJs = await dailyStubModule();
  let page: Page | undefined;
  let browser: Browser | undefined;
  const provider = new DailyRoomProvider({
    log: createLogger('silent'),
    synthesizer: new PollySynthesizer(pollyStandIn(pcm, firstBytes)),
    launch: async () => {
      browser = await launchChromium(chromiumPath);
      return browser;
    },
    preparePage: (p) => {
      page = p;
      return routeStubbedDaily(p, stubJs);
    },
  });
  const conn = await provider.join({
    roomUrl: 'https://acme.daily.co/interview',
    botName: 'Interviewer',
    videoMode: 'off',
    voice: 'Joanna',
    timeoutMs: 30_000,
    waitingRoomTimeoutMs: 30_000,
  });
  try {
    const botPage = page!;
    // The microphone track the bot page handed to daily-js's createCallObject.
    const track = await botPage.evaluateHandle(
      () => window.__dailyStub!.options.audioSource as MediaStreamTrack,
    );
    const listener = await listenTo(browser!, botPage, track);
    try {
      const microphone = await detect(botPage, 'microphone', track);
      await sleep(o.warmupMs);
      const jitter = () => jitterBuffer(listener.page);
      const figures: VoicePathFigures = {
        toListener: [],
        toMicrophone: [],
        jitterBufferMs: 0,
        clockUncertaintyMs: Math.max(listener.clockUncertaintyMs, microphone.clockUncertaintyMs),
        codec: '',
        lineMs: Math.round(pcm.length / 2 / (pollySampleRate / 1000)),
      };
      let before = await jitter();
      for (let i = -2; i < o.lines; i++) {
        if (i === 0) before = await jitter();
        await listener.quiet(10_000);
        await microphone.quiet(10_000);
        const heard = (await listener.onsets()).length;
        const tapped = (await microphone.onsets()).length;
        const said = conn.speech.say(measuredLine);
        const atListener = await listener.onset(heard, 10_000);
        const atMicrophone = await microphone.onset(tapped, 1_000);
        if ((await said) !== 'done') throw new Error('the measured line was cut off');
        const start = firstBytes.at(-1);
        if (atListener === undefined || atMicrophone === undefined || start === undefined)
          throw new Error('the listener heard nothing of a line the bot said');
        if (i < 0) continue;
        figures.toListener.push(atListener - start);
        figures.toMicrophone.push(atMicrophone - start);
      }
      const after = await jitter();
      figures.codec = await listener.codec();
      figures.jitterBufferMs = ((after.delay - before.delay) / (after.emitted - before.emitted)) * 1000;
      return figures;
    } finally {
      await listener.close();
    }
  } finally {
    await conn.leave();
  }
}

/** The listener's jitter buffer so far: total delay (s, summed over samples) and samples emitted (inbound-rtp). */
async function jitterBuffer(page: Page): Promise<{ delay: number; emitted: number }> {
  return page.evaluate(async () => {
    for (const s of (await window.__listenerLink!.getStats()).values())
      if (s.type === 'inbound-rtp')
        return { delay: Number(s.jitterBufferDelay), emitted: Number(s.jitterBufferEmittedCount) };
    return { delay: 0, emitted: 0 };
  });
}
