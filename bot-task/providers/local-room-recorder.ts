// The local room's recorder: a headless Chromium page of the bot's own mixes the people's microphones (16 kHz PCM the
// room relays over its WebSocket) with the bot's voice (its lines synthesized offline) and records the mix with
// MediaRecorder, Opus in WebM, as the Daily bot's page does (docs/recording.md).
import type { Browser, Page } from 'playwright-core';
import type { Logger } from '../../core/log';
import type { RecordOptions, RoomRecording } from '../../core/ports/room-provider';
import type { Synthesizer } from '../../core/ports/synthesizer';
import { launchChromium } from './daily/chromium';

/** What a recording local bot needs besides the room: a browser to record in and a voice the page can hear. */
export interface LocalRecorderOptions {
  /** The bot's voice in the recording (the room page speaks its lines with speech synthesis no page can capture). */
  synthesizer: Synthesizer;
  log: Logger;
  launch?: () => Promise<Browser>;
}

/** The sample rate of the people's audio on the room's socket (the room page sends it so). */
const roomAudioSampleRate = 16_000;

/** One recorder per connection, started by record(). */
export interface LocalRecorder extends RoomRecording {
  /** A participant's microphone: 16-bit little-endian mono PCM at roomAudioSampleRate. */
  hear(participantId: string, pcm: Buffer): void;
  /** A line the bot says from now on: its synthesized audio enters the mix. */
  say(text: string, voice: string): void;
  /** The bot stopped speaking (cut off): the rest of its line is not recorded. */
  hush(): void;
  /** Ends the recorder and its browser without waiting for pieces (the bot leaving, or a crash). */
  close(): Promise<void>;
}

// Runs in the recorder page (a string, like the room page's script: no bundler between it and the browser).
const pageScript = `
const ctx = new AudioContext({ sampleRate: 48000 });
const mix = ctx.createMediaStreamDestination();
mix.channelCount = 1; mix.channelCountMode = 'explicit';
const voice = ctx.createGain(); voice.connect(mix);
// Chromium's MediaRecorder writes nothing while no source plays into the mix, and the file would lose those stretches
// of silence: a constant source of zeros keeps the mix producing, so the file runs on the meeting's clock.
const floor = ctx.createConstantSource(); floor.offset.value = 0; floor.connect(mix); floor.start();
const people = new Map(); // participant id → the audio clock time its next chunk starts at
let speaking = new Set();
let media, sent = Promise.resolve(), seq = 0;
function bufferOf(b64, rate) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const samples = new Int16Array(bytes.buffer, 0, Math.floor(bytes.length / 2));
  const buffer = ctx.createBuffer(1, Math.max(1, samples.length), rate);
  const channel = buffer.getChannelData(0);
  for (let i = 0; i < samples.length; i++) channel[i] = samples[i] / 32768;
  return buffer;
}
function base64Of(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}
window.recorder = {
  async start(pieceMs) {
    await ctx.resume();
    const mimeType = 'audio/webm;codecs=opus';
    if (!MediaRecorder.isTypeSupported(mimeType)) throw new Error('this browser cannot record ' + mimeType);
    media = new MediaRecorder(mix.stream, { mimeType, audioBitsPerSecond: 32000 });
    media.ondataavailable = (e) => {
      if (!e.data.size) return;
      const n = seq++;
      sent = sent.then(async () => { await window.__recordingPiece(n, await base64Of(e.data)); }).catch(() => {});
    };
    media.start(pieceMs);
    return Date.now();
  },
  // A chunk of someone's microphone, played right after their last one; a jitter of up to 150 ms is absorbed, and a
  // source that runs ahead of the page's clock by more than a second starts again from now.
  hear(id, b64, rate) {
    const buffer = bufferOf(b64, rate);
    const now = ctx.currentTime;
    let at = people.get(id) ?? 0;
    if (at < now + 0.05 || at > now + 1) at = now + 0.15;
    const source = ctx.createBufferSource(); source.buffer = buffer; source.connect(mix); source.start(at);
    people.set(id, at + buffer.duration);
  },
  say(b64, rate) {
    const source = ctx.createBufferSource(); source.buffer = bufferOf(b64, rate); source.connect(voice);
    speaking.add(source); source.onended = () => speaking.delete(source); source.start();
  },
  hush() { for (const s of speaking) { try { s.stop(); } catch {} } speaking.clear(); },
  stop() {
    if (!media || media.state === 'inactive') return sent;
    return new Promise((resolve) => { media.onstop = () => { sent.then(resolve); }; media.stop(); });
  },
};
`;

/** The recorder's browser with its page loaded, before it records: what a join gets ready when the session records. */
export interface PreparedRecorder {
  /** Starts recording; rejects when MediaRecorder cannot. At most once. */
  start(record: RecordOptions): Promise<LocalRecorder>;
  /** Closes the browser (a join that failed, or a recorder never started). */
  close(): Promise<void>;
}

/** Launches the recorder's browser and loads its page; rejects (the browser closed again) when it cannot. */
export async function prepareLocalRecorder(o: LocalRecorderOptions): Promise<PreparedRecorder> {
  const browser = await (o.launch ?? launchChromium)();
  let onPiece: RecordOptions['onPiece'] = () => {};
  let page: Page;
  try {
    page = await (await browser.newContext()).newPage();
    page.on('pageerror', (err) => o.log.warn('recorder page error', { err: err.message }));
    await page.exposeBinding('__recordingPiece', (_source, seq: number, data: string) =>
      onPiece({ seq, bytes: new Uint8Array(Buffer.from(data, 'base64')) }),
    );
    await page.setContent('<!doctype html><title>recorder</title>');
    await page.addScriptTag({ content: pageScript });
  } catch (err) {
    await browser.close().catch(() => {});
    throw err;
  }
  let closed = false;
  const close = async () => {
    closed = true;
    await browser.close().catch(() => {});
  };
  return {
    close,
    async start(record) {
      onPiece = record.onPiece;
      let startedAtMs: number;
      try {
        startedAtMs = await page.evaluate((ms) => window.recorder.start(ms), record.pieceMs);
      } catch (err) {
        await close();
        throw err;
      }
      /** The line being said: a newer one (or hush) makes a slow synthesis of the last one moot. */
      let line = 0;
      const warned = new Set<string>();
      /** Each kind of loss once: logged, and the session's recording_failed warning (status, metric). */
      const warnOnce = (what: string, err: unknown) => {
        if (warned.has(what)) return;
        warned.add(what);
        const detail = err instanceof Error ? err.message : String(err);
        o.log.error(what, { err: detail });
        record.onWarning?.(`${what[0]!.toUpperCase()}${what.slice(1)} (${detail}).`);
      };
      return {
        startedAtMs,
        hear(participantId, pcm) {
          if (closed || pcm.length < 2) return;
          page
            .evaluate(([id, b64, rate]) => window.recorder.hear(id, b64, rate), [
              participantId,
              pcm.toString('base64'),
              roomAudioSampleRate,
            ] as const)
            .catch((err) => !closed && warnOnce('the recorder lost a participant’s audio', err));
        },
        say(text, voice) {
          const mine = ++line;
          o.synthesizer
            .synthesize(text, voice)
            .then(({ pcm, sampleRate }) => {
              if (closed || mine !== line) return;
              return page.evaluate(([b64, rate]) => window.recorder.say(b64, rate), [
                pcm.toString('base64'),
                sampleRate,
              ] as const);
            })
            .catch((err) =>
              warnOnce('the bot’s voice could not be recorded; the recording has the participants only', err),
            );
        },
        hush() {
          line++;
          if (!closed) void page.evaluate(() => window.recorder.hush()).catch(() => {});
        },
        async stop() {
          if (!closed)
            await page
              .evaluate(() => window.recorder.stop())
              .catch((err) =>
                warnOnce('the recorder did not stop cleanly; its last piece may be missing', err),
              );
          await close();
        },
        close,
      };
    },
  };
}

declare global {
  interface Window {
    /** The recorder page's script (pageScript). */
    recorder: {
      start(pieceMs: number): Promise<number>;
      hear(id: string, b64: string, rate: number): void;
      say(b64: string, rate: number): void;
      hush(): void;
      stop(): Promise<void>;
    };
  }
}
