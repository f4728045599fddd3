// EBML, the binary format under Matroska/WebM: the element ids a recording uses, reading an element's id and size,
// and writing elements. https://www.matroska.org/technical/elements.html, RFC 8794.

export const ID = {
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
  trackNumber: 0xd7,
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

export class WebmFormatError extends Error {}

/** Reads an element id (its marker bit kept), or undefined past the end. */
function readId(b: Uint8Array, at: number): { id: number; len: number } | undefined {
  if (at >= b.length) return undefined;
  const first = b[at] ?? 0;
  const len = first >= 0x80 ? 1 : first >= 0x40 ? 2 : first >= 0x20 ? 3 : first >= 0x10 ? 4 : 0;
  if (len === 0) throw new WebmFormatError(`bad element id at byte ${at}`);
  if (at + len > b.length) return undefined;
  return { id: readUint(b, at, at + len), len };
}

/** Reads a variable-size integer (marker removed); `unknown` when all its value bits are ones. */
export function readVint(
  b: Uint8Array,
  at: number,
): { value: number; len: number; unknown: boolean } | undefined {
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

export interface Element {
  id: number;
  start: number;
  dataStart: number;
  /** The end of its data, or undefined when its size is unknown. */
  end: number | undefined;
}

/** The element at `at`, or undefined when its id and size are not all there yet. */
export function readElement(b: Uint8Array, at: number): Element | undefined {
  const id = readId(b, at);
  if (!id) return undefined;
  const size = readVint(b, at + id.len);
  if (!size) return undefined;
  const dataStart = at + id.len + size.len;
  return { id: id.id, start: at, dataStart, end: size.unknown ? undefined : dataStart + size.value };
}

export function readUint(b: Uint8Array, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) v = v * 256 + (b[i] ?? 0);
  return v;
}

// ---- writing

/** An id's (or any whole number's) big-endian bytes, none for 0. */
export function idBytes(id: number): number[] {
  const out: number[] = [];
  for (let v = id; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return out;
}

function sizeBytes(n: number): number[] {
  let len = 1;
  while (n >= 2 ** (7 * len) - 1) len++;
  const out = idBytes(n);
  while (out.length < len) out.unshift(0);
  out[0] = (out[0] ?? 0) | (0x80 >> (len - 1));
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An element's id and size, for a body of `bodyLength` bytes written after it. */
export function elementHead(id: number, bodyLength: number): Uint8Array {
  return Uint8Array.from([...idBytes(id), ...sizeBytes(bodyLength)]);
}

export function element(id: number, ...payload: Uint8Array[]): Uint8Array {
  const body = concat(payload);
  return concat([elementHead(id, body.length), body]);
}

export function uint(id: number, value: number, width?: number): Uint8Array {
  const bytes = idBytes(Math.round(value));
  while (bytes.length < (width ?? 1)) bytes.unshift(0);
  return element(id, Uint8Array.from(bytes));
}

export function float64(id: number, value: number): Uint8Array {
  const body = new Uint8Array(8);
  new DataView(body.buffer).setFloat64(0, value);
  return element(id, body);
}

export const text = (id: number, s: string) => element(id, new TextEncoder().encode(s));
