// Inside a property, node's assert: the checks expect makes, without what vitest's expect adds to
// every call (its state, copied each time), paid hundreds of times a property.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIgnorable, MIN_SECRET_LENGTH, Redactor } from '../../src/text/redact.js';
import { findKey } from '../support/key-forms.js';
import { expectLinearReads } from '../support/linear.js';

const KEY = 'crk_Ab/Cd+ef=GH12345';
const R = '[redacted]';

function redactor(...secrets: string[]): Redactor {
  const r = new Redactor();
  for (const s of secrets) r.add(s);
  return r;
}

const each = (s: string, f: (c: string, i: number) => string): string => [...s].map(f).join('');
const hex4 = (c: string): string => (c.charCodeAt(0) as number).toString(16).padStart(4, '0');
const between = (s: string, sep: string): string => each(s, (c, i) => (i ? sep + c : c));

describe('Redactor: which secrets', () => {
  it('ignores secrets shorter than 8 characters, counted without invisible characters', () => {
    const r = redactor('short12', 'ab\u200bcdefg', '');
    expect(r.size).toBe(0);
    expect(r.redact('short12 abcdefg')).toBe('short12 abcdefg');
    expect(MIN_SECRET_LENGTH).toBe(8);
  });

  it('redacts every occurrence of every secret, and a secret given with invisible characters in it', () => {
    const r = redactor(KEY, 'other-secret-value', 'zz\u200bzzzzzzzz');
    expect(r.redact(`${KEY} and ${KEY}; other-secret-value.`)).toBe(`${R} and ${R}; ${R}.`);
    expect(r.redact('zzzzzzzzzz')).toBe(R);
    expect(r.has(KEY)).toBe(true);
  });

  it('one replacement for overlapping or adjacent matches of several secrets', () => {
    const r = redactor('abcdefgh12', 'efgh12345678');
    expect(r.redact('x abcdefgh12345678 y')).toBe(`x ${R} y`);
  });

  it('leaves text without a secret exactly as it was, escapes and controls included', () => {
    const r = redactor(KEY);
    for (const text of ['', 'plain', 'a\\u0041 %41 &#65; \u001b[31m red \u200b', 'crk_Ab/Cd+ef=GH1234', 'crk_Ab/Cd+ef=GH1234\u001b6', '\\\\\\\\%%%&&&']) {
      expect(r.redact(text)).toBe(text);
    }
  });
});

describe('Redactor: encodings, each character on its own', () => {
  const r = redactor(KEY);
  const cases: Array<[string, string]> = [
    ['literal', KEY],
    ['JSON \\u, lower case', each(KEY, (c, i) => (i % 3 ? c : '\\u' + hex4(c)))],
    ['JSON \\u, upper case, every character', each(KEY, (c) => '\\u' + hex4(c).toUpperCase())],
    ['JSON \\/', KEY.replace('/', '\\/')],
    ['JSON escaped twice (\\\\u)', each(KEY, (c, i) => (i % 2 ? c : '\\\\u' + hex4(c)))],
    ['percent, upper case', each(KEY, (c, i) => (i % 2 ? c : '%' + hex4(c).slice(2).toUpperCase()))],
    ['percent, lower case, every character', each(KEY, (c) => '%' + hex4(c).slice(2))],
    ['percent, double (%25XX)', each(KEY, (c, i) => (i % 3 ? c : '%25' + hex4(c).slice(2)))],
    ['percent, triple (%2525XX)', each(KEY, (c, i) => (i % 4 ? c : '%2525' + hex4(c).slice(2)))],
    ['HTML decimal', each(KEY, (c, i) => (i % 2 ? c : `&#${c.charCodeAt(0)};`))],
    ['HTML decimal, leading zeros, no semicolon before a non-digit', each(KEY, (c, i) => (i === 1 ? `&#000${c.charCodeAt(0)}` : c))],
    ['HTML hex', each(KEY, (c, i) => (i % 2 ? `&#x${hex4(c)};` : c))],
    ['HTML hex, upper X', each(KEY, (c, i) => (i % 3 ? c : `&#X${hex4(c).toUpperCase()};`))],
    ['HTML named', KEY.replace('/', '&sol;').replace('_', '&lowbar;').replace('=', '&equals;')],
    ['HTML escaped twice (&amp;#)', each(KEY, (c, i) => (i % 2 ? c : `&amp;#${c.charCodeAt(0)};`))],
    ['all of them mixed', each(KEY, (c, i) => [c, '\\u' + hex4(c), '%' + hex4(c).slice(2), `&#${c.charCodeAt(0)};`, '%25' + hex4(c).slice(2)][i % 5] as string)],
  ];
  it.each(cases)('%s', (_name, form) => {
    expect(r.redact(`before ${form} after`)).toBe(`before ${R} after`);
  });

  it('non-ASCII secrets: UTF-8 percent-encoding, \\u surrogate pairs, entities of astral characters', () => {
    const secret = 'kéy-日本-😀-secret';
    const s = redactor(secret);
    expect(s.redact(`x ${encodeURIComponent(secret)} y`)).toBe(`x ${R} y`);
    expect(s.redact(`x ${encodeURIComponent(encodeURIComponent(secret))} y`)).toBe(`x ${R} y`);
    expect(s.redact(`x ${JSON.stringify(secret).slice(1, -1)} y`)).toBe(`x ${R} y`);
    const escapedAll = each(secret, (c) => [...c].map(() => '').join('') + c.split('').map((u) => '\\u' + hex4(u)).join(''));
    expect(s.redact(`x ${escapedAll} y`)).toBe(`x ${R} y`);
    expect(s.redact(`x ${each(secret, (c) => `&#x${(c.codePointAt(0) as number).toString(16)};`)} y`)).toBe(`x ${R} y`);
  });
});

describe('Redactor: invisible characters between the characters', () => {
  const r = redactor(KEY);
  const literal: Array<[string, string]> = [
    ['ESC', '\u001b'],
    ['BEL, NUL, TAB, LF, CR', '\u0007\u0000\t\n\r'],
    ['DEL and C1 (CSI, NEL)', '\u007f\u009b\u0085'],
    ['zero-width space, joiners, word joiner', '\u200b\u200c\u200d\u2060'],
    ['bidi embeddings, overrides, isolates, marks', '\u202a\u202e\u2066\u2069\u200e\u200f\u061c'],
    ['tag characters', '\u{E0001}\u{E0041}\u{E007F}\u{E0000}'],
    ['soft hyphen and BOM', '\u00ad\ufeff'],
    ['line and paragraph separators', '\u2028\u2029'],
    ['an SGR sequence', '\u001b[31;1m'],
    ['an OSC title string', '\u001b]0;pwned\u0007'],
  ];
  it.each(literal)('%s', (_name, sep) => {
    expect(r.redact(`<${between(KEY, sep)}>`)).toBe(`<${R}>`);
  });

  const escaped: Array<[string, string]> = [
    ['\\u001b', '\\u001b'],
    ['\\n, \\t, \\r', '\\n\\t\\r'],
    ['\\u200B, \\uFEFF', '\\u200B\\uFEFF'],
    ['\\uDB40\\uDC41 (a tag as a surrogate pair)', '\\uDB40\\uDC41'],
    ['%1B, %0a', '%1B%0a'],
    ['%E2%80%8B (zero-width space as UTF-8)', '%E2%80%8B'],
    ['%251B (ESC encoded twice)', '%251B'],
    ['&#27;, &#x200B;, &shy;', '&#27;&#x200B;&shy;'],
    ['\\u001b[0m (an escaped SGR sequence)', '\\u001b[0m'],
  ];
  it.each(escaped)('escaped: %s', (_name, sep) => {
    expect(r.redact(`"${between(KEY, sep)}"`)).toBe(`"${R}"`);
  });

  it('invisible characters before the first or after the last character are not part of the match', () => {
    expect(r.redact(`\u200b${KEY}\u200b`)).toBe(`\u200b${R}\u200b`);
    expect(r.redact(`%1B${KEY}%1B`)).toBe(`%1B${R}%1B`);
  });

  it('what a sanitiser leaves behind (ESC removed, the rest of its sequence shown) is not the key', () => {
    expect(r.redact(between(KEY, '[0m'))).toBe(between(KEY, '[0m'));
  });
});

describe('Redactor: JSON stays valid', () => {
  const r = redactor(KEY);
  it.each([
    ['inside a string', `{"a":"x ${KEY} y","b":1}`],
    ['escaped characters at both ends', `{"a":"${each(KEY, (c) => '\\u' + hex4(c))}"}`],
    ['after an escaped backslash', `{"a":"\\\\${KEY}"}`],
    ['a match that begins at the second backslash of \\\\u0063', `{"a":"\\\\u0063${KEY.slice(1)}"}`],
    ['between escapes', `{"a":"\\n${between(KEY, '\\u001b')}\\t"}`],
  ])('%s', (_name, json) => {
    expect(() => JSON.parse(json)).not.toThrow();
    const out = r.redact(json);
    expect(out).toContain(R);
    expect(() => JSON.parse(out)).not.toThrow();
    expect(findKey(out, KEY)).toBeUndefined();
  });

  it('a match that begins among the hex digits of a \\u escape takes the whole escape', () => {
    // `\ucafe` is one character; a secret beginning "afe1..." is there only to a reader of the raw text.
    const out = redactor('afe1234-secret').redact('{"a":"\\ucafe1234-secret!"}');
    expect(out).toBe(`{"a":"${R}!"}`);
  });

  it('a secret ending in a backslash: the escape it is written with goes with it', () => {
    const secret = 'secret-with\\';
    for (const value of [secret, `${secret}n`, `${secret}"`, `x${secret}\\`]) {
      const out = redactor(secret).redact(JSON.stringify({ a: value }));
      expect(out).toContain(R);
      expect(() => JSON.parse(out), out).not.toThrow();
    }
    // The redactor cannot tell JSON from plain text: there too the backslash takes what it would escape.
    expect(redactor(secret).redact(`${secret}n.`)).toBe(`${R}.`);
  });
});

describe('Redactor: properties', () => {
  // Characters a secret may hold: printable ASCII (escapes' own characters included), Latin, CJK, an emoji.
  const secretChar = fc.constantFrom(...'abcXYZ019_-+/=.:!#$%&*()[]{}"\'\\~@^`|<>?,;é日😀'.match(/./gu) as string[]);
  const secretArb = fc.array(secretChar, { minLength: 8, maxLength: 24 }).map((cs) => cs.join(''));
  const utf8Pct = (c: string, upper: boolean, depth: number): string =>
    [...Buffer.from(c, 'utf8')].map((b) => '%' + '25'.repeat(depth) + b.toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()).join('');
  const encode = (c: string, how: number, upper: boolean, depth: number): string => {
    switch (how) {
      case 0:
        return c;
      case 1:
        return c.split('').map((u) => '\\u' + (upper ? hex4(u).toUpperCase() : hex4(u))).join('');
      case 2:
        return c === '/' || c === '"' || c === '\\' ? '\\' + c : c;
      case 3:
        return utf8Pct(c, upper, depth);
      case 4:
        return `&#${c.codePointAt(0)};`;
      case 5:
        return `&#${upper ? 'X' : 'x'}${(c.codePointAt(0) as number).toString(16)};`;
      default:
        return '\\\\u' + hex4(c.split('')[0] as string) + (c.length > 1 ? '\\\\u' + hex4(c[1] as string) : '');
    }
  };
  const IGNORABLES = [
    '\u0000', '\u0007', '\t', '\n', '\u001b', '\u007f', '\u0085', '\u009b', '\u00ad', '\u061c', '\u180e', '\u200b', '\u200d',
    '\u200f', '\u202e', '\u2060', '\u2066', '\u2069', '\ufeff', '\ufff9', '\u{E0001}', '\u{E0041}', '\u{E007F}', '\u2028',
    '\u2029', '\\u001b', '\\n', '\\t', '\\u200B', '%1B', '%0a', '%C2%AD', '%E2%80%8B', '%251b', '&#27;', '&#x200B;', '&shy;',
    '\u001b[31m', '\u001b]0;t\u0007',
  ];
  const ESC_FORMS = ['\u001b', '\\u001b', '%1B', '%251b', '&#27;'];
  const ESCAPE_OPENERS = '[]PX^_';
  const encodedArb = secretArb.chain((secret) =>
    fc
      .tuple(
        ...[...secret].map((_c, i) =>
          fc.record({
            how: fc.integer({ min: 0, max: 6 }),
            upper: fc.boolean(),
            depth: fc.integer({ min: 0, max: 2 }),
            gap: i === 0 ? fc.constant<string[]>([]) : fc.array(fc.constantFrom(...IGNORABLES), { maxLength: 2 }),
          }),
        ),
      )
      .map((choices) => ({
        secret,
        encoded: [...secret].map((c, i) => {
          const ch = choices[i] as { how: number; upper: boolean; depth: number; gap: string[] };
          // An ESC (in any of its forms) just before [ ] P X ^ _ is no invisible character: with
          // the secret's character it opens an escape sequence (CSI, OSC, ...) that reads on into
          // the characters after it. Such a gap is left out there.
          const gap = ESCAPE_OPENERS.includes(c) ? ch.gap.filter((g) => !ESC_FORMS.includes(g)) : ch.gap;
          return gap.join('') + encode(c, ch.how, ch.upper, ch.depth);
        }).join(''),
      })),
  );
  const word = fc.stringMatching(/^[a-z ]{0,12}$/);

  it('any secret, each character encoded its own way, invisible characters between: replaced whole', () => {
    fc.assert(
      fc.property(encodedArb, word, word, ({ secret, encoded }, before, after) => {
        const out = redactor(secret).redact(`${before} ${encoded} ${after}`);
        // A secret ending in a backslash takes the character it escapes with it.
        const wanted = [`${before} ${R} ${after}`, `${before} ${R}${after}`];
        assert.ok(wanted.includes(out), `expected ${JSON.stringify(wanted)} to include ${JSON.stringify(out)}`);
        assert.equal(findKey(out, secret), undefined);
      }),
      { numRuns: 400 },
    );
  });

  it('an ESC just before [ ] P X ^ _ opens an escape sequence with it: whatever is left, the secret is not in it', () => {
    const key = 'crk_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0';
    const odd = '*😀Zb0b~_Z!%"[😀!,<)日]0';
    const cases: Array<[string, string]> = [
      [key, `crk\u001b_${key.slice(4)}\u0007`],
      [key, `crk%1B_${key.slice(4)}\u001b\\`],
      [key, `crk&#27;_${key.slice(4)}`],
      // Found by the property above before its gaps left these out: an encoded ESC before the
      // secret's ], and an OSC (itself ESC ]) before its last character.
      [odd, '*😀Zb0b~_Z!%"[😀!,<)日%251b]\u001b]0;t\u00070'],
      [odd, '*😀Zb0b~_Z!%"[😀!,<)日\u001b]\u001b]0;t\u00070'],
    ];
    for (const [secret, text] of cases) {
      const out = redactor(secret).redact(`before ${text} after`);
      expect(out, JSON.stringify(text)).toContain(R);
      expect(findKey(out, secret), JSON.stringify(out)).toBeUndefined();
    }
  });

  it('in a JSON document: redacted, still valid JSON, the other values untouched', () => {
    const jsonSafe = encodedArb.filter(({ encoded }) => {
      try {
        JSON.parse(`"${encoded}"`);
        return true;
      } catch {
        return false;
      }
    });
    fc.assert(
      fc.property(jsonSafe, word, ({ secret, encoded }, other) => {
        const doc = `{"before":${JSON.stringify(other)},"echo":"x ${encoded} y","after":[1.0,${JSON.stringify(other)}]}`;
        const out = redactor(secret).redact(doc);
        const parsed = JSON.parse(out) as { before: string; echo: string; after: [number, string] };
        assert.equal(parsed.before, other);
        assert.equal(parsed.after[1], other);
        assert.ok(parsed.echo.includes(R), `expected ${JSON.stringify(parsed.echo)} to contain ${JSON.stringify(R)}`);
        assert.equal(findKey(out, secret), undefined);
        assert.equal(findKey(parsed.echo, secret), undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('text that holds no secret comes back unchanged, whatever escapes and controls it has', () => {
    const noisy = fc.string({ unit: fc.constantFrom('a', 'Z', '1', '\\', 'u', '0', '%', '2', '5', '&', '#', ';', 'x', '\u001b', '[', 'm', '\u200b', '😀', 'é', '"', '/') });
    fc.assert(
      fc.property(noisy, (text) => {
        assert.equal(redactor('QWERTYUIOPASDF').redact(text), text);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(encodedArb, ({ secret, encoded }) => {
        const r = redactor(secret);
        const once = r.redact(`a ${encoded} b ${encoded}`);
        assert.equal(r.redact(once), once);
      }),
      { numRuns: 200 },
    );
  });
});

describe('Redactor: linear time', () => {
  // Inputs made to make a backtracking matcher go quadratic: long partial matches everywhere, each
  // through runs of invisible characters, escapes that could start a match at every position.
  // The work is counted (test/support/linear.ts): the string reads for 100, 200 and 300 repeats.
  const r = redactor('aaaaaaaaaaaaaaab');
  const hostile: Array<[string, (n: number) => string]> = [
    ['partial matches through invisible characters', (n) => 'a\u001b\u200b'.repeat(n)],
    ['partial matches through escaped invisible characters', (n) => 'a\\u001b%1B&#27;'.repeat(n)],
    ['percent signs and backslashes everywhere', (n) => '%25%25\\\\\\u0061'.repeat(n)],
    ['one long run of invisible characters after a partial match', (n) => 'aaaaaaaaaaaaaa' + '\u001b'.repeat(n * 3)],
  ];
  it.each(hostile)('%s: each hundred repeats more cost the same work, however long the text', (_name, make) => {
    const texts = new Map([100, 200, 300].map((size) => [size, make(size)]));
    expectLinearReads((size) => r.redact(texts.get(size) as string), 100);
    const small = texts.get(100) as string;
    expect(r.redact(small)).toBe(small);
  });
});

describe('isIgnorable', () => {
  it('is true for Cc, Cf, Zl, Zp and the tag block, false for what a key is made of', () => {
    for (const cp of [0x00, 0x1b, 0x7f, 0x9b, 0xad, 0x200b, 0x202e, 0x2066, 0xfeff, 0x2028, 0x2029, 0xe0000, 0xe0041, 0xe007f]) {
      expect(isIgnorable(cp), cp.toString(16)).toBe(true);
    }
    for (const c of 'aZ09_-+/=. é日😀') expect(isIgnorable(c.codePointAt(0) as number), c).toBe(false);
  });
});

describe('redactError', () => {
  const secret = 'crk_' + 'Tq4'.repeat(12);
  it('takes the secret out of the message and the stack, in place: the class and its fields stay', () => {
    const redactor = new Redactor();
    redactor.add(secret);
    const error = Object.assign(new TypeError(`GET /api/crawl/${secret} failed`), { exitCode: 3 });
    const out = redactor.redactError(error);
    expect(out).toBe(error);
    expect(error.message).toBe('GET /api/crawl/[redacted] failed');
    expect(error.stack).not.toContain(secret);
    expect(error.exitCode).toBe(3);
  });
  it('an error whose message cannot be set is replaced by one of the redacted message, of the same name', () => {
    const redactor = new Redactor();
    redactor.add(secret);
    const frozen = Object.freeze(new RangeError(`echoed ${secret}`));
    const out = redactor.redactError(frozen) as Error;
    expect(out).not.toBe(frozen);
    expect(out.name).toBe('RangeError');
    expect(out.message).toBe('echoed [redacted]');
  });
  it('what holds no secret, or is no Error, is given back as it is', () => {
    const redactor = new Redactor();
    redactor.add(secret);
    const plain = new Error('nothing here');
    expect(redactor.redactError(plain)).toBe(plain);
    expect(redactor.redactError(`a string ${secret}`)).toBe(`a string ${secret}`);
  });
});
