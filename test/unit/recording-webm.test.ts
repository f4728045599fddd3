// The recording's assembly from recorder streams, on real Opus/WebM written by ffmpeg as a live (unknown-size)
// stream like Chromium's MediaRecorder, checked by decoding the result with ffprobe/ffmpeg; the same file whatever
// the pieces' boundaries, and the second reading checked against the first.
import { describe, expect, it } from 'vitest';
import { concat } from '../../core/recording/ebml';
import { planRecording, type RecorderSource, WebmFormatError } from '../../core/recording/webm';
import { opusPacketMs } from '../../core/recording/webm-stream';
import { requires, skipReason } from '../support/requirements';
import { webmDuration, webmLoudness, webmTone } from '../support/webm-audio';

/** A recorder's stream cut into pieces of `pieceBytes` (the whole stream as one piece by default). */
function source(startedAtMs: number, bytes: Uint8Array, pieceBytes = bytes.length): RecorderSource {
  return {
    async *pieces() {
      for (let at = 0; at < bytes.length; at += pieceBytes)
        yield { startedAtMs, bytes: bytes.subarray(at, at + pieceBytes) };
    },
  };
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return concat(chunks);
}

/** The file of these streams, with what the plan says of it. */
async function assembleRecording(streams: { startedAtMs: number; bytes: Uint8Array }[], pieceBytes?: number) {
  const plan = await planRecording(streams.map((s) => source(s.startedAtMs, s.bytes, pieceBytes)));
  const bytes = await collect(plan.body());
  expect(bytes.length).toBe(plan.sizeBytes);
  return { ...plan, bytes };
}

/** The file's length and its loudness per half second. */
const probe = (bytes: Uint8Array) => ({ duration: webmDuration(bytes), rms: webmLoudness(bytes, 0.5) });

// ffmpeg runs take seconds on a loaded machine.
describe.skipIf(skipReason(requires.ffmpeg()))('assembleRecording', { timeout: 30_000 }, () => {
  it('one recorder: a playable file of its length', async () => {
    const out = await assembleRecording([{ startedAtMs: 0, bytes: webmTone(440, 3) }]);
    const { duration, rms } = probe(out.bytes);
    expect(duration).toBeGreaterThan(2.9);
    expect(duration).toBeLessThan(3.2);
    expect(out.durationSeconds).toBeCloseTo(duration, 1);
    expect(Math.min(...rms)).toBeGreaterThan(1000);
    expect(out.gaps).toEqual([]);
  });

  it('a replacement recorder: one file, its audio where it started, the gap silent and reported', async () => {
    const first = webmTone(440, 3);
    const second = webmTone(880, 3);
    // The first task was lost mid-piece: its stream ends in the middle of an element.
    const out = await assembleRecording([
      { startedAtMs: 10_000, bytes: first.subarray(0, first.length - 50) },
      { startedAtMs: 15_000, bytes: second },
    ]);
    const { duration, rms } = probe(out.bytes);
    expect(duration).toBeGreaterThan(7.8);
    expect(duration).toBeLessThan(8.2);
    expect(out.gaps).toHaveLength(1);
    expect(out.gaps[0]?.seconds).toBeGreaterThan(1.9);
    expect(out.gaps[0]?.seconds).toBeLessThan(2.2);
    // Half-second windows: tone in 0–2.5 s, silence in 3.5–4.5 s, tone again from 5 s.
    expect(Math.min(...rms.slice(0, 5))).toBeGreaterThan(1000);
    expect(Math.max(...rms.slice(7, 9))).toBeLessThan(100);
    expect(Math.min(...rms.slice(10, 15))).toBeGreaterThan(1000);
  });

  it('clocks that disagree never overlap two recorders', async () => {
    const out = await assembleRecording([
      { startedAtMs: 10_000, bytes: webmTone(440, 2) },
      { startedAtMs: 10_500, bytes: webmTone(880, 2) },
    ]);
    expect(probe(out.bytes).duration).toBeGreaterThan(3.9);
    expect(out.gaps).toEqual([]);
  });

  it('refuses what is not WebM and streams with no audio', async () => {
    await expect(
      assembleRecording([{ startedAtMs: 0, bytes: new TextEncoder().encode('hello') }]),
    ).rejects.toThrow(WebmFormatError);
    const headerOnly = webmTone(440, 1).subarray(0, 60);
    await expect(assembleRecording([{ startedAtMs: 0, bytes: headerOnly }])).rejects.toThrow(WebmFormatError);
  });

  it('the same file whatever the pieces’ boundaries (elements cut across pieces, down to single bytes)', async () => {
    const first = webmTone(440, 2);
    const second = webmTone(880, 1);
    const streams = [
      { startedAtMs: 10_000, bytes: first.subarray(0, first.length - 50) },
      { startedAtMs: 13_000, bytes: second },
    ];
    const whole = await assembleRecording(streams);
    for (const pieceBytes of [1, 7, 100, 4096]) {
      const cut = await assembleRecording(streams, pieceBytes);
      expect(cut.bytes).toEqual(whole.bytes);
      expect(cut.gaps).toEqual(whole.gaps);
    }
  });

  it('a piece that differs on the second reading fails the write, never a wrong file', async () => {
    const bytes = webmTone(440, 2);
    let reads = 0;
    const changing: RecorderSource = {
      async *pieces() {
        reads++;
        // The second reading lacks the last quarter: fewer clusters than planned.
        yield { startedAtMs: 0, bytes: reads === 1 ? bytes : bytes.subarray(0, (bytes.length * 3) >> 2) };
      },
    };
    const plan = await planRecording([changing]);
    await expect(collect(plan.body())).rejects.toThrow(/changed while it was being assembled/);
  });

  it('reads an Opus packet length from its TOC byte', () => {
    expect(opusPacketMs(Uint8Array.of(0xfc))).toBe(20); // CELT fullband 20 ms, one frame
    expect(opusPacketMs(Uint8Array.of(0x79))).toBe(40); // SILK wideband 20 ms, two frames (code 1)
    expect(opusPacketMs(Uint8Array.of(0x1b, 0x03))).toBe(180); // SILK 60 ms, code 3 with three frames
  });
});
