// Whether dist/ is older than what the build reads, by modification times: `npm test` builds only
// then (src/build/build-if-stale.mjs), and so do the tests that run the build's output
// (test/support/fresh-build.ts). Plain JavaScript: it runs before anything is built.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What the build reads: the sources, the package's own files and its TypeScript settings. */
export const INPUTS = ['src', 'bin', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
/** What it makes that the tests run: the oldest of these dates the build. */
export const OUTPUTS = ['dist/bundle/bundle.pack', 'dist/launch/load-bundle.cjs', 'dist/lib/client.cjs', 'dist/lib/sandbox.cjs', 'dist/man/crawl.1', 'dist/types/client/index.d.ts', 'dist/types-cjs/client/index.d.ts'];

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return { path, ms: 0 };
  if (!stat.isDirectory()) return { path, ms: stat.mtimeMs };
  let best = { path, ms: 0 };
  for (const entry of readdirSync(path)) {
    const found = newest(join(path, entry));
    if (found.ms > best.ms) best = found;
  }
  return best;
}

/** Why the build in `root` is out of date, or undefined when it is not. */
export function staleBecause(root) {
  let oldestOutput = Infinity;
  for (const output of OUTPUTS) {
    const stat = statSync(join(root, output), { throwIfNoEntry: false });
    if (stat === undefined) return `${output} is missing`;
    oldestOutput = Math.min(oldestOutput, stat.mtimeMs);
  }
  const input = INPUTS.map((name) => newest(join(root, name))).reduce((a, b) => (b.ms > a.ms ? b : a));
  return input.ms > oldestOutput ? `${relative(root, input.path)} is newer than the build in dist/` : undefined;
}
