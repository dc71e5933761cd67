// Finds a secret in text however it was encoded, and replaces it with `[redacted]`.
//
// A server (or a proxy) that echoes a key back does not have to echo it literally: each character
// may arrive as itself, as a JSON escape (`\u0063`, `\/`), percent-encoded (`%63`, `%2563`), as an
// HTML entity (`&#99;`, `&#x63;`), and invisible characters may sit between any two of them (ESC,
// zero-width spaces, bidi controls, tag characters, and those again in escaped form). Whatever a
// terminal, a JSON parser or a URL decoder would turn back into the key counts as the key.
//
// Matching is a small non-deterministic automaton run from each place where a secret could start:
// a state is (position in the text, characters of the secret matched), and every encoded form of
// the character at a position is one transition. States are never visited twice from one start,
// so the work is linear in the text for a given secret.

/** What a secret is replaced with; exported so a value that held one can be told from a real one. */
export const REPLACEMENT = '[redacted]';
/** Shorter values are too likely to occur by chance (and are not keys). */
export const MIN_SECRET_LENGTH = 8;

/** Anything that could hide between two characters of a secret or that the sanitiser removes. */
const IGNORABLE_OR_ENCODED = (): RegExp => (expressions.ignorableOrEncoded ??= /[\\%&\p{Cc}\p{Cf}\u2028\u2029\u{E0000}-\u{E007F}]/u);
/** What begins an encoded form of a character: a JSON escape, a percent-encoding, an entity. */
const ENCODED = /[\\%&]/;
/** The characters skipped between a secret's own, one code point each. */
const IGNORABLES = (): RegExp => (expressions.ignorables ??= /[\p{Cc}\p{Cf}\u2028\u2029\u{E0000}-\u{E007F}]/gu);
const FORMAT = (): RegExp => (expressions.format ??= /^\p{Cf}$/u);
// The three above are made on first use: V8 builds a Unicode property class when an expression is
// created, and most runs that load this module (help among them) redact nothing.
const expressions: { ignorableOrEncoded?: RegExp; ignorables?: RegExp; format?: RegExp } = {};

interface Pattern {
  /** The secret without ignorable characters (they are skipped in the text anyway). */
  literal: string;
  codePoints: number[];
  /** Where a match may begin: the first character itself, or the start of an encoded form. */
  triggers: string[];
}

/**
 * Secrets never to be shown (the configured key, keys created by this run, keys read from the
 * user). `redact(text)` replaces each of them, in any of the forms above, with `[redacted]`.
 */
export class Redactor {
  readonly #patterns: Pattern[] = [];
  readonly #known = new Set<string>();

  /** Registers a secret; one shorter than MIN_SECRET_LENGTH (after removing invisible characters) is ignored. */
  add(secret: string): void {
    if (this.#known.has(secret)) return;
    this.#known.add(secret);
    const codePoints = [...secret].map((c) => c.codePointAt(0) as number).filter((cp) => !isIgnorable(cp));
    if (codePoints.length < MIN_SECRET_LENGTH) return;
    const literal = String.fromCodePoint(...codePoints);
    if (this.#patterns.some((p) => p.literal === literal)) return;
    this.#patterns.push({ literal, codePoints, triggers: triggersFor(codePoints[0] as number, literal) });
  }

  has(secret: string): boolean {
    return this.#known.has(secret);
  }

  get size(): number {
    return this.#patterns.length;
  }

  /**
   * An error with every secret taken out of its message and stack, changed in place (a second
   * pass changes nothing) so that its class and fields stay; one whose message cannot be set (a
   * frozen error, a getter) is replaced by an Error of the redacted message.
   */
  redactError(error: unknown): unknown {
    if (!(error instanceof Error) || this.#patterns.length === 0) return error;
    const message = this.redact(error.message);
    const stack = typeof error.stack === 'string' ? this.redact(error.stack) : undefined;
    if (message === error.message && stack === error.stack) return error;
    try {
      error.message = message;
      if (stack !== undefined) error.stack = stack;
      if (error.message === message) return error;
    } catch {
      // Not writable: replaced below.
    }
    const plain = new Error(message);
    plain.name = error.name;
    return plain;
  }

  redact(text: string): string {
    if (this.#patterns.length === 0 || text.length < MIN_SECRET_LENGTH) return text;
    const spans: Array<[number, number]> = [];
    // Fast path: with no escape, entity, percent sign or invisible character, only a literal copy can match.
    if (!IGNORABLE_OR_ENCODED().test(text)) {
      for (const p of this.#patterns) {
        for (let i = text.indexOf(p.literal); i !== -1; i = text.indexOf(p.literal, i + 1)) spans.push([i, i + p.literal.length]);
      }
      return spans.length === 0 ? text : replaceSpans(text, spans);
    }
    // Nearly every write ends in a line break, which is an ignorable character: without any encoded
    // form or escape sequence, a secret can only be there as its characters with single invisible
    // ones between them, so the text without those holds it literally. If not, nothing to do.
    // ESC and CSI begin escape sequences, which the automaton skips whole.
    if (!ENCODED.test(text) && !text.includes('\u001b') && !text.includes('\u009b')) {
      const visible = text.replace(IGNORABLES(), '');
      if (!this.#patterns.some((p) => visible.includes(p.literal))) return text;
    }
    for (const p of this.#patterns) {
      for (const trigger of p.triggers) {
        for (let i = text.indexOf(trigger); i !== -1; i = text.indexOf(trigger, i + 1)) {
          const end = matchFrom(text, i, p.codePoints);
          if (end > i) spans.push([jsonSafeStart(text, i), jsonSafeEnd(text, end)]);
        }
      }
    }
    return spans.length === 0 ? text : replaceSpans(text, spans);
  }
}

/** C0 and C1 controls, Unicode format characters (zero-width, bidi, tags, soft hyphen, BOM...), line and paragraph separators. */
export function isIgnorable(cp: number): boolean {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return true;
  if (cp < 0xad) return false;
  if (cp === 0x2028 || cp === 0x2029 || (cp >= 0xe0000 && cp <= 0xe007f)) return true;
  return FORMAT().test(String.fromCodePoint(cp));
}

function triggersFor(first: number, literal: string): string[] {
  const triggers = [literal.slice(0, first > 0xffff ? 2 : 1), '%', '&'];
  // `\u` finds every \u escape, however many backslashes precede it; other escapes only for the characters they stand for.
  triggers.push(SHORT_ESCAPE_OF.has(first) ? '\\' : '\\u');
  return triggers;
}

// ---- the automaton ---------------------------------------------------------------------------

/** Reused between calls: the decoded forms found at one position (code point, length in the text). */
const formCp: number[] = [];
const formLen: number[] = [];
let formCount = 0;
const visited = new Set<number>();

function push(cp: number, len: number): void {
  formCp[formCount] = cp;
  formLen[formCount] = len;
  formCount++;
}

/** The end of a match of `secret` that begins at `start`, or -1. */
function matchFrom(text: string, start: number, secret: readonly number[]): number {
  const first = secret[0] as number;
  const second = secret[1] as number;
  let any = false;
  const n = formsAt(text, start);
  for (let k = 0; k < n; k++) if (formCp[k] === first && mayContinue(text, start + (formLen[k] as number), second)) any = true;
  // Most candidates (the first character, as itself, in ordinary text) end here, at no cost.
  if (!any) return -1;
  const m = secret.length;
  visited.clear();
  const stack: number[] = [start, 0];
  while (stack.length > 0) {
    const j = stack.pop() as number;
    const p = stack.pop() as number;
    if (j === m) return p;
    const key = p * (m + 1) + j;
    if (visited.has(key)) continue;
    visited.add(key);
    if (j > 0) {
      // A run of invisible characters written as themselves leads nowhere but past its end.
      const past = pastLiteralIgnorables(text, p);
      if (past > p) {
        stack.push(past, j);
        continue;
      }
    }
    const count = formsAt(text, p);
    const want = secret[j] as number;
    for (let k = 0; k < count; k++) {
      const cp = formCp[k] as number;
      const next = p + (formLen[k] as number);
      if (cp === want) stack.push(next, j + 1);
      else if (j > 0 && isIgnorable(cp)) {
        // Invisible characters are skipped between the secret's characters, never before the first;
        // so is a whole terminal escape sequence (`ESC[0m`), which a terminal shows as nothing.
        stack.push(next, j);
        if (cp === 0x1b || cp === 0x9b) {
          const end = escapeSequenceEnd(text, next, cp);
          if (end > next) stack.push(end, j);
        }
      }
    }
  }
  return -1;
}

/** A string terminator (BEL, ESC, ST) at `p`, literal or in one of the encoded forms. */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const TERMINATOR = /[\u0007\u001b\u009c]|\\+u00(?:07|1b|9c)|%(?:25)*(?:07|1b)|&(?:amp;)*#(?:0*7|0*27|x0*7|x0*1b);?/iy;

/**
 * Whether the text at `p` can go on with the character `next`: as itself, or through an encoded
 * form or an invisible character (which the full search then looks into).
 */
function mayContinue(text: string, p: number, next: number): boolean {
  if (p >= text.length) return false;
  const c = text.charCodeAt(p);
  if (c === 0x5c || c === 0x25 || c === 0x26) return true;
  if (c === (next > 0xffff ? 0xd800 + ((next - 0x10000) >> 10) : next)) return true;
  return isIgnorable(text.codePointAt(p) as number);
}

/**
 * The end of the run of literal invisible characters at `p` (p itself if there is none). It stops
 * before an ESC or C1 CSI that may begin an escape sequence, whose text matching treats apart.
 */
function pastLiteralIgnorables(text: string, p: number): number {
  let q = p;
  while (q < text.length) {
    const cp = text.codePointAt(q) as number;
    if (!isIgnorable(cp) || cp === 0x9b) break;
    if (cp === 0x1b && '[]PX^_'.includes(text[q + 1] ?? '')) break;
    q += cp > 0xffff ? 2 : 1;
  }
  return q;
}

/**
 * Where the rest of a terminal escape sequence ends, after its ESC (or C1 CSI) at `p`, or -1: a
 * CSI (`[`, parameters, intermediates, final byte), the text of an OSC, DCS, APC, PM or SOS string
 * when a terminator follows it (the terminator is invisible in its own right). A string's text never runs past a quote, a backslash or an
 * encoded form, so a match cannot swallow the structure of the JSON around it.
 */
function escapeSequenceEnd(text: string, p: number, introducer: number): number {
  let q = p;
  if (introducer === 0x1b) {
    const c = text.charCodeAt(q);
    if (c === 0x5d || c === 0x50 || c === 0x5f || c === 0x5e || c === 0x58) {
      const limit = Math.min(text.length, q + 256);
      for (q++; q < limit; q++) {
        const d = text.charCodeAt(q);
        if (d === 0x22 || d === 0x5c || d === 0x25 || d === 0x26 || d < 0x20 || (d >= 0x7f && d <= 0x9f)) break;
      }
      TERMINATOR.lastIndex = q;
      return TERMINATOR.test(text) ? q : -1;
    }
    // A two-character escape (ESC 7, ESC c) would hide one printable character: not followed,
    // since skipping a visible character would let one start wander over the whole text.
    if (c !== 0x5b) return -1;
    q++;
  }
  while (q < text.length && text.charCodeAt(q) >= 0x30 && text.charCodeAt(q) <= 0x3f) q++;
  while (q < text.length && text.charCodeAt(q) >= 0x20 && text.charCodeAt(q) <= 0x2f) q++;
  const final = text.charCodeAt(q);
  return final >= 0x40 && final <= 0x7e ? q + 1 : -1;
}

/** Fills formCp/formLen with every way the text at `p` decodes to one character; returns how many. */
function formsAt(text: string, p: number): number {
  formCount = 0;
  if (p >= text.length) return 0;
  const cp = text.codePointAt(p) as number;
  push(cp, cp > 0xffff ? 2 : 1);
  if (cp === 0x5c) backslashForms(text, p);
  else if (cp === 0x25) percentForms(text, p);
  else if (cp === 0x26) entityForms(text, p);
  return formCount;
}

const SHORT_ESCAPES: Record<string, number> = { '/': 0x2f, '"': 0x22, "'": 0x27, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 };
const SHORT_ESCAPE_OF = new Set([0x2f, 0x22, 0x27, 0x5c]);

/**
 * JSON escapes, at any depth of escaping: `\u0063`, `\\u0063` (a JSON string inside a JSON
 * string), `\/`, `\"`, `\\`, `\n`; a \u surrogate pair is one character.
 */
function backslashForms(text: string, p: number): void {
  let run = 0;
  while (text.charCodeAt(p + run) === 0x5c) run++;
  for (let len = 2; len <= run; len *= 2) push(0x5c, len);
  const q = p + run;
  const x = text[q];
  if (x === 'u') {
    const unit = hexValue(text, q + 1, 4);
    if (unit < 0) return;
    const len = run + 5;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = lowSurrogateAt(text, p + len);
      if (low) return push(0x10000 + ((unit - 0xd800) << 10) + (low.unit - 0xdc00), len + low.len);
    }
    push(unit, len);
    return;
  }
  const short = x === undefined ? undefined : SHORT_ESCAPES[x];
  if (short !== undefined) push(short, run + 1);
}

/** The low half of a surrogate pair at `p`, escaped (at any depth) or literal. */
function lowSurrogateAt(text: string, p: number): { unit: number; len: number } | undefined {
  const literal = text.charCodeAt(p);
  if (literal >= 0xdc00 && literal <= 0xdfff) return { unit: literal, len: 1 };
  let run = 0;
  while (text.charCodeAt(p + run) === 0x5c) run++;
  if (run === 0 || text[p + run] !== 'u') return undefined;
  const unit = hexValue(text, p + run + 1, 4);
  return unit >= 0xdc00 && unit <= 0xdfff ? { unit, len: run + 5 } : undefined;
}

/**
 * A character percent-encoded as UTF-8 (`%63`, `%E2%80%8B`), each byte in either case and at any
 * depth of encoding (`%2563` is `%63` encoded again).
 */
function percentForms(text: string, p: number): void {
  const lead = percentByte(text, p);
  if (!lead) return;
  // Each depth at which the byte reads as "%" is also a literal percent sign.
  for (let i = 0; i < lead.ends.length - 1; i++) push(0x25, (lead.ends[i] as number) - p);
  const b = lead.byte;
  let end = lead.ends[lead.ends.length - 1] as number;
  if (b < 0x80) return push(b, end - p);
  const extra = b >= 0xf0 && b <= 0xf4 ? 3 : b >= 0xe0 ? 2 : b >= 0xc2 && b < 0xe0 ? 1 : 0;
  if (extra === 0) return;
  let cp = b & (0x3f >> extra);
  for (let i = 0; i < extra; i++) {
    const next = percentByte(text, end);
    if (!next || next.byte < 0x80 || next.byte > 0xbf) return;
    cp = (cp << 6) | (next.byte & 0x3f);
    end = next.ends[next.ends.length - 1] as number;
  }
  const min = extra === 1 ? 0x80 : extra === 2 ? 0x800 : 0x10000;
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return;
  push(cp, end - p);
}

/** `%XX`, following `%25XX` chains: the final byte, and where each depth of it ends. */
function percentByte(text: string, p: number): { byte: number; ends: number[] } | undefined {
  if (text.charCodeAt(p) !== 0x25) return undefined;
  let byte = hexValue(text, p + 1, 2);
  if (byte < 0) return undefined;
  let end = p + 3;
  const ends = [end];
  while (byte === 0x25) {
    const deeper = hexValue(text, end, 2);
    if (deeper < 0) break;
    byte = deeper;
    end += 2;
    ends.push(end);
  }
  return { byte, ends };
}

/** Entities whose characters can be part of a key, or can hide between its characters. */
const NAMED_ENTITIES: Record<string, number> = {
  amp: 0x26, lt: 0x3c, gt: 0x3e, quot: 0x22, apos: 0x27, sol: 0x2f, bsol: 0x5c, lowbar: 0x5f, period: 0x2e,
  colon: 0x3a, semi: 0x3b, comma: 0x2c, excl: 0x21, num: 0x23, dollar: 0x24, percnt: 0x25, lpar: 0x28,
  rpar: 0x29, ast: 0x2a, plus: 0x2b, equals: 0x3d, quest: 0x3f, commat: 0x40, lsqb: 0x5b, rsqb: 0x5d,
  lcub: 0x7b, rcub: 0x7d, verbar: 0x7c, Hat: 0x5e, grave: 0x60, Tab: 0x09, NewLine: 0x0a, shy: 0xad,
  ZeroWidthSpace: 0x200b, zwnj: 0x200c, zwj: 0x200d, lrm: 0x200e, rlm: 0x200f,
};

/** HTML character references: `&#99;`, `&#x63;`, `&sol;`, also escaped again as `&amp;#99;`. */
function entityForms(text: string, p: number): void {
  let q = p + 1;
  while (text.startsWith('amp;', q)) q += 4;
  if (text[q] === '#') {
    q++;
    const hex = text[q] === 'x' || text[q] === 'X';
    if (hex) q++;
    let value = 0;
    let digits = 0;
    for (;;) {
      const d = digitValue(text.charCodeAt(q), hex ? 16 : 10);
      if (d < 0) break;
      value = value * (hex ? 16 : 10) + d;
      if (value > 0x10ffff) return;
      digits++;
      q++;
    }
    if (digits === 0) return;
    if (text[q] === ';') q++;
    push(value, q - p);
    return;
  }
  let r = q;
  while (r < text.length && r - q < 16 && /[A-Za-z]/.test(text[r] as string)) r++;
  if (r === q || text[r] !== ';') return;
  const value = NAMED_ENTITIES[text.slice(q, r)];
  if (value !== undefined) push(value, r + 1 - p);
}

function hexValue(text: string, p: number, digits: number): number {
  let value = 0;
  for (let i = 0; i < digits; i++) {
    const d = digitValue(text.charCodeAt(p + i), 16);
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

function digitValue(c: number, radix: 10 | 16): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (radix === 16) {
    if (c >= 0x41 && c <= 0x46) return c - 0x37;
    if (c >= 0x61 && c <= 0x66) return c - 0x57;
  }
  return -1;
}

// ---- replacing without breaking JSON ---------------------------------------------------------

/** Backslashes right before `p`. */
function backslashesBefore(text: string, p: number): number {
  let n = 0;
  while (p - n - 1 >= 0 && text.charCodeAt(p - n - 1) === 0x5c) n++;
  return n;
}

/** An active `\uXXXX` escape (not itself escaped) whose backslash is at q. */
function unicodeEscapeAt(text: string, q: number): boolean {
  return text.charCodeAt(q) === 0x5c && backslashesBefore(text, q) % 2 === 0 && text[q + 1] === 'u' && hexValue(text, q + 2, 4) >= 0;
}

/**
 * A match may begin inside a JSON escape (after the backslash that starts it, or among the hex
 * digits of `\uXXXX`): the replacement then takes the whole escape, so the JSON stays valid.
 */
function jsonSafeStart(text: string, start: number): number {
  if (backslashesBefore(text, start) % 2 === 1) return start - 1;
  for (let q = start - 2; q >= start - 5 && q >= 0; q--) if (unicodeEscapeAt(text, q)) return q;
  return start;
}

/** Likewise at the end: a match that ends on an escaping backslash or inside `\uXXXX` takes the rest of the escape. */
function jsonSafeEnd(text: string, end: number): number {
  if (end < text.length && backslashesBefore(text, end) % 2 === 1) {
    return text[end] === 'u' && hexValue(text, end + 1, 4) >= 0 ? end + 5 : end + 1;
  }
  for (let q = end - 2; q >= end - 5 && q >= 0; q--) if (unicodeEscapeAt(text, q)) return q + 6;
  return end;
}

function replaceSpans(text: string, spans: Array<[number, number]>): string {
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  let current: [number, number] | undefined;
  for (const span of spans) {
    if (current && span[0] <= current[1]) {
      current[1] = Math.max(current[1], span[1]);
      continue;
    }
    if (current) {
      out += text.slice(at, current[0]) + REPLACEMENT;
      at = current[1];
    }
    current = [span[0], span[1]];
  }
  if (current) out += text.slice(at, current[0]) + REPLACEMENT + text.slice(current[1]);
  else out = text;
  return out;
}
