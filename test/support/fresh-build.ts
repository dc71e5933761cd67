// A vitest global set-up for the tests that run the build's output (the spawned CLI, the man pages,
// the packed package): if anything the build reads is newer than what it made, `npm run build`
// runs first, so a test never passes or fails on an old bundle. A build that fails stops the run,
// naming the command. CRAWL_TEST_BUILD=check only checks (and fails naming the command).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './spawn.js';

/** What the build reads: the sources and the package's own files. */
const INPUTS = ['src', 'bin', 'package.json', 'package-lock.json', 'tsconfig.build.json'];
/** What it makes that the tests run: the oldest of these dates the build. */
const OUTPUTS = ['dist/bundle/bundle.pack', 'dist/launch/load-bundle.cjs', 'dist/lib/client.cjs', 'dist/lib/sandbox.cjs', 'dist/man/crawl.1', 'dist/types/client/index.d.ts'];

function newest(path: string): { path: string; ms: number } {
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

/** Why the build is out of date, or undefined when it is not. */
export function staleBecause(root = ROOT): string | undefined {
  let oldestOutput = Infinity;
  for (const output of OUTPUTS) {
    const stat = statSync(join(root, output), { throwIfNoEntry: false });
    if (stat === undefined) return `${output} is missing`;
    oldestOutput = Math.min(oldestOutput, stat.mtimeMs);
  }
  const input = INPUTS.map((name) => newest(join(root, name))).reduce((a, b) => (b.ms > a.ms ? b : a));
  return input.ms > oldestOutput ? `${relative(root, input.path)} is newer than the build in dist/` : undefined;
}

export default function freshBuild(): void {
  const why = staleBecause();
  if (why === undefined) return;
  if (process.env.CRAWL_TEST_BUILD === 'check') throw new Error(`the build is out of date (${why}): run \`npm run build\` first`);
  process.stderr.write(`tests: ${why}: running \`npm run build\` first\n`);
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) throw new Error(`\`npm run build\` failed (${why}): fix it and run it, then the tests`);
}
