// ndjsonChunks: the elements of a JSON array as NDJSON lines, each as it was sent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayElements, oneLine, scanDocument, type JsonSpan } from '../../src/text/json-scan.js';
import { ndjsonChunks } from '../../src/text/ndjson.js';

describe('ndjsonChunks: the elements of an array as NDJSON lines', () => {
  const lines = (text: string, span: JsonSpan, max?: number, size?: number): { out: string; counts: number[]; sizes: number[] } => {
    const chunks = [...ndjsonChunks(text, span, max, size)];
    return { out: chunks.map((c) => c.bytes.toString('utf8')).join(''), counts: chunks.map((c) => c.count), sizes: chunks.map((c) => c.bytes.length) };
  };

  it('each element on its own line, with only its line breaks taken out, whatever the chunk size', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 30 }), fc.constantFrom(0, 2), fc.integer({ min: 1, max: 300 }), (array, indent, size) => {
        const text = JSON.stringify(array, null, indent);
        const span = scanDocument(text);
        const { out, counts, sizes } = lines(text, span, Infinity, size);
        const expected = [...arrayElements(text, span)].map((e) => text.slice(e.start, e.end).replace(/[\r\n]/g, '') + '\n').join('');
        expect(out).toBe(expected);
        expect(counts.reduce((a, b) => a + b, 0)).toBe(array.length);
        // A chunk holds whole lines and goes over the size only for a single line longer than it.
        for (const [i, bytes] of sizes.entries()) if (bytes > size) expect(counts[i]).toBe(1);
      }),
    );
  });

  it('multi-byte characters are encoded whole, and `max` stops early', () => {
    const text = '["é€😀", {"k": "ß"}, 3, 4]';
    const span = scanDocument(text);
    expect(lines(text, span, Infinity, 4).out).toBe('"é€😀"\n{"k": "ß"}\n3\n4\n');
    expect(lines(text, span, 2).out).toBe('"é€😀"\n{"k": "ß"}\n');
    expect(lines(text, span, 0).out).toBe('');
  });

  it('oneLine takes out CR and LF only', () => {
    expect(oneLine('{\r\n  "a": [1,\n\t2]\n}')).toBe('{  "a": [1,\t2]}');
    expect(oneLine('"no breaks"')).toBe('"no breaks"');
  });
});
