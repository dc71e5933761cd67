// Whether the `crawl` a shell finds on PATH is this very crawl, so a printed `crawl ...` runs it.
// Read from the file system when asked (by `crawl sandbox` as it prints its lines), never at
// start-up; crawlLauncher() in platform.ts decides the words from the answer.
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import type { Env } from './env.js';
import { envValue, isInstalledScript, isWindows, pathsOf, type Platform } from './platform.js';

/** Where npm's global layout puts the script of a folder's shims, below that folder (Windows). */
const GLOBAL_SCRIPT = ['node_modules', '@webcrawl', 'cli', 'bin', 'crawl.js'];

/** The names cmd and PowerShell run as `crawl`, and the shim npm writes beside them for other shells. */
const WINDOWS_SHIMS = ['crawl.ps1', 'crawl.cmd', 'crawl.exe', 'crawl.bat', 'crawl.com', 'crawl'];

/**
 * Whether the first `crawl` on `env`'s PATH is the script `platform.script`. POSIX: the first
 * executable `crawl` in a PATH folder, through any links, is the script's own file. Windows, where
 * shims start node with the script instead of linking to it: the first PATH folder holding a
 * `crawl` shim is one whose `node_modules\@webcrawl\cli\bin\crawl.js` is the script (npm's
 * global layout). Folders inside a `node_modules` folder are passed over: npm and npx put their
 * `node_modules/.bin` on the PATH of the run they start, not on the user's other shells' PATH.
 * Relative folders are passed over too (another shell is elsewhere). Any failure: not found.
 */
export function thisCrawlOnPath(platform: Pick<Platform, 'os' | 'script'>, env: Env): boolean {
  const script = platform.script;
  const path = envValue(env, 'PATH', platform);
  if (script === undefined || script === '' || path === undefined) return false;
  const windows = isWindows(platform);
  const own = realpathOf(script);
  if (own === undefined) return false;
  for (const entry of path.split(windows ? ';' : ':')) {
    const folder = windows ? entry.replace(/^"(.*)"$/, '$1') : entry;
    if (folder === '' || !pathsOf(platform).isAbsolute(folder) || isInstalledScript(platform, folder)) continue;
    // Joined with `/`, which Windows takes too, so a test's POSIX folders stand for a Windows PATH.
    const base = folder.replace(/[\\/]+$/, '');
    if (windows) {
      if (!WINDOWS_SHIMS.some((name) => existsSync(`${base}/${name}`))) continue;
      const global = realpathOf(`${base}/${GLOBAL_SCRIPT.join('/')}`);
      return global !== undefined && global.toLowerCase() === own.toLowerCase();
    }
    const candidate = `${base}/crawl`;
    if (!isExecutableFile(candidate)) continue;
    return realpathOf(candidate) === own;
  }
  return false;
}

function realpathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** What a POSIX shell runs for a name: a file (through links) it may execute. */
function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
