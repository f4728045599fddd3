// Large text in an item: DynamoDB caps an item at 400 KB, and a long meeting's transcript (or the e-mail that
// carries it) can pass that. Text above `packAboveBytes` is stored Brotli-compressed as a binary attribute of the
// same name (meeting text compresses about 4-6x), so a 4-hour meeting fits in one item with room to spare.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** Below this size text stays a plain string (readable in the console, no CPU spent). */
export const packAboveBytes = 8 * 1024;

/** The value to store for `text`: the text itself, or its Brotli compression when large. */
export function packText(text: string): string | Uint8Array {
  return Buffer.byteLength(text, 'utf8') <= packAboveBytes ? text : compress(text);
}

function compress(text: string): Uint8Array {
  return brotliCompressSync(text, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      // Quality 5: most of the ratio of 11 at a small fraction of its CPU.
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  });
}

/** The text of a stored value: a string as is, a binary value decompressed; anything else is undefined. */
export function unpackText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return brotliDecompressSync(value).toString('utf8');
  return undefined;
}

/** A JSON value packed the same way (stored as its JSON text when large, otherwise as is). */
export function packJson<T>(value: T): T | Uint8Array {
  const json = JSON.stringify(value);
  return json !== undefined && Buffer.byteLength(json, 'utf8') > packAboveBytes ? compress(json) : value;
}

export function unpackJson<T>(value: unknown): T {
  return (value instanceof Uint8Array ? JSON.parse(unpackText(value)!) : value) as T;
}
