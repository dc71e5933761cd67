// The elements of a checked JSON array as NDJSON bytes, each element's text as it was sent.
import { Buffer } from 'node:buffer';
import { arrayElements, oneLine, type JsonSpan } from './json-scan.js';

export interface LinesChunk {
  /** Whole lines, each ending in "\n". */
  bytes: Buffer;
  /** How many lines. */
  count: number;
}

/** About this many bytes a chunk: big enough for few writes, small enough to stay flat in memory. */
export const CHUNK_BYTES = 128 * 1024;

/**
 * The first `max` elements of `array` (a span the scanner checked) as NDJSON, in chunks of whole
 * lines. Each line is the element's raw text, its line breaks taken out (oneLine); it is encoded
 * straight into the chunk, so no string of the whole batch is ever built. An element longer than
 * a chunk gets a chunk of its own.
 */
export function* ndjsonChunks(text: string, array: JsonSpan, max = Infinity, size = CHUNK_BYTES): Generator<LinesChunk, void, undefined> {
  // One look for a line break in the whole array, rather than two per element.
  const breaks = hasLineBreak(text, array);
  let bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  let count = 0;
  let total = 0;
  for (const element of arrayElements(text, array)) {
    if (total >= max) break;
    const raw = text.slice(element.start, element.end);
    const line = breaks ? oneLine(raw) : raw;
    // A UTF-16 unit never takes more than 3 bytes of UTF-8: only near the end is the exact size needed.
    if (offset + line.length * 3 + 1 > bytes.length) {
      const need = Buffer.byteLength(line) + 1;
      if (offset + need > bytes.length) {
        if (count > 0) yield { bytes: bytes.subarray(0, offset), count };
        bytes = Buffer.allocUnsafe(Math.max(size, need));
        offset = 0;
        count = 0;
      }
    }
    offset += bytes.write(line, offset);
    bytes[offset++] = 0x0a;
    count++;
    total++;
  }
  if (count > 0) yield { bytes: bytes.subarray(0, offset), count };
}

function hasLineBreak(text: string, span: JsonSpan): boolean {
  const lf = text.indexOf('\n', span.start);
  if (lf !== -1 && lf < span.end) return true;
  const cr = text.indexOf('\r', span.start);
  return cr !== -1 && cr < span.end;
}
