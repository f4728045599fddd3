// Test helper: Opus/WebM audio made and read with ffmpeg and ffprobe, so a recording is checked as a player decodes it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { concat, element, ID, uint } from '../../core/recording/ebml';
import { WebmStreamReader } from '../../core/recording/webm-stream';

/** `seconds` of a sine tone as a live Opus/WebM stream (clusters of unknown size), as Chromium's MediaRecorder writes. */
export function webmTone(hz: number, seconds: number): Uint8Array {
  return new Uint8Array(
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', `sine=f=${hz}:d=${seconds}`, '-ac', '1'],
      ...['-c:a', 'libopus', '-b:a', '32k', '-f', 'webm', '-live', '1', 'pipe:1'],
    ]),
  );
}

/** Runs `read` on the bytes written to a temporary .webm file (ffprobe needs a seekable file for the length). */
function withFile<T>(bytes: Uint8Array, read: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'webm-audio-'));
  try {
    const file = join(dir, 'audio.webm');
    writeFileSync(file, bytes);
    return read(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The length in seconds ffprobe reads from the file's container. */
export function webmDuration(bytes: Uint8Array): number {
  return withFile(bytes, webmFileDuration);
}

/**
 * The decoded audio's loudness (RMS of 16-bit samples) per window of `windowSeconds`, decoded at 8 kHz mono with gaps
 * filled by silence (aresample=async), as a player plays them.
 */
export function webmLoudness(bytes: Uint8Array, windowSeconds: number): number[] {
  const pcm = withFile(bytes, (file) =>
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-i', file, '-af', 'aresample=async=1', '-ac', '1', '-ar', '8000'],
      ...['-f', 's16le', 'pipe:1'],
    ]),
  );
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2));
  const window = Math.round(8000 * windowSeconds);
  const rms: number[] = [];
  for (let i = 0; i + window <= samples.length; i += window) {
    let sum = 0;
    for (let j = i; j < i + window; j++) sum += (samples[j] ?? 0) ** 2;
    rms.push(Math.sqrt(sum / window));
  }
  return rms;
}

/** A Segment or Cluster head of unknown size, as a live recorder writes them. */
const unknownSize = (id: number) =>
  Uint8Array.from([...[3, 2, 1, 0].map((i) => (id >> (8 * i)) & 0xff), 0x01, ...new Array(7).fill(0xff)]);

/**
 * A long recorder's stream as the pieces its uploader stores: `count` pieces of `pieceSeconds` (a 4-hour meeting at
 * the 10 s piece size: 1,440), made from one ffmpeg tone of that length repeated, each repeat's clusters moved on by
 * its length. Each piece is cut 100 bytes before its repeat ends, so elements span two pieces as MediaRecorder's do.
 * Made one piece at a time: the test holds none of the others.
 */
export function* longRecordingPieces(count: number, pieceSeconds = 10): Generator<Uint8Array> {
  const reader = new WebmStreamReader();
  const clusters = [...reader.push(webmTone(440, pieceSeconds)), ...reader.end()];
  const header = reader.header;
  if (!header) throw new Error('ffmpeg wrote no WebM header');
  const head = concat([
    header.ebmlHeader,
    unknownSize(ID.segment),
    element(ID.info, uint(ID.timecodeScale, header.timecodeScale)),
    header.tracks,
  ]);
  const ticksPerPiece = (pieceSeconds * 1e9) / header.timecodeScale;
  const cut = 100;
  let carry: Uint8Array = head;
  for (let k = 0; k < count; k++) {
    const repeat = concat(
      clusters.flatMap((c) => [
        unknownSize(ID.cluster),
        uint(ID.timecode, c.timecode + k * ticksPerPiece),
        ...c.blocks,
      ]),
    );
    const last = k === count - 1;
    yield concat([carry, last ? repeat : repeat.subarray(0, repeat.length - cut)]);
    carry = last ? new Uint8Array() : repeat.slice(repeat.length - cut);
  }
}

/** Decodes `seconds` from `from` on (a seek through the file's cues) and returns that audio's loudness (RMS). */
export function webmLoudnessAt(file: string, from: number, seconds: number): number {
  const pcm = execFileSync('ffmpeg', [
    ...['-v', 'error', '-ss', String(from), '-i', file, '-t', String(seconds)],
    ...['-ac', '1', '-ar', '8000', '-f', 's16le', 'pipe:1'],
  ]);
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2));
  let sum = 0;
  for (const v of samples) sum += v * v;
  return samples.length ? Math.sqrt(sum / samples.length) : 0;
}

/** The length in seconds ffprobe reads from a file on disk. */
export function webmFileDuration(file: string): number {
  return Number(
    execFileSync('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      file,
    ]).toString(),
  );
}
