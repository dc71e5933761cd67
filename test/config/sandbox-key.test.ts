// The sandbox's bootstrap key kept per port: made once, read back, never taken from a damaged or
// foreign file, and said plainly when it cannot be kept.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptSandboxKey } from '../../src/config/sandbox-key.js';
import type { Platform } from '../../src/platform/platform.js';
import { tempDir } from '../support/harness.js';

/** A home that is never written: every case names its folder with XDG_STATE_HOME. */
const platform: Platform = { os: 'linux', home: '/nonexistent-home' };

let tmp: { dir: string; cleanup: () => void };
beforeAll(() => {
  tmp = tempDir('crawl-kept-key-');
});
afterAll(() => tmp.cleanup());

describe('keptSandboxKey', () => {
  it('makes a key for a port once, then gives it back; each port its own', () => {
    const env = { XDG_STATE_HOME: join(tmp.dir, 'a') };
    const first = keptSandboxKey(env, platform, 8787);
    expect(first).toMatchObject({ made: true, key: expect.stringMatching(/^crk_[A-Za-z0-9]{40}$/) });
    expect(keptSandboxKey(env, platform, 8787)).toEqual({ ...first, made: false });
    expect(keptSandboxKey(env, platform, 8788).key).not.toBe(first.key);
  });

  it('ignores entries that are not a port and a key of the sandbox\'s shape, and keeps the good ones', () => {
    const dir = join(tmp.dir, 'b', 'crawl');
    mkdirSync(dir, { recursive: true });
    const good = `crk_${'G'.repeat(40)}`;
    writeFileSync(join(dir, 'sandbox-keys.json'), JSON.stringify({ 8787: good, 8788: 'short', x: good, 8789: 42 }));
    const env = { XDG_STATE_HOME: join(tmp.dir, 'b') };
    expect(keptSandboxKey(env, platform, 8787)).toMatchObject({ key: good, made: false });
    const made = keptSandboxKey(env, platform, 8788);
    expect(made.key).not.toBe('short');
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'sandbox-keys.json'), 'utf8')) as object).sort()).toEqual(['8787', '8788']);
    writeFileSync(join(dir, 'sandbox-keys.json'), 'not json');
    expect(keptSandboxKey(env, platform, 8787)).toMatchObject({ made: true });
  });

  it('no home to keep it in, or a folder that cannot be written: no key, and why', () => {
    expect(keptSandboxKey({}, { os: 'linux', home: '' }, 8787)).toEqual({ key: undefined, why: 'no home folder to keep it in' });
    const locked = join(tmp.dir, 'locked');
    mkdirSync(join(locked, 'crawl'), { recursive: true });
    chmodSync(join(locked, 'crawl'), 0o500);
    try {
      const r = keptSandboxKey({ XDG_STATE_HOME: locked }, platform, 8787);
      // root writes anywhere: then the key is kept, as it would be for anyone with the right.
      if (r.key === undefined) expect(r.why).toMatch(/sandbox-keys\.json cannot be written \(EACCES\)$/);
      else expect(r.made).toBe(true);
    } finally {
      chmodSync(join(locked, 'crawl'), 0o700);
    }
  });
});
