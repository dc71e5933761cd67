// The pure rules behind battery-local-trust: what a key may hold, how a path is quoted for a
// shell in a hint, and which owners and modes make a config file untrustworthy.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { distrust } from '../../src/config/file-trust.js';
import { describeChar, keyDefect, trimKeyText } from '../../src/text/keys.js';
import { shellQuote } from '../../src/text/shell.js';

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

describe('shellQuote', () => {
  it('leaves plain paths bare and quotes anything a shell would interpret', () => {
    expect(shellQuote('/home/u/.config/crawl/config.json')).toBe('/home/u/.config/crawl/config.json');
    expect(shellQuote('/tmp/a b')).toBe(`'/tmp/a b'`);
    expect(shellQuote(`it's`)).toBe(`'it'\\''s'`);
    expect(shellQuote('x; rm -rf ~')).toBe(`'x; rm -rf ~'`);
    expect(shellQuote('')).toBe(`''`);
  });

  it('any string (but NUL) pastes into bash as exactly itself', () => {
    const values = fc.sample(fc.string({ unit: fc.constantFrom(...' \'"\\$`!*?[]{}();&|<>~#%=\n\t\u001b', 'a', 'é', '-') }), 300);
    values.push('$(touch /tmp/crawl-pwned)', '`id`', "'; echo hi; '", '~root', '*', '-n');
    const script = `printf '%s\\0' ${values.map(shellQuote).join(' ')}`;
    const out = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(out.status).toBe(0);
    expect(out.stdout.split('\0').slice(0, -1)).toEqual(values);
  });
});

describe('distrust (ssh-style ownership and mode rules)', () => {
  const ME = 1000;
  it('trusts what is mine or root\'s and not writable by group or others', () => {
    for (const uid of [ME, 0]) {
      for (const mode of [0o600, 0o644, 0o400, 0o700, 0o755, 0o711]) {
        expect(distrust({ uid, mode }, 'file', ME)).toBeUndefined();
        expect(distrust({ uid, mode }, 'folder', ME)).toBeUndefined();
      }
    }
  });

  it('refuses a file writable by group or others, whatever else its mode says', () => {
    for (const mode of [0o666, 0o620, 0o602, 0o660, 0o622, 0o1666, 0o4620]) {
      expect(distrust({ uid: ME, mode: 0o100000 | mode }, 'file', ME)).toEqual({ reason: 'writable', mode });
    }
  });

  it('refuses a folder writable by group or others unless it is sticky', () => {
    for (const mode of [0o777, 0o770, 0o775, 0o757, 0o730, 0o720]) {
      expect(distrust({ uid: ME, mode: 0o40000 | mode }, 'folder', ME)).toEqual({ reason: 'writable', mode });
      expect(distrust({ uid: 0, mode: 0o40000 | 0o1000 | mode }, 'folder', ME)).toBeUndefined();
    }
    // The sticky bit means nothing on a file.
    expect(distrust({ uid: ME, mode: 0o1666 }, 'file', ME)).toEqual({ reason: 'writable', mode: 0o1666 });
  });

  it('refuses what another user owns (root excepted), even with a private mode; root itself trusts only its own', () => {
    expect(distrust({ uid: 1001, mode: 0o600 }, 'file', ME)).toEqual({ reason: 'owner', mode: 0o600, uid: 1001 });
    expect(distrust({ uid: 1001, mode: 0o1777 }, 'folder', ME)).toEqual({ reason: 'owner', mode: 0o1777, uid: 1001 });
    expect(distrust({ uid: ME, mode: 0o600 }, 'file', 0)).toEqual({ reason: 'owner', mode: 0o600, uid: ME });
    expect(distrust({ uid: 0, mode: 0o600 }, 'file', 0)).toBeUndefined();
  });
});
