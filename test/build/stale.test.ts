// Whether dist/ is out of date (src/build/stale.mjs: npm test's build step and the process tier's
// set-up ask it), on a made-up checkout: missing, older or newer.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OUTPUTS, staleBecause } from '../../src/build/stale.mjs';
import { tempDir } from '../support/harness.js';

const tmp = tempDir('crawl-fresh-build-');
afterAll(() => tmp.cleanup());
let n = 0;

function file(root: string, path: string, at: number): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), '');
  utimesSync(join(root, path), at, at);
}

/** A checkout whose sources were last changed at `sources` and whose build was made at `built` (s). */
function checkout(sources: number, built: number | undefined): string {
  const root = join(tmp.dir, `root-${++n}`);
  file(root, 'package.json', 1000);
  file(root, 'src/app/run-cli.ts', 1000);
  file(root, 'src/deep/er/module.ts', sources);
  if (built !== undefined) for (const output of OUTPUTS) file(root, output, built);
  return root;
}

describe('staleBecause', () => {
  it('a build made after the last change is current', () => {
    expect(staleBecause(checkout(2000, 3000))).toBeUndefined();
  });

  it('a source changed after the build names the file', () => {
    expect(staleBecause(checkout(4000, 3000))).toBe('src/deep/er/module.ts is newer than the build in dist/');
  });

  it('no build at all names what is missing', () => {
    expect(staleBecause(checkout(2000, undefined))).toBe('dist/bundle/bundle.pack is missing');
  });

  it('the TypeScript settings are read by the build too', () => {
    const root = checkout(2000, 3000);
    file(root, 'tsconfig.json', 4000);
    expect(staleBecause(root)).toBe('tsconfig.json is newer than the build in dist/');
  });

  it('one output older than the sources makes the whole build stale', () => {
    const root = checkout(2000, 3000);
    utimesSync(join(root, 'dist/man/crawl.1'), 1500, 1500);
    expect(staleBecause(root)).toBe('src/deep/er/module.ts is newer than the build in dist/');
  });
});
