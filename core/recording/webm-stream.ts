// Reads one recorder's WebM stream piece by piece, handing out each cluster as soon as it is complete, so a stream of
// any length is read holding one piece and one cluster. Chromium's MediaRecorder writes a Segment and Clusters of
// unknown size, so a cluster ends where the next top-level element starts, and an element may span two pieces.
import { type Element, ID, readElement, readUint, readVint, WebmFormatError } from './ebml';

/** Elements a Cluster of unknown size may hold: anything else starts the next top-level element. */
const clusterChildren = new Set<number>([ID.timecode, ID.simpleBlock, ID.blockGroup, 0xa7, 0xab]);

export interface Cluster {
  timecode: number;
  /** Its SimpleBlock and BlockGroup elements, raw (views of the pieces read: copy them to keep them). */
  blocks: Uint8Array[];
  /** The bytes its blocks take. */
  blockBytes: number;
  /** The end of its last block's audio, in the stream's ticks. */
  end: number;
}

/** What the stream says before its audio: written once, from the first recorder's stream, into the file. */
export interface StreamHeader {
  ebmlHeader: Uint8Array;
  tracks: Uint8Array;
  track: number;
  timecodeScale: number;
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

/** The value of the first child of `parent` with `id`, when `parent` holds one. */
function childUint(b: Uint8Array, parent: Element, id: number): number | undefined {
  for (let i = parent.dataStart; i < (parent.end ?? parent.dataStart); ) {
    const child = readElement(b, i);
    if (!child || child.end === undefined) return undefined;
    if (child.id === id) return readUint(b, child.dataStart, child.end);
    i = child.end;
  }
  return undefined;
}

/**
 * One recorder's stream, fed its pieces in order (`push`), then told it ended (`end`). A truncated tail (the piece a
 * lost task never finished) is dropped; a stream that is not WebM is a WebmFormatError.
 */
export class WebmStreamReader {
  private buf: Uint8Array = new Uint8Array(0);
  private pos = 0;
  /** The stream offset of buf[0]. */
  private base = 0;
  private phase: 'ebml' | 'segment' | 'body' | 'done' = 'ebml';
  private ebmlHeader: Uint8Array | undefined;
  private tracks: Uint8Array | undefined;
  private track = 1;
  private timecodeScale = 1_000_000;
  private segmentEnd = Number.POSITIVE_INFINITY;
  private open: { cluster: Cluster; end: number; sized: boolean } | undefined;

  /** The stream's header, once its Tracks were read (before its first cluster in any WebM a recorder writes). */
  get header(): StreamHeader | undefined {
    if (!this.ebmlHeader || !this.tracks) return undefined;
    return {
      ebmlHeader: this.ebmlHeader,
      tracks: this.tracks,
      track: this.track,
      timecodeScale: this.timecodeScale,
    };
  }

  /** Reads the next piece; returns the clusters it completed (with audio). */
  push(piece: Uint8Array): Cluster[] {
    const rest = this.buf.subarray(this.pos);
    this.base += this.pos;
    if (rest.length === 0) this.buf = piece;
    else {
      this.buf = new Uint8Array(rest.length + piece.length);
      this.buf.set(rest);
      this.buf.set(piece, rest.length);
    }
    this.pos = 0;
    const out: Cluster[] = [];
    while (this.phase !== 'done' && this.step(out)) {}
    return out;
  }

  /** The stream ended: returns its last cluster (what of it was complete), and checks it was a WebM stream. */
  end(): Cluster[] {
    if (this.phase === 'ebml') throw new WebmFormatError('not a WebM stream (no EBML header)');
    if (this.phase === 'segment') throw new WebmFormatError('no Segment after the EBML header');
    if (!this.tracks) throw new WebmFormatError('no Tracks in the stream');
    this.phase = 'done';
    this.buf = new Uint8Array(0);
    this.pos = 0;
    return this.closeCluster();
  }

  /** One element read; false when it needs the next piece. */
  private step(out: Cluster[]): boolean {
    const b = this.buf;
    if (this.phase === 'body' && this.base + this.pos >= this.segmentEnd) {
      out.push(...this.closeCluster());
      this.phase = 'done';
      return false;
    }
    const el = readElement(b, this.pos);
    if (!el) return false;
    if (this.phase === 'ebml') {
      if (el.id !== ID.ebml || el.end === undefined)
        throw new WebmFormatError('not a WebM stream (no EBML header)');
      if (el.end > b.length) return false;
      this.ebmlHeader = b.slice(el.start, el.end);
      this.pos = el.end;
      this.phase = 'segment';
      return true;
    }
    if (this.phase === 'segment') {
      if (el.id !== ID.segment) throw new WebmFormatError('no Segment after the EBML header');
      if (el.end !== undefined) this.segmentEnd = this.base + el.end;
      this.pos = el.dataStart;
      this.phase = 'body';
      return true;
    }
    if (this.open) return this.clusterStep(el, out);
    if (el.id === ID.cluster) {
      const end = el.end === undefined ? this.segmentEnd : Math.min(this.base + el.end, this.segmentEnd);
      this.open = {
        cluster: { timecode: 0, blocks: [], blockBytes: 0, end: 0 },
        end,
        sized: el.end !== undefined,
      };
      this.pos = el.dataStart;
      return true;
    }
    if (el.end === undefined) {
      this.phase = 'done'; // an element of unknown size other than a cluster: nothing after it can be read
      return false;
    }
    if (el.end > b.length) return false;
    if (el.id === ID.info) this.timecodeScale = childUint(b, el, ID.timecodeScale) || 1_000_000;
    else if (el.id === ID.tracks) {
      this.tracks = b.slice(el.start, el.end);
      const entry = readElement(b, el.dataStart);
      this.track = (entry && childUint(b, entry, ID.trackNumber)) ?? 1;
    }
    this.pos = el.end;
    return true;
  }

  /** The next element while a cluster is open: one of its children, or what ends it. */
  private clusterStep(child: Element, out: Cluster[]): boolean {
    const open = this.open as NonNullable<typeof this.open>;
    if (this.base + this.pos >= open.end || (!open.sized && !clusterChildren.has(child.id))) {
      out.push(...this.closeCluster());
      return true;
    }
    if (child.end === undefined) {
      this.phase = 'done'; // a child of unknown size: the stream is broken here
      return false;
    }
    const b = this.buf;
    if (child.end > b.length) return false;
    const { cluster } = open;
    if (child.id === ID.timecode) cluster.timecode = readUint(b, child.dataStart, child.end);
    else if (child.id === ID.simpleBlock || child.id === ID.blockGroup) {
      const timing = blockTiming(b, child);
      if (timing) {
        cluster.blocks.push(b.subarray(child.start, child.end));
        cluster.blockBytes += child.end - child.start;
        const endTicks = cluster.timecode + timing.relative + (timing.ms * 1e6) / this.timecodeScale;
        cluster.end = Math.max(cluster.end, endTicks);
      }
    }
    this.pos = child.end;
    return true;
  }

  private closeCluster(): Cluster[] {
    const cluster = this.open?.cluster;
    this.open = undefined;
    return cluster && cluster.blocks.length > 0 ? [cluster] : [];
  }
}
