// A validating JSON scanner that finds where values lie in the text without building them.
//
// `job pages` passes records through as the service sent them: a record parsed into objects and
// written again with JSON.stringify loses digits beyond 2^53, turns 1.0 into 1 and 1e400 into
// null, and rewrites escapes. So records are never parsed: the body is checked against the JSON
// grammar (the same bodies JSON.parse accepts are accepted), and each record is copied out as the
// slice of text it was. Iterative, with an explicit stack, so a body nested a million deep costs
// memory in proportion and never the call stack; one pass, linear in the text.

/** What a value is, told by its first character. */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'true' | 'false' | 'null';

/** Where a value lies: `text.slice(start, end)` is its raw form, without surrounding white space. */
export interface JsonSpan {
  start: number;
  end: number;
  kind: JsonKind;
  /** For an array, its number of elements (scanValue and documentMembers count them as they pass). */
  count?: number;
}

export interface JsonMember {
  /** The key as JSON.parse would give it (escapes decoded). */
  key: string;
  value: JsonSpan;
}

/** The text is not JSON; `position` is the index of the first character that cannot be. */
export class JsonSyntaxError extends Error {
  readonly position: number;

  constructor(message: string, position: number) {
    super(`${message} at position ${position}`);
    this.name = 'JsonSyntaxError';
    this.position = position;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const IN_OBJECT = 0;
const IN_ARRAY = 1;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

export function skipWhitespace(text: string, at: number): number {
  let i = at;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

function fail(text: string, at: number, expected: string): never {
  if (at >= text.length) throw new JsonSyntaxError(`unexpected end of JSON, expected ${expected}`, at);
  throw new JsonSyntaxError(`unexpected character ${JSON.stringify(text.charAt(at))}, expected ${expected}`, at);
}

/** The index just past the string whose opening quote is at `at`. */
function scanString(text: string, at: number): number {
  const n = text.length;
  let i = at + 1;
  for (;;) {
    if (i >= n) throw new JsonSyntaxError('unterminated string', at);
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      const e = text.charCodeAt(i + 1);
      if (e === 0x75 /* u */) {
        for (let k = 2; k < 6; k++) if (!isHex(text.charCodeAt(i + k))) throw new JsonSyntaxError('invalid \\u escape', i);
        i += 6;
      } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
      } else {
        throw new JsonSyntaxError('invalid escape', i);
      }
    } else if (c < 0x20) {
      throw new JsonSyntaxError('control character in a string', i);
    } else {
      i++;
    }
  }
}

/** The index just past the number that starts at `at`: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
function scanNumber(text: string, at: number): number {
  let i = at;
  if (text.charCodeAt(i) === MINUS) i++;
  const first = text.charCodeAt(i);
  if (first === ZERO) i++;
  else if (isDigit(first)) while (isDigit(text.charCodeAt(i))) i++;
  else fail(text, i, 'a digit');
  if (text.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(text.charCodeAt(i))) fail(text, i, 'a digit after the decimal point');
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === PLUS || sign === MINUS) i++;
    if (!isDigit(text.charCodeAt(i))) fail(text, i, 'a digit in the exponent');
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

function scanLiteral(text: string, at: number, word: string): number {
  if (!text.startsWith(word, at)) fail(text, at, 'a JSON value');
  return at + word.length;
}

export function kindAt(text: string, at: number): JsonKind | undefined {
  const c = text.charCodeAt(at);
  if (c === OPEN_BRACE) return 'object';
  if (c === OPEN_BRACKET) return 'array';
  if (c === QUOTE) return 'string';
  if (c === MINUS || isDigit(c)) return 'number';
  if (c === 0x74) return 'true';
  if (c === 0x66) return 'false';
  if (c === 0x6e) return 'null';
  return undefined;
}

/** After `{` or `,` in an object: a key, a colon, and the index where the member's value starts. */
function scanKey(text: string, at: number): number {
  const i = skipWhitespace(text, at);
  if (text.charCodeAt(i) !== QUOTE) fail(text, i, 'a string key');
  const afterKey = skipWhitespace(text, scanString(text, i));
  if (text.charCodeAt(afterKey) !== COLON) fail(text, afterKey, '":"');
  return skipWhitespace(text, afterKey + 1);
}

/**
 * Checks the value that starts at `at` (white space before it is skipped) and returns its span.
 * Throws JsonSyntaxError where the text stops being JSON.
 */
export function scanValue(text: string, at: number): JsonSpan {
  const start = skipWhitespace(text, at);
  const kind = kindAt(text, start);
  if (kind === undefined) fail(text, start, 'a JSON value');
  // Open containers, innermost last.
  const stack: number[] = [];
  // Elements of the outermost value, when it is an array.
  let count = 0;
  let i = start;
  for (;;) {
    // Here a value starts at i.
    const c = text.charCodeAt(i);
    if (c === OPEN_BRACE) {
      i = skipWhitespace(text, i + 1);
      if (text.charCodeAt(i) === CLOSE_BRACE) {
        i++;
      } else {
        stack.push(IN_OBJECT);
        i = scanKey(text, i);
        continue;
      }
    } else if (c === OPEN_BRACKET) {
      i = skipWhitespace(text, i + 1);
      if (text.charCodeAt(i) === CLOSE_BRACKET) {
        i++;
      } else {
        if (stack.length === 0) count = 1;
        stack.push(IN_ARRAY);
        continue;
      }
    } else if (c === QUOTE) {
      i = scanString(text, i);
    } else if (c === MINUS || isDigit(c)) {
      i = scanNumber(text, i);
    } else if (c === 0x74) {
      i = scanLiteral(text, i, 'true');
    } else if (c === 0x66) {
      i = scanLiteral(text, i, 'false');
    } else if (c === 0x6e) {
      i = scanLiteral(text, i, 'null');
    } else {
      fail(text, i, 'a JSON value');
    }
    // A value ended at i: close containers, or move to the next element or member.
    for (;;) {
      if (stack.length === 0) return kind === 'array' ? { start, end: i, kind, count } : { start, end: i, kind };
      i = skipWhitespace(text, i);
      const d = text.charCodeAt(i);
      const inside = stack[stack.length - 1];
      if (d === COMMA) {
        if (inside === IN_OBJECT) {
          i = scanKey(text, i + 1);
        } else {
          if (stack.length === 1) count++;
          i = skipWhitespace(text, i + 1);
        }
        break;
      }
      if ((inside === IN_OBJECT && d === CLOSE_BRACE) || (inside === IN_ARRAY && d === CLOSE_BRACKET)) {
        stack.pop();
        i++;
        continue;
      }
      fail(text, i, inside === IN_OBJECT ? '"," or "}"' : '"," or "]"');
    }
  }
}

/** Checks that `text` is exactly one JSON value (white space around it allowed) and returns its span. */
export function scanDocument(text: string): JsonSpan {
  const span = scanValue(text, 0);
  const rest = skipWhitespace(text, span.end);
  if (rest < text.length) fail(text, rest, 'the end of the JSON text');
  return span;
}

/** The key whose string spans `start..end` (quotes included), decoded only when it has escapes. */
function keyText(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

/**
 * The members of a document whose top level is an object, in order, each value checked as it is
 * passed. The whole text is checked by the time the generator finishes; a caller must run it to
 * the end before trusting anything it yielded. A document that is valid JSON but not an object
 * yields nothing and returns its kind (so the caller can say what it got).
 */
export function* documentMembers(text: string): Generator<JsonMember, JsonKind, undefined> {
  const start = skipWhitespace(text, 0);
  if (text.charCodeAt(start) !== OPEN_BRACE) return scanDocument(text).kind;
  let i = skipWhitespace(text, start + 1);
  if (text.charCodeAt(i) !== CLOSE_BRACE) {
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) fail(text, i, 'a string key');
      const keyEnd = scanString(text, i);
      const key = keyText(text, i, keyEnd);
      const colon = skipWhitespace(text, keyEnd);
      if (text.charCodeAt(colon) !== COLON) fail(text, colon, '":"');
      const value = scanValue(text, colon + 1);
      yield { key, value };
      i = skipWhitespace(text, value.end);
      const d = text.charCodeAt(i);
      if (d === CLOSE_BRACE) break;
      if (d !== COMMA) fail(text, i, '"," or "}"');
      i = skipWhitespace(text, i + 1);
    }
  }
  const rest = skipWhitespace(text, i + 1);
  if (rest < text.length) fail(text, rest, 'the end of the JSON text');
  return 'object';
}

/**
 * The elements of an array that scanValue (or documentMembers) has checked, in order, as spans.
 * The text is known to be JSON by then, so this only follows strings and nesting, which is much
 * cheaper than checking again. On a span that was not checked it still stays inside the span and
 * ends, but what it yields means nothing.
 */
export function* arrayElements(text: string, array: JsonSpan): Generator<JsonSpan, void, undefined> {
  if (array.kind !== 'array') throw new TypeError('arrayElements needs the span of an array');
  const close = array.end - 1;
  let depth = 0;
  let start = -1;
  let last = 0;
  for (let i = array.start + 1; i < close; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      if (start < 0) start = i;
      i++;
      while (i < close) {
        const d = text.charCodeAt(i);
        if (d === QUOTE) break;
        i += d === BACKSLASH ? 2 : 1;
      }
      last = i + 1;
    } else if (isWhitespace(c)) {
      continue;
    } else if (c === COMMA && depth === 0) {
      if (start >= 0) yield { start, end: last, kind: kindAt(text, start) ?? 'null' };
      start = -1;
    } else {
      if (start < 0) start = i;
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
      last = i + 1;
    }
  }
  if (start >= 0) yield { start, end: last, kind: kindAt(text, start) ?? 'null' };
}

/** Whether the array at `array` has no elements. */
export function isEmptyArray(text: string, array: JsonSpan): boolean {
  return array.kind === 'array' && text.charCodeAt(skipWhitespace(text, array.start + 1)) === CLOSE_BRACKET;
}

/**
 * A value's raw text on one line. Inside valid JSON a line break can only be white space between
 * tokens (strings must escape theirs), and no two tokens need it to stay apart, so taking line
 * breaks out changes nothing else: digits, escapes and key order stay as sent.
 */
export function oneLine(raw: string): string {
  return raw.includes('\n') || raw.includes('\r') ? raw.replace(/[\r\n]+/g, '') : raw;
}
