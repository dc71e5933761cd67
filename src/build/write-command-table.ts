// A step of `npm run build`, after the emit and before the bundle: rewrites the command table and
// the completion tree (command-table.ts) where the command modules changed, in src/ and in dist/.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type * as TypeScript from 'typescript';
import { commandTable } from './command-table.js';
import { ROOT } from './paths.js';

/** Writes a file whole (renamed into place: a type check reading it meanwhile sees the old or the new). */
function replace(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

// Through require: TypeScript is CommonJS (as src/build/emit.mjs loads it).
const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
const changed: string[] = [];
for (const { path, text } of await commandTable()) {
  let was = '';
  try {
    was = readFileSync(path, 'utf8');
  } catch {
    // Not there yet.
  }
  if (was === text) continue;
  replace(path, text);
  // The emitted copy too: the man pages and docs are made from dist/ after this step.
  const emitted = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  replace(join(ROOT, 'dist', relative(join(ROOT, 'src'), path)).replace(/\.ts$/, '.js'), emitted);
  changed.push(relative(ROOT, path));
}
process.stdout.write(`command table: ${changed.length === 0 ? 'as the command modules declare' : `${changed.join(', ')} rewritten from the command modules`}\n`);
