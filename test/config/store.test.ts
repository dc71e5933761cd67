
// Inside a property, node's assert: the checks expect makes, without what vitest's expect adds to
// every call (its state, copied each time), paid hundreds of times a property.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/store.js';
import { CrawlError } from '../../src/errors.js';
import { anyText, outcome } from '../support/arbitraries.js';

const PATH = '/home/u/.config/crawl/config.json';

function failure(text: string): CrawlError {
  try {
    parseConfig(text, PATH);
  } catch (error) {
    if (error instanceof CrawlError) return error;
    throw error;
  }
  throw new Error('parseConfig accepted ' + JSON.stringify(text));
}

describe('parseConfig', () => {
  it('reads profiles with a base URL and a key', () => {
    const text = JSON.stringify({
      profiles: { default: { 'base-url': 'https://a.example/', 'api-key': 'crk_x' }, work: { 'base-url': 'https://b.example/' } },
    });
    expect(parseConfig(text, PATH)).toEqual({
      profiles: { default: { 'base-url': 'https://a.example/', 'api-key': 'crk_x' }, work: { 'base-url': 'https://b.example/' } },
    });
  });

  it('treats an empty file or one without profiles as no settings', () => {
    expect(parseConfig('', PATH)).toEqual({ profiles: {} });
    expect(parseConfig('  \n', PATH)).toEqual({ profiles: {} });
    expect(parseConfig('{}', PATH)).toEqual({ profiles: {} });
  });

  it('drops unknown keys and non-string values rather than trusting them', () => {
    const text = JSON.stringify({ other: 1, profiles: { p: { 'base-url': 42, 'api-key': 'k', colour: 'red' } } });
    expect(parseConfig(text, PATH)).toEqual({ profiles: { p: { 'api-key': 'k' } } });
  });

  it('refuses a file that is not JSON, naming it and how to fix it (exit 1)', () => {
    const error = failure('{"profiles": {');
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(PATH);
    expect(error.hint).toContain(`mv ${PATH} ${PATH}.bak`);
  });

  it('refuses wrong shapes at each level', () => {
    expect(failure('[]').message).toMatch(/does not hold a JSON object/);
    expect(failure('"text"').message).toMatch(/does not hold a JSON object/);
    expect(failure('{"profiles": []}').message).toMatch(/"profiles" is not an object/);
    expect(failure('{"profiles": {"default": "x"}}').message).toMatch(/profile "default" is not an object/);
  });
});

describe('profile names that are Object.prototype keys', () => {
  it('reads "__proto__" and "constructor" as plain names, never as the prototype', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { ConfigStore } = await import('../../src/config/store.js');
    const dir = mkdtempSync(join(tmpdir(), 'crawl-proto-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, '{"profiles":{"__proto__":{"base-url":"https://proto.example/"},"default":{"base-url":"https://d.example/"}}}');
      const store = new ConfigStore(file);
      expect(store.profile('default')).toEqual({ 'base-url': 'https://d.example/' });
      expect(store.profile('constructor')).toEqual({});
      expect(store.profile('toString')).toEqual({});
      expect(store.profile('__proto__')).toEqual({ 'base-url': 'https://proto.example/' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('any text', () => {

  describe('parseConfig (config.json)', () => {
    it('returns profiles of string settings, or throws a CrawlError naming the file (exit 1)', () => {
      const configLike = fc
        .record({ profiles: fc.oneof(fc.anything(), fc.dictionary(fc.string(), fc.oneof(fc.anything(), fc.dictionary(fc.constantFrom('base-url', 'api-key', 'x'), fc.anything())))) }, { requiredKeys: [] })
        .map((v) => JSON.stringify(v));
      fc.assert(
        fc.property(fc.oneof(anyText, configLike), (text) => {
          const result = outcome(() => parseConfig(text, '/cfg/config.json'));
          if ('error' in result) {
            assert.equal(result.error.exitCode, 1);
            assert.ok(result.error.message.includes('/cfg/config.json'), `expected ${JSON.stringify(result.error.message)} to contain "/cfg/config.json"`);
            return;
          }
          for (const profile of Object.values(result.value.profiles)) {
            for (const value of Object.values(profile)) assert.equal(typeof value, 'string');
          }
        }),
        { numRuns: 300 },
      );
    });
  });
});
