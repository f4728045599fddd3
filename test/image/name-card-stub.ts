// Runs in the bot's page (inside the image): the daily-js stand-in of test/browser, which also reads one frame of the
// video track the bot hands to createCallObject and reports its pixels through the page's log channel, so a test
// outside the container can tell a drawn name from a blank card or a row of missing-glyph boxes.
import type { DailyCall, DailyFactoryOptions } from '@daily-co/daily-js';
// For its declaration of window.__botEvent, the channel the page logs through.
import type {} from '../../bot-task/providers/daily/page/node-channel';
import stub, { videoFrameReader } from '../browser/daily-stub';
import { type NameCardReport, nameCardReportPrefix } from './name-card-report';

/** Text-white: the card draws the name in #fff on #1f2937; antialiased edges are greys in between. */
const inked = (r: number, g: number, b: number) => Math.min(r, g, b) > 170;

async function report(track: MediaStreamTrack): Promise<void> {
  const reader = videoFrameReader(track);
  // The second frame: the first may come before the canvas was first drawn.
  let frame: VideoFrame | undefined;
  for (let n = 0; n < 2; n++) {
    frame?.close();
    frame = (await reader.read()).value;
  }
  reader.releaseLock();
  if (!frame) return;
  const canvas = new OffscreenCanvas(frame.displayWidth, frame.displayHeight);
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(frame, 0, 0);
  frame.close();
  const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
  const at = (x: number, y: number) => (y * width + x) * 4;
  const nameInk: number[] = [];
  for (let x = 0; x < width; x++) {
    let ink = 0;
    for (let y = 250; y < Math.min(290, height); y++) {
      const i = at(x, y);
      if (inked(data[i]!, data[i + 1]!, data[i + 2]!)) ink++;
    }
    nameInk.push(ink);
  }
  const c = at(8, 8);
  const result: NameCardReport = { width, height, corner: [data[c]!, data[c + 1]!, data[c + 2]!], nameInk };
  window.__botEvent?.({ type: 'log', level: 'warn', message: nameCardReportPrefix + JSON.stringify(result) });
}

const factory = {
  createCallObject(options?: DailyFactoryOptions): DailyCall {
    const call = stub.createCallObject(options);
    const video = options?.videoSource;
    if (video instanceof MediaStreamTrack) void report(video);
    return call;
  },
};

export default factory;
