// One playable WebM file from the recorders' pieces: each task of a session (the first bot, then any replacement)
// ran its own MediaRecorder, whose pieces concatenated are one WebM stream with its own header and timestamps from
// zero. This remux keeps the first stream's header and track, moves every later stream's clusters to where that
// recorder started on the meeting's clock (the time between is a gap: no audio, players go on past it), and writes
// one Segment of known size with its Duration, a SeekHead and Cues, so players show the length and can seek.
// Those come before the audio in the file but are known only once all of it was read, so the pieces are read twice:
// once to plan (each cluster's place and size; nothing of the audio kept), once to write the file as it streams out.
// Memory is one piece per stream being read and one cluster, plus the cue index (a few bytes per cluster).
import { concat, element, elementHead, float64, ID, idBytes, text, uint, WebmFormatError } from './ebml';
import { type Cluster, type StreamHeader, WebmStreamReader } from './webm-stream';

export { WebmFormatError } from './ebml';

/** One piece of a recorder's stream, and when that recorder started on the wall clock (ms since the epoch). */
export interface RecorderPiece {
  startedAtMs: number;
  bytes: Uint8Array;
}

/** One recorder's stream: its pieces in order, read afresh each time it is asked (the assembly asks twice). */
export interface RecorderSource {
  pieces(): AsyncIterable<RecorderPiece>;
}

export interface RecordingPlan {
  durationSeconds: number;
  sizeBytes: number;
  /** Gaps between one recorder's last audio and the next recorder's first (a replacement's join), in seconds. */
  gaps: { atSeconds: number; seconds: number }[];
  /** The file's bytes in order: its header, each cluster as its stream is read again, the cues. */
  body(): AsyncIterable<Uint8Array>;
}

/** A stream with audio, and where its clusters go in the file. */
interface PlacedStream {
  source: RecorderSource;
  /** Its ticks in the file's ticks. */
  factor: number;
  /** Where its time zero is on the file's clock, in the file's ticks. */
  offset: number;
  clusters: number;
}

const timecodeElement = (timecode: number) => uint(ID.timecode, timecode);

function clusterSize(timecode: number, blockBytes: number): number {
  const body = timecodeElement(timecode).length + blockBytes;
  return elementHead(ID.cluster, body).length + body;
}

function clusterBytes(timecode: number, cluster: Cluster): Uint8Array {
  const tc = timecodeElement(timecode);
  return concat([elementHead(ID.cluster, tc.length + cluster.blockBytes), tc, ...cluster.blocks]);
}

/**
 * Plans the file from the streams (in the order their tasks ran): reads every piece once. A stream with no audio is
 * skipped; none with audio is a WebmFormatError (nothing to deliver).
 */
export async function planRecording(sources: RecorderSource[]): Promise<RecordingPlan> {
  let first: { header: StreamHeader; startedAtMs: number } | undefined;
  const placed: PlacedStream[] = [];
  const cueTimes: number[] = [];
  const clusterSizes: number[] = [];
  const gaps: RecordingPlan['gaps'] = [];
  let end = 0;
  for (const source of sources) {
    const reader = new WebmStreamReader();
    let startedAtMs: number | undefined;
    let stream: PlacedStream | undefined;
    const place = (cluster: Cluster) => {
      const header = reader.header;
      if (!header) throw new WebmFormatError('audio before the Tracks in the stream');
      if (!stream) {
        first ??= { header, startedAtMs: startedAtMs ?? 0 };
        const scale = first.header.timecodeScale;
        const msToTicks = (ms: number) => (ms * 1e6) / scale;
        const factor = header.timecodeScale / scale;
        const firstTc = cluster.timecode * factor;
        // Where this recorder's audio goes: where it started on the meeting's clock, never before the audio so far
        // (the machines' clocks may disagree by a little).
        let offset = Math.max(msToTicks((startedAtMs ?? 0) - first.startedAtMs), 0);
        if (placed.length > 0) {
          offset = Math.max(offset, end - firstTc);
          const gapTicks = offset + firstTc - end;
          if (gapTicks > msToTicks(1))
            gaps.push({ atSeconds: (end * scale) / 1e9, seconds: (gapTicks * scale) / 1e9 });
        }
        stream = { source, factor, offset, clusters: 0 };
        placed.push(stream);
      }
      const timecode = Math.round(cluster.timecode * stream.factor + stream.offset);
      cueTimes.push(timecode);
      clusterSizes.push(clusterSize(timecode, cluster.blockBytes));
      end = Math.max(end, cluster.end * stream.factor + stream.offset);
      stream.clusters++;
    };
    for await (const piece of source.pieces()) {
      startedAtMs ??= piece.startedAtMs;
      for (const cluster of reader.push(piece.bytes)) place(cluster);
    }
    for (const cluster of reader.end()) place(cluster);
  }
  if (!first) throw new WebmFormatError('no audio in any piece');
  const { header } = first;
  const scale = header.timecodeScale;
  const info = element(
    ID.info,
    uint(ID.timecodeScale, scale),
    text(ID.muxingApp, 'meeting-bot'),
    text(ID.writingApp, 'meeting-bot'),
    float64(ID.duration, end),
  );
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
  let clusterAt = tracksAt + header.tracks.length;
  // One buffer for every cue point (~20 bytes each; 4 hours is ~16,000 clusters), not an array of small ones.
  const cuePoints = new GrowingBytes();
  clusterSizes.forEach((size, i) => {
    cuePoints.add(
      element(
        ID.cuePoint,
        uint(ID.cueTime, cueTimes[i] ?? 0),
        element(
          ID.cueTrackPositions,
          uint(ID.cueTrack, header.track),
          uint(ID.cueClusterPosition, clusterAt),
        ),
      ),
    );
    clusterAt += size;
  });
  const cues = element(ID.cues, cuePoints.bytes());
  const seekHead = element(
    ID.seekHead,
    seekEntry(ID.info, infoAt),
    seekEntry(ID.tracks, tracksAt),
    seekEntry(ID.cues, clusterAt),
  );
  // clusterAt is now the Segment's data up to the Cues.
  const segmentHead = elementHead(ID.segment, clusterAt + cues.length);
  const head = concat([header.ebmlHeader, segmentHead, seekHead, info, header.tracks]);
  return {
    durationSeconds: Math.round(((end * scale) / 1e9) * 1000) / 1000,
    sizeBytes: header.ebmlHeader.length + segmentHead.length + clusterAt + cues.length,
    gaps,
    body: () => writeFile(head, placed, cueTimes, clusterSizes, cues),
  };
}

/** Bytes appended to one buffer that doubles when full. */
class GrowingBytes {
  private buf = new Uint8Array(4096);
  private length = 0;
  add(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.buf.length) {
      const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.length + bytes.length));
      bigger.set(this.buf.subarray(0, this.length));
      this.buf = bigger;
    }
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** The second reading: the file as planned, or an error when a piece is not what it was when planned. */
async function* writeFile(
  head: Uint8Array,
  placed: PlacedStream[],
  cueTimes: number[],
  clusterSizes: number[],
  cues: Uint8Array,
): AsyncIterable<Uint8Array> {
  yield head;
  let i = 0;
  for (const stream of placed) {
    const reader = new WebmStreamReader();
    let n = 0;
    const write = (cluster: Cluster) => {
      const bytes = clusterBytes(cueTimes[i] ?? 0, cluster);
      if (n >= stream.clusters || bytes.length !== clusterSizes[i])
        throw new Error('a piece of the recording changed while it was being assembled');
      i++;
      n++;
      return bytes;
    };
    for await (const piece of stream.source.pieces())
      for (const cluster of reader.push(piece.bytes)) yield write(cluster);
    for (const cluster of reader.end()) yield write(cluster);
    if (n !== stream.clusters)
      throw new Error('a piece of the recording changed while it was being assembled');
  }
  yield cues;
}
