// npm's prepack and postpack: the packed package.json carries none of the scripts only a clone
// uses. In a clone, `npm ci` runs `prepare` to build; in the tarball, dist/ is already built and
// the script would do nothing for users, while npm 11 asks them to allow it (`npm warn
// install-scripts`). `strip` keeps the manifest as it was in package.json.prepack and removes
// `prepare` (and these two, which name a file the tarball does not hold); `restore` puts the
// manifest back, byte for byte and with its times. npm reads the manifest again after prepack, so it packs the
// stripped one and runs no `prepare` for the pack either; it runs postpack as it first read it.
import { copyFileSync, existsSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { URL } from 'node:url';

const manifest = new URL('../../package.json', import.meta.url);
const kept = new URL('../../package.json.prepack', import.meta.url);
const next = new URL('../../package.json.next', import.meta.url);
const [step] = process.argv.slice(2);

if (step === 'strip') {
  // A pack that stopped before its postpack left the original here: that one is the truth.
  if (existsSync(kept)) renameSync(kept, manifest);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  copyFileSync(manifest, kept);
  // Its times too: a package.json newer than dist/ would make the next test run build again
  // (test/support/fresh-build.ts), after a pack that changed nothing.
  const { atime, mtime } = statSync(manifest);
  utimesSync(kept, atime, mtime);
  for (const name of ['prepare', 'prepack', 'postpack']) delete pkg.scripts[name];
  // Whole or not at all: whatever reads package.json meanwhile (a test) never sees half of it.
  writeFileSync(next, JSON.stringify(pkg, null, 2) + '\n');
  renameSync(next, manifest);
} else if (step === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  process.stderr.write('pack-manifest: strip or restore\n');
  process.exit(2);
}
