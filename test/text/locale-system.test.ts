// Number grouping when the environment names no locale (src/text/locale.ts): Windows sets no
// LC_*/LANG, so the system's own locale (Intl's, from the region settings) is used, given here.
import { describe, expect, it } from 'vitest';
import { groupDigits, numberLocale, systemLocale } from '../../src/text/locale.js';

describe('no LC_ALL, LC_NUMERIC or LANG', () => {
  it.each([
    ['de-DE', '1.234.567'],
    ['fr-FR', '1\u202f234\u202f567'],
    ['en-IN', '12,34,567'],
    ['en-US', '1,234,567'],
  ])('the system locale %s groups 1234567 as %s', (system, grouped) => {
    expect(numberLocale({}, system)).toBe(system);
    expect(groupDigits({}, system)(1234567)).toBe(grouped);
  });

  it('an empty variable counts as unset; a set one wins over the system\'s', () => {
    expect(numberLocale({ LANG: '' }, 'de-DE')).toBe('de-DE');
    expect(numberLocale({ LANG: 'en_US.UTF-8' }, 'de-DE')).toBe('en-US');
    expect(numberLocale({ LC_ALL: 'C' }, 'de-DE')).toBe('en-US');
  });

  it('what the system gives is a locale this Node knows; nonsense falls back to en-US', () => {
    expect(Intl.NumberFormat.supportedLocalesOf([systemLocale()])).toHaveLength(1);
    expect(numberLocale({}, 'not a tag!')).toBe('en-US');
  });
});

describe('groupDigits', () => {
  it('looks the locale up only when it formats its first number: a command that prints none pays nothing for it', () => {
    const read: PropertyKey[] = [];
    const env = new Proxy({} as Record<string, string | undefined>, { get: (_, name) => (read.push(name), undefined) });
    const count = groupDigits(env, 'en-US');
    expect(read).toEqual([]);
    expect(count(1234567)).toBe('1,234,567');
    expect(read).toEqual(expect.arrayContaining(['LC_ALL', 'LANG']));
  });
});

