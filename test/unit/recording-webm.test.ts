// The recording's assembly from recorder streams, on real Opus/WebM written by ffmpeg as a live (unknown-size)
// stream like Chromium's MediaRecorder, checked by decoding the result with ffprobe/ffmpeg.
import { describe, expect, it } from 'vitest';
import { assembleRecording, opusPacketMs, parseStream, WebmFormatError } from '../../core/recording/webm';
import { webmDuration, webmLoudness, webmTone } from '../support/webm-audio';

/** The file's length and its loudness per half second. */
const probe = (bytes: Uint8Array) => ({ duration: webmDuration(bytes), rms: webmLoudness(bytes, 0.5) });

// ffmpeg runs take seconds on a loaded machine.
describe('assembleRecording', { timeout: 30_000 }, () => {
  it('one recorder: a playable file of its length', () => {
    const out = assembleRecording([{ startedAtMs: 0, bytes: webmTone(440, 3) }]);
    const { duration, rms } = probe(out.bytes);
    expect(duration).toBeGreaterThan(2.9);
    expect(duration).toBeLessThan(3.2);
    expect(out.durationSeconds).toBeCloseTo(duration, 1);
    expect(Math.min(...rms)).toBeGreaterThan(1000);
    expect(out.gaps).toEqual([]);
  });

  it('a replacement recorder: one file, its audio where it started, the gap silent and reported', () => {
    const first = webmTone(440, 3);
    const second = webmTone(880, 3);
    // The first task was lost mid-piece: its stream ends in the middle of an element.
    const out = assembleRecording([
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

  it('clocks that disagree never overlap two recorders', () => {
    const out = assembleRecording([
      { startedAtMs: 10_000, bytes: webmTone(440, 2) },
      { startedAtMs: 10_500, bytes: webmTone(880, 2) },
    ]);
    expect(probe(out.bytes).duration).toBeGreaterThan(3.9);
    expect(out.gaps).toEqual([]);
  });

  it('refuses what is not WebM and streams with no audio', () => {
    expect(() => parseStream(new TextEncoder().encode('hello'))).toThrow(WebmFormatError);
    const headerOnly = webmTone(440, 1).subarray(0, 60);
    expect(() => assembleRecording([{ startedAtMs: 0, bytes: headerOnly }])).toThrow(WebmFormatError);
  });

  it('reads an Opus packet length from its TOC byte', () => {
    expect(opusPacketMs(Uint8Array.of(0xfc))).toBe(20); // CELT fullband 20 ms, one frame
    expect(opusPacketMs(Uint8Array.of(0x79))).toBe(40); // SILK wideband 20 ms, two frames (code 1)
    expect(opusPacketMs(Uint8Array.of(0x1b, 0x03))).toBe(180); // SILK 60 ms, code 3 with three frames
  });
});
