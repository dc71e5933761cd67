// crawl as npm lays it out, in real folders: the layouts whose `crawl` a shell finds on PATH
// (test/platform/crawl-on-path.test.ts) and that `crawl sandbox` names in its lines.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A file at `path` (its folders made), executable unless told. */
export function scriptFile(path: string, executable = true): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/usr/bin/env node\n');
  chmodSync(path, executable ? 0o755 : 0o644);
  return path;
}

/** npm's global layout on POSIX under `prefix`: the package's script, and a link to it in `<prefix>/bin`. */
export function posixGlobal(prefix: string): { bin: string; script: string; link: string } {
  const script = scriptFile(join(prefix, 'lib', 'node_modules', '@webcrawl', 'cli', 'bin', 'crawl.js'));
  const bin = join(prefix, 'bin');
  mkdirSync(bin, { recursive: true });
  const link = join(bin, 'crawl');
  symlinkSync(script, link);
  return { bin, script, link };
}

/** A project's install: the package under `<project>/node_modules`, and the link npm puts in its `.bin`. */
export function projectInstall(project: string): { dotBin: string; script: string; link: string } {
  const script = scriptFile(join(project, 'node_modules', '@webcrawl', 'cli', 'bin', 'crawl.js'));
  const dotBin = join(project, 'node_modules', '.bin');
  mkdirSync(dotBin, { recursive: true });
  const link = join(dotBin, 'crawl');
  symlinkSync(script, link);
  return { dotBin, script, link };
}

/** The line of each of npm's shims that starts the package's script (`pkg`: another package's name). */
const SHIM_LINES: Record<string, (pkg: string) => string> = {
  'crawl.cmd': (pkg) => `@ECHO off\r\nGOTO start\r\n:start\r\n"%_prog%"  "%dp0%\\node_modules\\${pkg.replace('/', '\\')}\\bin\\crawl.js" %*\r\n`,
  'crawl.ps1': (pkg) => `#!/usr/bin/env pwsh\n& "$basedir/node$exe"  "$basedir/node_modules/${pkg}/bin/crawl.js" $args\n`,
  crawl: (pkg) => `#!/bin/sh\nexec node  "$basedir/node_modules/${pkg}/bin/crawl.js" "$@"\n`,
};

/**
 * npm's global layout on Windows in `dir` (the folder on Path): the shims (as npm writes them,
 * starting `pkg`'s script), and the package below; gives the script.
 */
export function windowsGlobal(dir: string, shims = ['crawl.cmd', 'crawl.ps1', 'crawl'], pkg = '@webcrawl/cli'): string {
  mkdirSync(dir, { recursive: true });
  for (const shim of shims) writeFileSync(join(dir, shim), (SHIM_LINES[shim] ?? (() => ''))(pkg));
  return scriptFile(join(dir, 'node_modules', '@webcrawl', 'cli', 'bin', 'crawl.js'), false);
}
