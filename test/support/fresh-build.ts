// A vitest global set-up for the tests that run the build's output (the spawned CLI, the man pages,
// the packed package): if anything the build reads is newer than what it made, `npm run build`
// runs first, so a test never passes or fails on an old bundle. A build that fails stops the run,
// naming the command. CRAWL_TEST_BUILD=check only checks (and fails naming the command).
import { spawnSync } from 'node:child_process';
import { staleBecause } from '../../src/build/stale.mjs';
import { ROOT } from './spawn.js';

export default function freshBuild(): void {
  const why = staleBecause(ROOT);
  if (why === undefined) return;
  if (process.env.CRAWL_TEST_BUILD === 'check') throw new Error(`the build is out of date (${why}): run \`npm run build\` first`);
  process.stderr.write(`tests: ${why}: running \`npm run build\` first\n`);
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) throw new Error(`\`npm run build\` failed (${why}): fix it and run it, then the tests`);
}
