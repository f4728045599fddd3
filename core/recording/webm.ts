// One playable WebM file from the recorders' pieces: each task of a session (the first bot, then any replacement)
// ran its own MediaRecorder, whose pieces concatenated are one WebM stream with its own header and timestamps from
// zero. This remux keeps the first stream's header and track, moves every later stream's clusters to where that
// recorder started on the meeting's clock (the time between is a gap: no audio, players go on past it), and writes
// one Segment of known size with its Duration, a SeekHead and Cues, so players show the length and can seek.
// Matroska/EBML: https://www.matroska.org/technical/elements.html (Chromium writes SimpleBlocks in Clusters of
// unknown size, which is why clusters are read until the next top-level element).

const ID = {
  ebml: 0x1a45dfa3,
  segment: 0x18538067,
  seekHead: 0x114d9b74,
  seek: 0x4dbb,
  seekId: 0x53ab,
  seekPosition: 0x53ac,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  muxingApp: 0x4d80,
  writingApp: 0x5741,
  tracks: 0x1654ae6b,
  cluster: 0x1f43b675,
  timecode: 0xe7,
  simpleBlock: 0xa3,
  blockGroup: 0xa0,
  block: 0xa1,
  cues: 0x1c53bb6b,
  cuePoint: 0xbb,
  cueTime: 0xb3,
  cueTrackPositions: 0xb7,
  cueTrack: 0xf7,
  cueClusterPosition: 0xf1,
} as const;

const clusterChildren = new Set<number>([ID.timecode, ID.simpleBlock, ID.blockGroup, 0xa7, 0xab]);

/** One recorder's stream: its bytes (its pieces in order) and when it started on the wall clock. */
export interface RecorderStream {
  startedAtMs: number;
  bytes: Uint8Array;
}

export interface AssembledRecording {
  bytes: Uint8Array;
  durationSeconds: number;
  /** Gaps between one recorder's last audio and the next recorder's first (a replacement's join), in seconds. */
  gaps: { atSeconds: number; seconds: number }[];
}

export class WebmFormatError extends Error {}

interface Cluster {
  timecode: number;
  /** Its SimpleBlock and BlockGroup elements, raw. */
  blocks: Uint8Array[];
  /** The end of its last block's audio, in the stream's ticks. */
  end: number;
}

interface ParsedStream {
  ebmlHeader: Uint8Array;
  tracks: Uint8Array;
  track: number;
  timecodeScale: number;
  clusters: Cluster[];
}

/** Reads an element id (its marker bit kept), or undefined past the end. */
function readId(b: Uint8Array, at: number): { id: number; len: number } | undefined {
  if (at >= b.length) return undefined;
  const first = b[at] ?? 0;
  const len = first >= 0x80 ? 1 : first >= 0x40 ? 2 : first >= 0x20 ? 3 : first >= 0x10 ? 4 : 0;
  if (len === 0) throw new WebmFormatError(`bad element id at byte ${at}`);
  if (at + len > b.length) return undefined;
  let id = 0;
  for (let i = 0; i < len; i++) id = id * 256 + (b[at + i] ?? 0);
  return { id, len };
}

/** Reads a variable-size integer (marker removed); `unknown` when all its value bits are ones. */
function readVint(b: Uint8Array, at: number): { value: number; len: number; unknown: boolean } | undefined {
  if (at >= b.length) return undefined;
  const first = b[at] ?? 0;
  let len = 1;
  while (len <= 8 && (first & (0x80 >> (len - 1))) === 0) len++;
  if (len > 8) throw new WebmFormatError(`bad size at byte ${at}`);
  if (at + len > b.length) return undefined;
  let value = first & (0xff >> len);
  let allOnes = value === 0xff >> len;
  for (let i = 1; i < len; i++) {
    const byte = b[at + i] ?? 0;
    value = value * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  return { value, len, unknown: allOnes };
}

interface Element {
  id: number;
  start: number;
  dataStart: number;
  /** The end of its data, or undefined when its size is unknown. */
  end: number | undefined;
}

function readElement(b: Uint8Array, at: number): Element | undefined {
  const id = readId(b, at);
  if (!id) return undefined;
  const size = readVint(b, at + id.len);
  if (!size) return undefined;
  const dataStart = at + id.len + size.len;
  return { id: id.id, start: at, dataStart, end: size.unknown ? undefined : dataStart + size.value };
}

function readUint(b: Uint8Array, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) v = v * 256 + (b[i] ?? 0);
  return v;
}

/** Milliseconds of audio in one Opus packet, from its TOC byte (RFC 6716, section 3.1). */
export function opusPacketMs(packet: Uint8Array): number {
  const toc = packet[0];
  if (toc === undefined) return 0;
  const config = toc >> 3;
  const frameMs =
    config < 12
      ? [10, 20, 40, 60][config % 4]
      : config < 16
        ? [10, 20][config % 2]
        : [2.5, 5, 10, 20][config % 4];
  const code = toc & 3;
  const frames = code === 0 ? 1 : code === 3 ? (packet[1] ?? 0) & 0x3f : 2;
  return (frameMs ?? 20) * frames;
}

/** A block's timecode relative to its cluster and the audio it carries, in ms (unlaced blocks; else 20 ms). */
function blockTiming(b: Uint8Array, el: Element): { relative: number; ms: number } | undefined {
  let at = el.dataStart;
  const end = el.end ?? b.length;
  if (el.id === ID.blockGroup) {
    const inner = readElement(b, at);
    if (!inner || inner.id !== ID.block) return undefined;
    at = inner.dataStart;
  }
  const track = readVint(b, at);
  if (!track) return undefined;
  at += track.len;
  const raw = ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
  const relative = raw >= 0x8000 ? raw - 0x10000 : raw;
  const flags = b[at + 2] ?? 0;
  const laced = (flags & 0x06) !== 0;
  return { relative, ms: laced ? 20 : opusPacketMs(b.subarray(at + 3, end)) };
}

/** Parses one recorder's stream; a truncated tail (the piece a lost task never finished) is dropped. */
export function parseStream(b: Uint8Array): ParsedStream {
  const header = readElement(b, 0);
  if (!header || header.id !== ID.ebml || header.end === undefined || header.end > b.length)
    throw new WebmFormatError('not a WebM stream (no EBML header)');
  const segment = readElement(b, header.end);
  if (!segment || segment.id !== ID.segment) throw new WebmFormatError('no Segment after the EBML header');
  const segmentEnd = Math.min(segment.end ?? b.length, b.length);
  let timecodeScale = 1_000_000;
  let tracks: Uint8Array | undefined;
  let track = 1;
  const clusters: Cluster[] = [];
  let at = segment.dataStart;
  while (at < segmentEnd) {
    const el = readElement(b, at);
    if (!el) break;
    if (el.id === ID.cluster) {
      const cluster: Cluster = { timecode: 0, blocks: [], end: 0 };
      const limit = Math.min(el.end ?? segmentEnd, segmentEnd);
      let c = el.dataStart;
      while (c < limit) {
        const child = readElement(b, c);
        if (!child || (el.end === undefined && !clusterChildren.has(child.id))) break;
        if (child.end === undefined || child.end > b.length) {
          c = b.length; // truncated: the stream ends here
          break;
        }
        if (child.id === ID.timecode) cluster.timecode = readUint(b, child.dataStart, child.end);
        else if (child.id === ID.simpleBlock || child.id === ID.blockGroup) {
          const timing = blockTiming(b, child);
          if (timing) {
            cluster.blocks.push(b.slice(child.start, child.end));
            const endTicks = cluster.timecode + timing.relative + (timing.ms * 1e6) / timecodeScale;
            cluster.end = Math.max(cluster.end, endTicks);
          }
        }
        c = child.end;
      }
      if (cluster.blocks.length > 0) clusters.push(cluster);
      at = c;
      continue;
    }
    if (el.end === undefined || el.end > b.length) break;
    if (el.id === ID.info) {
      let i = el.dataStart;
      while (i < el.end) {
        const child = readElement(b, i);
        if (!child || child.end === undefined) break;
        if (child.id === ID.timecodeScale)
          timecodeScale = readUint(b, child.dataStart, child.end) || 1_000_000;
        i = child.end;
      }
    } else if (el.id === ID.tracks) {
      tracks = b.slice(el.start, el.end);
      track = firstTrackNumber(b, el) ?? 1;
    }
    at = el.end;
  }
  if (!tracks) throw new WebmFormatError('no Tracks in the stream');
  return { ebmlHeader: b.slice(0, header.end), tracks, track, timecodeScale, clusters };
}

function firstTrackNumber(b: Uint8Array, tracks: Element): number | undefined {
  const entry = readElement(b, tracks.dataStart);
  if (!entry || entry.end === undefined) return undefined;
  let i = entry.dataStart;
  while (i < entry.end) {
    const child = readElement(b, i);
    if (!child || child.end === undefined) return undefined;
    if (child.id === 0xd7) return readUint(b, child.dataStart, child.end);
    i = child.end;
  }
  return undefined;
}

// ---- writing

function idBytes(id: number): number[] {
  const out: number[] = [];
  for (let v = id; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return out;
}

function sizeBytes(n: number): number[] {
  let len = 1;
  while (n >= 2 ** (7 * len) - 1) len++;
  const out: number[] = [];
  let v = n;
  for (let i = 0; i < len; i++) {
    out.unshift(v % 256);
    v = Math.floor(v / 256);
  }
  out[0] = (out[0] ?? 0) | (0x80 >> (len - 1));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function element(id: number, ...payload: Uint8Array[]): Uint8Array {
  const body = concat(payload);
  return concat([Uint8Array.from([...idBytes(id), ...sizeBytes(body.length)]), body]);
}

function uint(id: number, value: number, width?: number): Uint8Array {
  const bytes: number[] = [];
  for (let v = Math.round(value); v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  while (bytes.length < (width ?? 1)) bytes.unshift(0);
  return element(id, Uint8Array.from(bytes));
}

function float64(id: number, value: number): Uint8Array {
  const body = new Uint8Array(8);
  new DataView(body.buffer).setFloat64(0, value);
  return element(id, body);
}

const text = (id: number, s: string) => element(id, new TextEncoder().encode(s));

/**
 * Assembles the streams (in the order their tasks ran) into one file. A stream with no audio is skipped; none with
 * audio is a WebmFormatError (nothing to deliver).
 */
export function assembleRecording(streams: RecorderStream[]): AssembledRecording {
  const parsed = streams
    .map((s) => ({ ...s, stream: parseStream(s.bytes) }))
    .filter((s) => s.stream.clusters.length > 0);
  const first = parsed[0];
  if (!first) throw new WebmFormatError('no audio in any piece');
  const scale = first.stream.timecodeScale;
  const msToTicks = (ms: number) => (ms * 1e6) / scale;
  const clusters: Uint8Array[] = [];
  const cueTimes: number[] = [];
  const gaps: AssembledRecording['gaps'] = [];
  let end = 0;
  for (const { startedAtMs, stream } of parsed) {
    const factor = stream.timecodeScale / scale;
    const firstTc = (stream.clusters[0]?.timecode ?? 0) * factor;
    // Where this recorder's audio goes: where it started on the meeting's clock, never before the audio so far
    // (the machines' clocks may disagree by a little).
    let offset = Math.max(msToTicks(startedAtMs - first.startedAtMs), 0);
    if (stream !== first.stream) {
      offset = Math.max(offset, end - firstTc);
      const gapTicks = offset + firstTc - end;
      if (gapTicks > msToTicks(1))
        gaps.push({ atSeconds: (end * scale) / 1e9, seconds: (gapTicks * scale) / 1e9 });
    }
    for (const cluster of stream.clusters) {
      const timecode = Math.round(cluster.timecode * factor + offset);
      cueTimes.push(timecode);
      clusters.push(element(ID.cluster, uint(ID.timecode, timecode), ...cluster.blocks));
      end = Math.max(end, cluster.end * factor + offset);
    }
  }
  const info = element(
    ID.info,
    uint(ID.timecodeScale, scale),
    text(ID.muxingApp, 'meeting-bot'),
    text(ID.writingApp, 'meeting-bot'),
    float64(ID.duration, end),
  );
  const { tracks } = first.stream;
  // Positions are relative to the Segment's data; the SeekHead's positions are fixed-width so its size is known first.
  const seekEntry = (id: number, position: number) =>
    element(ID.seek, element(ID.seekId, Uint8Array.from(idBytes(id))), uint(ID.seekPosition, position, 8));
  const seekHeadSize = element(
    ID.seekHead,
    seekEntry(ID.info, 0),
    seekEntry(ID.tracks, 0),
    seekEntry(ID.cues, 0),
  ).length;
  const infoAt = seekHeadSize;
  const tracksAt = infoAt + info.length;
  let clusterAt = tracksAt + tracks.length;
  const cuePoints: Uint8Array[] = [];
  clusters.forEach((cluster, i) => {
    cuePoints.push(
      element(
        ID.cuePoint,
        uint(ID.cueTime, cueTimes[i] ?? 0),
        element(
          ID.cueTrackPositions,
          uint(ID.cueTrack, first.stream.track),
          uint(ID.cueClusterPosition, clusterAt),
        ),
      ),
    );
    clusterAt += cluster.length;
  });
  const cues = element(ID.cues, ...cuePoints);
  const seekHead = element(
    ID.seekHead,
    seekEntry(ID.info, infoAt),
    seekEntry(ID.tracks, tracksAt),
    seekEntry(ID.cues, clusterAt),
  );
  const segment = element(ID.segment, seekHead, info, tracks, ...clusters, cues);
  return {
    bytes: concat([first.stream.ebmlHeader, segment]),
    durationSeconds: Math.round(((end * scale) / 1e9) * 1000) / 1000,
    gaps,
  };
}
