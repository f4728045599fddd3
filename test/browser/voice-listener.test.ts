// The voice benchmark's listener in real Chromium: it hears a track's speech only through the WebRTC connection, and
// hears nothing in silence; and the benchmark's measured path, through the Daily bot page, ends at it.
import type { Browser, JSHandle, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Listener, listenTo, nowMs, quietBeforeMs } from '../../bench/voice-listener';
import { measureVoicePath, spokenLine } from '../../bench/voice-path';
import { launchChromium } from '../../bot-task/providers/daily/chromium';
import { chromiumPath, requires, skipReason } from '../support/requirements';

declare global {
  interface Window {
    /** The source page's speech: plays the line into the track once. */
    say?: () => void;
  }
}

describe.skipIf(skipReason(requires.chromium(), requires.espeakNg()))(
  'voice listener over WebRTC (Chromium)',
  () => {
    let browser: Browser;
    let source: Page;
    let track: JSHandle<MediaStreamTrack>;
    let listener: Listener;

    beforeAll(async () => {
      browser = await launchChromium(chromiumPath);
      source = await (await browser.newContext()).newPage();
      await source.route('https://source.invalid/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>source</title>' }),
      );
      await source.goto('https://source.invalid/');
      // A WebAudio track as the bot page makes its microphone: silent until say() plays espeak-ng's speech into it.
      const pcm = [...spokenLine('Hello there.')];
      track = await source.evaluateHandle((bytes) => {
        const context = new AudioContext({ sampleRate: 48_000 });
        const destination = context.createMediaStreamDestination();
        const samples = new Int16Array(new Uint8Array(bytes).buffer);
        const buffer = context.createBuffer(1, samples.length, 16_000);
        buffer.getChannelData(0).set(Array.from(samples, (s) => s / 32768));
        window.say = () => {
          const line = context.createBufferSource();
          line.buffer = buffer;
          line.connect(destination);
          line.start();
        };
        return destination.stream.getAudioTracks()[0]!;
      }, pcm);
      listener = await listenTo(browser, source, track);
    });

    afterAll(async () => {
      await listener?.close();
      await browser?.close();
    });

    it('hears nothing while the track is silent', async () => {
      await listener.quiet(10_000);
      const heard = (await listener.onsets()).length;
      expect(await listener.onset(heard, 1_500)).toBeUndefined();
    });

    it('hears speech sent over the connection, after it was played', async () => {
      await listener.quiet(10_000);
      const heard = (await listener.onsets()).length;
      const played = nowMs();
      await source.evaluate(() => window.say!());
      const onset = await listener.onset(heard, 5_000);
      expect(onset).toBeDefined();
      // After the line was played (within the clocks' uncertainty), and through the connection's buffering.
      expect(onset!).toBeGreaterThan(played - listener.clockUncertaintyMs);
      expect(onset! - played).toBeLessThan(2_000);
      expect(await listener.codec()).toBe('audio/opus');
    });

    it('hears nothing once the connection stops sending: what it hears came over WebRTC', async () => {
      await source.evaluate(() =>
        window
          .__listenerLink!.getSenders()[0]!
          .replaceTrack(null)
          .then(() => undefined),
      );
      await listener.quiet(10_000);
      const heard = (await listener.onsets()).length;
      await source.evaluate(() => window.say!());
      expect(await listener.onset(heard, 1_000 + quietBeforeMs)).toBeUndefined();
    });

    it('the benchmark measures the bot page to the listener: the microphone track first, then the listener', async () => {
      const path = await measureVoicePath(chromiumPath, { lines: 1, warmupMs: 0 });
      expect(path.toListener).toHaveLength(1);
      expect(path.codec).toBe('audio/opus');
      for (const [i, ms] of path.toListener.entries()) {
        expect(path.toMicrophone[i]!).toBeGreaterThan(0);
        expect(ms).toBeGreaterThan(path.toMicrophone[i]!);
        expect(ms).toBeLessThan(3_000);
      }
    });
  },
);
