// The JSON scanner (src/text/json-scan.ts) accepts exactly the texts JSON.parse accepts, finds the
// raw text of every member and element without changing a byte of it, and never recurses. The
// NDJSON it feeds is tested in ndjson.test.ts.
// Inside a property, node's assert: the checks expect makes, without what vitest's expect adds to
// every call (its state, copied each time), paid thousands of times a property.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayElements, documentMembers, JsonSyntaxError, scanDocument } from '../../src/text/json-scan.js';
import { anyString } from '../support/arbitraries.js';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function scans(text: string): boolean {
  try {
    scanDocument(text);
    return true;
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return false;
  }
}

/** JSON in every layout: compact, indented, and with white space (CR, LF, tab) between all tokens. */
const layouts = fc.jsonValue().chain((value) =>
  fc.constantFrom(
    JSON.stringify(value),
    JSON.stringify(value, null, 2),
    JSON.stringify(value, null, '\t').replace(/\n/g, '\r\n'),
    ` \n${JSON.stringify(value, null, 1)}\r\n\t `,
  ),
);

/** A valid text with one character taken out, doubled, or replaced by a JSON-significant one. */
const mutated = fc
  .tuple(fc.json(), fc.nat(), fc.constantFrom('', '"', ',', ':', '[', ']', '{', '}', '\\', '-', '.', 'e', '0', ' ', '\u0001', 'x'), fc.boolean())
  .map(([text, at, ch, insert]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    return insert ? text.slice(0, i) + ch + text.slice(i) : text.slice(0, i) + ch + text.slice(i + 1);
  });

describe('scanDocument accepts exactly what JSON.parse accepts', () => {
  it('any JSON, in any layout', () => {
    fc.assert(
      fc.property(layouts, (text) => {
        assert.equal(scans(text), true);
      }),
      { numRuns: 500 },
    );
  });

  it('valid JSON with one character changed, and arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(mutated, anyString(), fc.string({ unit: 'binary-ascii' })), (text) => {
        assert.equal(scans(text), parses(text));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['', false], [' ', false], ['01', false], ['1.', false], ['.5', false], ['-', false], ['+1', false], ['1e', false],
    ['1e+', false], ['tru', false], ['nul', false], ['True', false], ['"\\x"', false], ['"\\u12"', false], ['"\\u12g4"', false],
    ['"a\u0001"', false], ['"a\nb"', false], ['"a\tb"', false], ['[1,]', false], ['[,1]', false], ['{"a":1,}', false], ['{"a"}', false],
    ['{1:2}', false], ['{"a" 1}', false], ['[', false], [']', false], ['{}}', false], ['1 2', false], ['[1 2]', false], ['"\u007f"', true],
    ['"\\ud800"', true], ['-0', true], ['1.0', true], ['1e400', true], ['1E-400', true], ['12345678901234567890', true], ['"\\/"', true],
    ['"\\u00e9\\u00E9"', true], [' [ 1 , { "a" : [ ] } ] ', true], ['\ufeff{}', false], ['{}\u00a0', false],
  ])('%j: %s', (text, valid) => {
    expect(parses(text)).toBe(valid);
    expect(scans(text)).toBe(valid);
  });

  // A recursive scanner overflows V8's default stack at about ten thousand levels: ten times that
  // shows the scanner keeps no frame a level.
  it('a document nested a hundred thousand deep: no stack overflow, either way', () => {
    const depth = 100_000;
    expect(scans('['.repeat(depth) + ']'.repeat(depth))).toBe(true);
    expect(scans('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))).toBe(true);
    expect(scans('['.repeat(depth) + ']'.repeat(depth - 1))).toBe(false);
  });

  it('says where the text stops being JSON', () => {
    expect(() => scanDocument('{"a":[1,2,}')).toThrow(/position 10/);
    expect(() => scanDocument('[1,2')).toThrow(/unexpected end of JSON/);
  });
});

describe('spans: the raw text of each value, unchanged', () => {
  it('documentMembers gives every member of an object in order, each value parsing to what JSON.parse gives', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom(0, 2), (object, indent) => {
        const text = JSON.stringify(object, null, indent);
        const seen: Array<[string, unknown]> = [];
        const members = documentMembers(text);
        let step = members.next();
        for (; !step.done; step = members.next()) seen.push([step.value.key, JSON.parse(text.slice(step.value.value.start, step.value.value.end))]);
        assert.equal(step.value, 'object');
        expect(seen).toEqual(Object.entries(JSON.parse(text) as object));
      }),
    );
  });

  it('documentMembers: keys with escapes are decoded; a body that is not an object yields nothing and says what it is', () => {
    const [member] = [...documentMembers('{"p\\u0061ges":[1]}')];
    expect(member?.key).toBe('pages');
    for (const [text, kind] of [['[1]', 'array'], ['"x"', 'string'], ['3', 'number'], ['null', 'null']] as const) {
      const members = documentMembers(text);
      expect(members.next()).toEqual({ done: true, value: kind });
    }
    expect(() => [...documentMembers('{"a":1} x')]).toThrow(JsonSyntaxError);
  });

  it('arrayElements: each element exactly as written (numbers, escapes, white space inside), and the count', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.constantFrom(0, 2, '\t'), (array, indent) => {
        const text = JSON.stringify(array, null, indent);
        const span = scanDocument(text);
        assert.equal(span.count, array.length);
        const elements = [...arrayElements(text, span)];
        expect(elements.map((e) => JSON.parse(text.slice(e.start, e.end)) as unknown)).toEqual(JSON.parse(text));
        // Nothing outside an element, but separators and white space, is left out.
        const outside = elements.reduce((rest, e) => rest.replace(text.slice(e.start, e.end), ''), text.slice(span.start + 1, span.end - 1));
        assert.match(outside, /^[\s,]*$/);
      }),
    );
  });

  it('numbers and escapes that a parse and stringify would change come out as they were sent', () => {
    const raw = ['12345678901234567890', '1.0', '1e-400', '1e400', '-0', '0.10', '{"a":"\\u00e9\\/x","b":-0.0E+00}', '"\\ud83d\\ude00"'];
    const text = `[ ${raw.join(' ,\n ')} ]`;
    const span = scanDocument(text);
    expect([...arrayElements(text, span)].map((e) => text.slice(e.start, e.end))).toEqual(raw);
  });
});

