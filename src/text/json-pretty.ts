// JSON laid out for people, from its text: two-space indentation, one member a line. Tokens are
// copied as written (a number keeps its digits, 2^64 or 1.0 alike, which JSON.parse would round or
// shorten), and inside strings every character a terminal could act on (C0 and C1 controls,
// invisible format characters) is written as its \u escape: the same JSON value, nothing hidden.
// The text must be valid JSON (src/text/json-scan.ts checks it first).

import { skipWhitespace } from './json-scan.js';

// eslint-disable-next-line no-control-regex -- control characters are what this finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

export function prettyJson(text: string): string {
  let out = '';
  let depth = 0;
  const newline = (): string => '\n' + '  '.repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end).replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
      i = end - 1;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const next = skipWhitespace(text, i + 1);
      if (text[next] === close) {
        out += c + close;
        i = next;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += ',' + newline();
    } else if (c === ':') {
      out += ': ';
    } else if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') {
      out += c;
    }
  }
  return out;
}

/** The index just past the string that starts at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') return i + 1;
  }
  return text.length;
}
