// The far end of the bot's voice in Chromium, for the voice benchmark: a detector that stamps the first audible sample
// of each stretch of sound on a track, and a listener, a page of its own (a participant's), that receives the bot's
// microphone track over a WebRTC peer connection on this machine's own addresses and runs that detector on it.
import type { Browser, JSHandle, Page } from 'playwright-core';

/** The listener's page: a real https origin (WebAudio worklets need a secure context), answered by page.route. */
const listenerOrigin = 'https://listener.invalid';

/** Audible: a sample of at least this magnitude (full scale 1; about −34 dBFS, far above Opus's decoded silence). */
export const audibleLevel = 0.02;
/** A stretch of sound begins with an audible sample after at least this much quiet. */
export const quietBeforeMs = 150;

/**
 * The detector, run on the audio thread: each render quantum (128 samples) it looks for the first audible sample after
 * a stretch of quiet and posts `onset`; once quiet has lasted `quietFrames` again it posts `quiet`. A quantum without
 * input (the track not flowing yet) counts as quiet.
 */
const detectorWorklet = `
class FirstAudible extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.level = options.processorOptions.level;
    this.quietFrames = options.processorOptions.quietFrames;
    this.quietRun = 0;
  }
  process(inputs) {
    const samples = inputs[0] && inputs[0][0];
    const n = samples ? samples.length : 128;
    for (let i = 0; i < n; i++) {
      if (samples && Math.abs(samples[i]) >= this.level) {
        if (this.quietRun >= this.quietFrames) this.port.postMessage('onset');
        this.quietRun = 0;
      } else if (++this.quietRun === this.quietFrames) this.port.postMessage('quiet');
    }
    return true;
  }
}
registerProcessor('first-audible', FirstAudible);
`;

/** What a detector keeps in its page (`window.__detectors[name]`). */
interface DetectorState {
  /** When each onset reached the page's main thread: epoch ms on the page's clock (timeOrigin + now). */
  onsets: number[];
  /** Quiet for `quietBeforeMs` since the last sound (or since it started). */
  quiet: boolean;
  /** Held, so the context is not collected while it listens. */
  context: AudioContext;
}

declare global {
  interface Window {
    __detectors?: Record<string, DetectorState>;
    __listenerLink?: RTCPeerConnection;
    /** The listener's end of the connection: the track it received. */
    __receivedTrack?: MediaStreamTrack;
  }
}

/** Runs the detector in `page` on `track`, under `name`. Page-side, so it takes everything it needs as arguments. */
function installDetector(
  page: Page,
  name: string,
  track: JSHandle<MediaStreamTrack>,
  remote: boolean,
): Promise<void> {
  return page.evaluate(
    async ([t, o]) => {
      const context = new AudioContext({ sampleRate: 48_000 });
      const url = URL.createObjectURL(new Blob([o.worklet], { type: 'text/javascript' }));
      await context.audioWorklet.addModule(url);
      const stream = new MediaStream([t]);
      // Chromium feeds a remote WebRTC track to WebAudio only while a media element also plays it (crbug.com/933677).
      if (o.remote) {
        const element = new Audio();
        element.muted = true;
        element.srcObject = stream;
        await element.play();
      }
      const detector = new AudioWorkletNode(context, 'first-audible', {
        processorOptions: {
          level: o.level,
          quietFrames: Math.round((o.quietMs / 1000) * context.sampleRate),
        },
      });
      // Pulled by the destination, at no volume: a node nothing pulls is not run.
      const mute = context.createGain();
      mute.gain.value = 0;
      context.createMediaStreamSource(stream).connect(detector).connect(mute).connect(context.destination);
      const state: DetectorState = { onsets: [], quiet: false, context };
      detector.port.onmessage = (e) => {
        if (e.data === 'onset') {
          state.onsets.push(performance.timeOrigin + performance.now());
          state.quiet = false;
        } else state.quiet = true;
      };
      await context.resume();
      window.__detectors = { ...window.__detectors, [o.name]: state };
    },
    [track, { name, remote, worklet: detectorWorklet, level: audibleLevel, quietMs: quietBeforeMs }] as const,
  );
}

/** This process's clock, as the pages' is read: epoch ms with the monotonic clock's resolution. */
export const nowMs = () => performance.timeOrigin + performance.now();

/**
 * The page's clock minus ours, from the page.evaluate round trip that took least time (the page's reading lies within
 * that trip): `uncertaintyMs` is half that trip.
 */
async function clockOffset(page: Page): Promise<{ offsetMs: number; uncertaintyMs: number }> {
  let best = { offsetMs: 0, uncertaintyMs: Number.POSITIVE_INFINITY };
  for (let i = 0; i < 20; i++) {
    const before = nowMs();
    const theirs = await page.evaluate(() => performance.timeOrigin + performance.now());
    const after = nowMs();
    if ((after - before) / 2 < best.uncertaintyMs)
      best = { offsetMs: theirs - (before + after) / 2, uncertaintyMs: (after - before) / 2 };
  }
  return best;
}

/** A detector as Node sees it: its onsets on this process's clock. */
export interface Detector {
  /** Every onset so far, epoch ms on this process's clock. */
  onsets(): Promise<number[]>;
  /** The onset after the `seen` first ones, once there is one; undefined after `timeoutMs`. */
  onset(seen: number, timeoutMs: number): Promise<number | undefined>;
  /** Resolves once the track has been quiet for quietBeforeMs: the next sound is a new onset. */
  quiet(timeoutMs: number): Promise<void>;
  /** How far its clock reading can be off ours (ms). */
  clockUncertaintyMs: number;
}

/** A detector in `page` on `track` (a remote track: one a peer connection received). */
export async function detect(
  page: Page,
  name: string,
  track: JSHandle<MediaStreamTrack>,
  remote = false,
): Promise<Detector> {
  await installDetector(page, name, track, remote);
  const clock = await clockOffset(page);
  const onsets = async () =>
    (await page.evaluate((n) => window.__detectors![n]!.onsets, name)).map((t) => t - clock.offsetMs);
  return {
    onsets,
    async onset(seen, timeoutMs) {
      const heard = await page
        .waitForFunction(([n, k]) => window.__detectors![n]!.onsets.length > k, [name, seen] as const, {
          timeout: timeoutMs,
          polling: 20,
        })
        .then(() => true)
        .catch(() => false);
      return heard ? (await onsets())[seen] : undefined;
    },
    async quiet(timeoutMs) {
      await page.waitForFunction((n) => window.__detectors![n]!.quiet, name, {
        timeout: timeoutMs,
        polling: 20,
      });
    },
    clockUncertaintyMs: clock.uncertaintyMs,
  };
}

/** The listener: a participant's page that receives `track` of `source` over WebRTC and detects what it hears. */
export interface Listener extends Detector {
  /** The codec of what the listener has received (`audio/opus`), or `unknown` before anything arrived. */
  codec(): Promise<string>;
  /** The listener's page (its peer connection is `window.__listenerLink`). */
  page: Page;
  close(): Promise<void>;
}

/**
 * Sends `track` from `source` to a new page of `browser` (a context of its own, so a renderer of its own) over a
 * peer connection pair: no STUN or TURN, host candidates only, SDP exchanged through Node once gathering is complete.
 * The peer connection's defaults are kept (Opus, its default bitrate, no DTX), as daily-js's sending is not known here.
 */
export async function listenTo(
  browser: Browser,
  source: Page,
  track: JSHandle<MediaStreamTrack>,
): Promise<Listener> {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.route(`${listenerOrigin}/**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>listener</title>' }),
    );
    await page.goto(`${listenerOrigin}/`);
    const offer = await source.evaluate(async (t) => {
      const link = new RTCPeerConnection();
      window.__listenerLink = link;
      link.addTrack(t, new MediaStream([t]));
      await link.setLocalDescription(await link.createOffer());
      if (link.iceGatheringState !== 'complete')
        await new Promise<void>((resolve) =>
          link.addEventListener('icegatheringstatechange', () => {
            if (link.iceGatheringState === 'complete') resolve();
          }),
        );
      return link.localDescription!.sdp;
    }, track);
    const answer = await page.evaluate(async (sdp) => {
      const link = new RTCPeerConnection();
      window.__listenerLink = link;
      link.ontrack = (e) => {
        window.__receivedTrack = e.track;
      };
      await link.setRemoteDescription({ type: 'offer', sdp });
      await link.setLocalDescription(await link.createAnswer());
      if (link.iceGatheringState !== 'complete')
        await new Promise<void>((resolve) =>
          link.addEventListener('icegatheringstatechange', () => {
            if (link.iceGatheringState === 'complete') resolve();
          }),
        );
      return link.localDescription!.sdp;
    }, offer);
    await source.evaluate(
      (sdp) => window.__listenerLink!.setRemoteDescription({ type: 'answer', sdp }),
      answer,
    );
    await page.waitForFunction(() => window.__listenerLink!.connectionState === 'connected', undefined, {
      timeout: 10_000,
    });
    const received = await page.evaluateHandle(() => window.__receivedTrack!);
    const detector = await detect(page, 'listener', received, true);
    return {
      ...detector,
      page,
      codec: () =>
        page.evaluate(async () => {
          const stats = await window.__listenerLink!.getStats();
          const inbound = [...stats.values()].find((s) => s.type === 'inbound-rtp');
          return String(stats.get(inbound?.codecId)?.mimeType ?? 'unknown');
        }),
      async close() {
        await source.evaluate(() => window.__listenerLink?.close()).catch(() => {});
        await context.close().catch(() => {});
      },
    };
  } catch (err) {
    await context.close().catch(() => {});
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`the listener could not be connected over WebRTC: ${reason}`);
  }
}
