// The ways a hostile server can echo a key back so that a naive search misses it, and the check
// that no decodable form of a key is left in some output. The check decodes independently of
// src/text/redact.ts: JSON-unescape, HTML-unescape, percent-decode and strip invisible characters,
// in rounds, searching after every step. And keys broken by one defect, for the refusals of a key
// that cannot be sent.
import { expect } from 'vitest';

/** A JSON string's content (between the quotes) for each form of `key`; JSON.parse gives what a reader sees. */
export function jsonForms(key: string): Record<string, string> {
  const chars = [...key];
  const each = (f: (c: string, i: number) => string): string => chars.map(f).join('');
  const u = (c: string, upper = false): string => {
    const hex = (c.codePointAt(0) as number).toString(16).padStart(4, '0');
    return '\\u' + (upper ? hex.toUpperCase() : hex);
  };
  const pct = (c: string, upper: boolean): string =>
    [...Buffer.from(c, 'utf8')].map((b) => '%' + (upper ? b.toString(16).toUpperCase() : b.toString(16)).padStart(2, '0')).join('');
  const between = (sep: (i: number) => string): string => each((c, i) => (i === 0 ? c : sep(i) + c));
  const rotate = (list: string[]) => (i: number) => list[i % list.length] as string;
  return {
    literal: key,
    slashEscaped: key.replace(/\//g, '\\/'),
    jsonUSome: each((c, i) => (i % 3 === 1 ? u(c, i % 2 === 0) : c)),
    jsonUAll: each((c, i) => u(c, i % 2 === 0)),
    jsonUDouble: each((c, i) => (i % 4 === 0 ? '\\' + u(c) : c)),
    percentSome: each((c, i) => (i % 2 === 0 ? pct(c, i % 4 === 0) : c)),
    percentDouble: each((c, i) => (i % 3 === 0 ? pct(c, true).replace(/%/g, '%25') : c)),
    htmlDecimal: each((c, i) => (i % 2 === 1 ? `&#${c.codePointAt(0)};` : c)),
    htmlHex: each((c, i) => (i % 3 === 2 ? `&#x${(c.codePointAt(0) as number).toString(16)};` : c)),
    escSplit: between(() => '\\u001b'),
    escSequenceSplit: between((i) => (i % 2 ? '\\u001b[0m' : '\\u001b')),
    controlSplit: between(rotate(['\\u0007', '\\t', '\\n', '\\r', '\\u0000', '\\u007f', '\\u009b'])),
    zeroWidthSplit: between(rotate(['\\u200b', '\\u200c', '\\u200d', '\\ufeff', '\\u00ad', '\\u2060'])),
    bidiSplit: between(rotate(['\\u202e', '\\u2066', '\\u200f', '\\u061c', '\\u2069'])),
    tagSplit: between(rotate(['\\udb40\\udc41', '\u{E0062}', '\\udb40\\udc7f'])),
    separatorSplit: between(rotate(['\\u2028', '\\u2029'])),
    escapedIgnorables: between(rotate(['%1B', '&#27;', '\\\\u001b', '%E2%80%8B', '&#x200B;', '\\\\n'])),
    mixed: each((c, i) => {
      const forms = [c, u(c), pct(c, true), `&#${c.codePointAt(0)};`, pct(c, false).replace(/%/g, '%25')];
      const lead = i === 0 ? '' : ['', '\\u001b', '\\u200b', '\\u202e', '%1b', '\\t', '\\udb40\\udc20'][(i * 5) % 7];
      return lead + (forms[(i * 7) % forms.length] as string);
    }),
  };
}

/** Forms that fit in a URL path (a redirect's Location): printable ASCII only. */
export function urlForms(key: string): Record<string, string> {
  const chars = [...key];
  const each = (f: (c: string, i: number) => string): string => chars.map(f).join('');
  const pct = (c: string): string => [...Buffer.from(c, 'utf8')].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');
  return {
    literal: key,
    percentSome: each((c, i) => (i % 2 ? pct(c) : c)),
    percentLower: each((c) => pct(c).toLowerCase()),
    percentDouble: each((c, i) => (i % 3 ? c : pct(c).replace(/%/g, '%25'))),
    escSplit: each((c, i) => (i ? '%1B' + c : c)),
    zeroWidthSplit: each((c, i) => (i ? '%E2%80%8B' + c : c)),
    bidiSplit: each((c, i) => (i ? '%E2%80%AE' + c : c)),
    tagSplit: each((c, i) => (i ? '%F3%A0%81%81' + c : c)),
    newlineSplit: each((c, i) => (i ? '%0A' + c : c)),
  };
}

const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029\u{E0000}-\u{E007F}]/gu;

/** What a terminal shows of the escape sequences it interprets (CSI, OSC): nothing. */
const TERMINAL_SEQUENCE = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

const stripInvisible = (text: string): string => text.replace(INVISIBLE, '');
const renderTerminal = (text: string): string => stripInvisible(text.replace(TERMINAL_SEQUENCE, ''));

function jsonUnescape(text: string): string {
  const shorts: Record<string, string> = { '/': '/', '"': '"', '\\': '\\', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
  // Left to right, one level at a time: `\\u0063` is `\u0063` after one round and `c` after two.
  return text.replace(/\\(u[0-9a-fA-F]{4}|[/"\\bfnrt])/g, (_m, e: string) =>
    e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (shorts[e] as string),
  );
}

function htmlUnescape(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", sol: '/', lowbar: '_' };
  return text
    .replace(/&#[xX]([0-9a-fA-F]+);?/g, (m, hex: string) => safeCodePoint(parseInt(hex, 16)) ?? m)
    .replace(/&#(\d+);?/g, (m, dec: string) => safeCodePoint(parseInt(dec, 10)) ?? m)
    .replace(/&([a-z]+);/gi, (m, name: string) => named[name] ?? m);
}

function safeCodePoint(cp: number): string | undefined {
  return cp <= 0x10ffff ? String.fromCodePoint(cp) : undefined;
}

function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    return new TextDecoder('utf-8').decode(bytes);
  });
}

/** Every text a reader could get from `text` by decoding it (in rounds, so double encodings unwind too). */
export function decodings(text: string): string[] {
  const seen = [text];
  // Invisible characters taken out one by one, or as a terminal shows them (escape sequences and all).
  for (const strip of [stripInvisible, renderTerminal]) {
    let current = text;
    for (let round = 0; round < 4; round++) {
      for (const step of [strip, jsonUnescape, htmlUnescape, percentDecode, strip]) {
        current = step(current);
        seen.push(current);
      }
    }
    // Each decoder alone as well, on the original: a later step can hide what an earlier one showed.
    for (const step of [jsonUnescape, htmlUnescape, percentDecode]) seen.push(strip(step(text)));
  }
  return seen;
}

/** The name of the first decoding in which `key` appears, or undefined when none shows it. */
export function findKey(text: string, key: string): string | undefined {
  const found = decodings(text).findIndex((t) => t.includes(key));
  return found < 0 ? undefined : `decoding #${found}`;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomKey(prefix = 'crk_', length = 20): string {
  let out = prefix;
  for (let i = 0; i < length; i++) out += BASE62[Math.floor(Math.random() * BASE62.length)];
  return out;
}

/** A key as the service issues them, split by one defect: `BROKEN_HEAD + inside + BROKEN_TAIL`. */
export const BROKEN_HEAD = 'crk_HeadOfTheKey';
export const BROKEN_TAIL = 'TailOfTheKey0123';
export const brokenKey = (inside: string): string => BROKEN_HEAD + inside + BROKEN_TAIL;

/** Each defect that makes a key unsendable: its name, the text put inside the key, how crawl names it. */
export const KEY_DEFECTS: ReadonlyArray<[string, string, string]> = [
  ['LF', '\n', 'a line break (LF, U+000A)'],
  ['CR', '\r', 'a line break (CR, U+000D)'],
  ['CRLF and a header', '\r\nX-Injected: 1', 'a line break (CR, U+000D)'],
  ['a tab', '\t', 'a tab (U+0009)'],
  ['ESC (a colour escape)', '\u001b[31m', 'a control character (U+001B)'],
  ['a space', ' ', 'a space (U+0020)'],
  ['DEL', '\u007f', 'a control character (U+007F)'],
  ['NEL (U+0085)', '\u0085', 'a control character (U+0085)'],
  ['a zero-width space', '\u200b', 'an invisible character (U+200B)'],
  ['a no-break space', '\u00a0', 'white space (U+00A0)'],
  ['a letter that is not ASCII', 'é', 'a character that is not plain ASCII (U+00E9)'],
];
// NUL cannot be passed through the environment (C strings end there), only stored in the file.
export const STORED_KEY_DEFECTS: ReadonlyArray<[string, string, string]> = [...KEY_DEFECTS, ['NUL', '\u0000', 'a control character (U+0000)']];

/** Nothing of a brokenKey() in `text`: neither of its halves. */
export function expectNoBrokenKeyIn(text: string): void {
  expect(text).not.toContain(BROKEN_HEAD);
  expect(text).not.toContain(BROKEN_TAIL);
}
