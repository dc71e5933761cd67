// Which created keys are usable: what an Authorization header can carry.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeChar, isUsableKey, keyDefect, looksLikeBareKey, trimKeyText } from '../../src/text/keys.js';

const KEY = 'crk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';

describe('isUsableKey', () => {
  it('takes visible ASCII only', () => {
    expect(isUsableKey(KEY)).toBe(true);
    expect(isUsableKey('crk_a-b.c~d!')).toBe(true);
    for (const bad of [
      'crk_ab\u001b[31mcd', // ESC sequence
      'crk_ab\ncd',
      'crk_ab\rcd',
      'crk_ab cd',
      'crk_ab\tcd',
      'crk_ab\u200bcd', // zero-width space
      'crk_ab\u202ecd', // right-to-left override
      'crk_ab\u2066cd', // isolate
      'crk_ab\u{e0041}cd', // tag character
      'crk_abé',
      'crk_ab\u007fcd',
      'crk_ab\u0085cd',
      '',
    ]) {
      expect(isUsableKey(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('what a key may hold', () => {

  describe('keyDefect', () => {
    it('accepts keys of printable ASCII without spaces', () => {
      for (const key of ['crk_AbCdEfGh0123456789', 'a', 'x-._~+/=', '!"#$%&\'()*,:;<>?@[\\]^`{|}']) expect(keyDefect(key)).toBeUndefined();
      fc.assert(fc.property(fc.stringMatching(/^[\x21-\x7e]{1,80}$/), (key) => keyDefect(key) === undefined));
    });

    it('names the first offending character by code point', () => {
      const cases: Array<[string, string]> = [
        ['\n', 'contains a line break (LF, U+000A)'],
        ['\r', 'contains a line break (CR, U+000D)'],
        ['\t', 'contains a tab (U+0009)'],
        [' ', 'contains a space (U+0020)'],
        ['\u0000', 'contains a control character (U+0000)'],
        ['\u001b', 'contains a control character (U+001B)'],
        ['\u007f', 'contains a control character (U+007F)'],
        ['\u0085', 'contains a control character (U+0085)'],
        ['\u009b', 'contains a control character (U+009B)'],
        ['\u00a0', 'contains white space (U+00A0)'],
        ['\u2028', 'contains white space (U+2028)'],
        ['\u200b', 'contains an invisible character (U+200B)'],
        ['\u202e', 'contains an invisible character (U+202E)'],
        ['\ufeff', 'contains an invisible character (U+FEFF)'],
        ['\u{e0041}', 'contains an invisible character (U+E0041)'],
        ['é', 'contains a character that is not plain ASCII (U+00E9)'],
        ['\u{1f511}', 'contains a character that is not plain ASCII (U+1F511)'],
      ];
      for (const [inside, says] of cases) {
        expect(keyDefect(`crk_abc${inside}def`)).toBe(says);
        expect(keyDefect(`${inside}crk_abc`)).toBe(says);
        expect(keyDefect(`crk_abc${inside}`)).toBe(says);
      }
    });

    it('refuses any key holding a character outside printable ASCII, and never repeats the key', () => {
      const bad = fc.integer({ min: 0, max: 0x10ffff }).filter((c) => (c <= 0x20 || c >= 0x7f) && (c < 0xd800 || c > 0xdfff));
      fc.assert(
        fc.property(fc.stringMatching(/^[A-Za-z0-9]{6,20}$/), bad, fc.stringMatching(/^[A-Za-z0-9]{6,20}$/), (head, code, tail) => {
          const defect = keyDefect(head + String.fromCodePoint(code) + tail);
          return defect !== undefined && /^contains [A-Za-z -]+ \((?:(?:LF|CR), )?U\+[0-9A-F]{4,6}\)$/.test(defect) && !defect.includes(head) && !defect.includes(tail);
        }),
      );
    });

    it('describeChar pads code points to four hex digits at least', () => {
      expect(describeChar(0x1b)).toBe('a control character (U+001B)');
      expect(describeChar(0x10ffff)).toMatch(/U\+10FFFF\)$/);
    });
  });

  describe('trimKeyText', () => {
    it('drops spaces, tabs, CR and LF around the key, and nothing inside it', () => {
      expect(trimKeyText(' \t\r\ncrk_a b\r\n \t')).toBe('crk_a b');
      expect(trimKeyText('crk_x\r\n')).toBe('crk_x');
      expect(trimKeyText(' \n ')).toBe('');
    });

    it('leaves other white space and invisible characters around the key, so they are refused', () => {
      for (const around of ['\u00a0', '\ufeff', '\u200b', '\u0085', '\u000b', '\u000c']) {
        expect(trimKeyText(`${around}crk_x${around}`)).toBe(`${around}crk_x${around}`);
      }
    });
  });
});

describe('looksLikeBareKey', () => {
  it('a key pasted where its command goes: the service\'s shape and other services\' tokens', () => {
    for (const text of ['crk_' + 'aB3'.repeat(14), ' ghp_' + 'Zx9'.repeat(12) + ' ', 'sk_live_' + 'q1W'.repeat(8), 'crk_abcdefghijklmnopqrstuvwxyz0123456789abcd', 'xoxb-1234567890-abcdefghij', 'github_pat_11ABCDEFG0_abcdefghijklmnop']) {
      expect(looksLikeBareKey(text), text).toBe(true);
    }
  });
  it('commands and program names are not keys', () => {
    for (const text of ['op read op://ci/crawl/key', 'aws_credential_helper', 'get-key-from-store', 'printf %s crk_' + 'aB3'.repeat(14), '/usr/local/bin/crk_' + 'aB3'.repeat(14), 'K=crk_' + 'aB3'.repeat(14), 'x_Ab1', 'op-read-1']) {
      expect(looksLikeBareKey(text), text).toBe(false);
    }
  });
});
