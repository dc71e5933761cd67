// `npm test`'s build step: `npm run build` when dist/ is older than what the build reads
// (src/build/stale.mjs), else nothing. A fresh clone (CI) always builds; a second `npm test` on
// an unchanged checkout does not spend a core on making the same files again.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, URL } from 'node:url';
import { staleBecause } from './stale.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const why = staleBecause(ROOT);
if (why === undefined) {
  process.stdout.write('build: dist/ is newer than everything the build reads; not built again\n');
} else {
  process.stdout.write(`build: ${why}\n`);
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(build.status ?? 1);
}
