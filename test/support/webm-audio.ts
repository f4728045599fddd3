// Test helper: Opus/WebM audio made and read with ffmpeg and ffprobe, so a recording is checked as a player decodes it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  return withFile(bytes, (file) =>
    Number(
      execFileSync('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'format=duration',
        '-of',
        'csv=p=0',
        file,
      ]).toString(),
    ),
  );
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
