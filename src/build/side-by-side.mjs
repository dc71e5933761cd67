// Runs package.json scripts side by side (`npm test`: the build, the type check and the lint),
// each in a shell as npm would, and prints each one's output in one piece when it ends. Fails if
// any of them fails, after all have ended. tsc, ESLint and dependency-cruiser each use one core, and
// none needs another's output: one after another, they would leave the second core idle.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

const names = process.argv.slice(2);
const scripts = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts;
for (const name of names) {
  if (typeof scripts[name] !== 'string') {
    process.stderr.write(`side-by-side: package.json has no script "${name}"\n`);
    process.exit(1);
  }
}

const started = Date.now();
const results = await Promise.all(names.map((name) => run(name, scripts[name])));
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
if (failed.length > 0) {
  process.stderr.write(`side-by-side: ${failed.join(', ')} failed\n`);
  process.exit(1);
}
process.stdout.write(`side-by-side: ${names.join(', ')} passed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

/** `npm run <name>` without npm's own start-up: the script's line in a shell, PATH as npm set it. */
function run(name, line) {
  const chunks = [];
  const began = Date.now();
  const child = spawn(line, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk) => chunks.push(chunk));
  child.stderr.on('data', (chunk) => chunks.push(chunk));
  return new Promise((resolve) => {
    let ended = false;
    const end = (code, why) => {
      if (ended) return;
      ended = true;
      const output = Buffer.concat(chunks).toString('utf8');
      process.stdout.write(`> ${name} (${((Date.now() - began) / 1000).toFixed(1)} s): ${line}\n${output}${output === '' || output.endsWith('\n') ? '' : '\n'}${why}`);
      resolve({ name, code });
    };
    child.on('error', (error) => end(1, `> ${name}: ${error.message}\n`));
    child.on('close', (code, signal) => end(code ?? 1, code === 0 ? '' : `> ${name}: exit ${code ?? signal}\n`));
  });
}
