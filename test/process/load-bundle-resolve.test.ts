// The launcher's reading of the bundle's requires (src/launch/load-bundle.cts's resolveIn). The
// loader is CommonJS that vitest does not transform: the built file is tested (`npm run build`),
// as test/process/user-cache.test.ts does; what it loads and caches, in test/process/code-cache.test.ts.
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as LoadBundle from '../../src/launch/load-bundle.cjs';

const { resolveIn } = createRequire(import.meta.url)('../../dist/launch/load-bundle.cjs') as typeof LoadBundle;

describe('resolveIn', () => {
  it('the requires the bundle makes: a file beside, one in chunks/, one up from chunks/', () => {
    expect(resolveIn('main.cjs', './chunks/status-AB12.cjs')).toBe('chunks/status-AB12.cjs');
    expect(resolveIn('chunks/status-AB12.cjs', './chunk-CD34.cjs')).toBe('chunks/chunk-CD34.cjs');
    expect(resolveIn('chunks/status-AB12.cjs', '../main.cjs')).toBe('main.cjs');
    expect(resolveIn('chunks/deep/x.cjs', '../../main.cjs')).toBe('main.cjs');
    expect(resolveIn('main.cjs', '../outside.cjs')).toBe('outside.cjs');
  });

  it('any relative id resolves as a path would, from the folder of the module that requires it', () => {
    const part = fc.constantFrom('a', 'b', 'chunks', 'x.cjs', '.', '..');
    const name = fc.array(fc.constantFrom('a', 'b', 'chunks'), { maxLength: 3 }).map((folders) => [...folders, 'm.cjs'].join('/'));
    const id = fc.tuple(fc.constantFrom('./', '../', './../', '../../'), fc.array(part, { minLength: 1, maxLength: 4 })).map(([lead, parts]) => lead + parts.join('/'));
    fc.assert(
      fc.property(name, id, (from, required) => {
        // What node:path makes of it, with anything above the pack's root dropped.
        const expected = posix.normalize(posix.join('/', posix.dirname(from), required)).slice(1);
        expect(resolveIn(from, required)).toBe(expected === '.' ? '' : expected);
      }),
      { numRuns: 500 },
    );
  });
});
