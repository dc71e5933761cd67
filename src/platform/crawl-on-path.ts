// Whether the `crawl` a shell finds on PATH is this very crawl, so a printed `crawl ...` runs it.
// Read from the file system when asked (by `crawl sandbox` as it prints its lines), never at
// start-up; crawlLauncher() in platform.ts decides the words from the answer.
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import type { Env } from './env.js';
import { envValue, isInstalledScript, isWindows, PACKAGE_NAME, pathsOf, type Platform } from './platform.js';

/** Where npm's global layout puts the script of a folder's shims, below that folder (Windows). */
const GLOBAL_SCRIPT = ['node_modules', ...PACKAGE_NAME.split('/'), 'bin', 'crawl.js'];

/** What cmd runs for a bare name when PATHEXT is not set (Windows' own default). */
const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC';

/** The shims npm writes for the bin (cmd, PowerShell, and sh for Git Bash and the like). */
const NPM_SHIMS = ['crawl.cmd', 'crawl.ps1', 'crawl'];

/**
 * Whether the first `crawl` on `env`'s PATH is the script `platform.script`. POSIX: the first
 * executable `crawl` in a PATH folder, through any links, is the script's own file. Windows, where
 * shims start node with the script instead of linking to it: the first PATH folder holding
 * anything cmd or PowerShell would run as `crawl` (any PATHEXT extension, or .ps1) holds only
 * npm's shims for this package, and its `node_modules\@webcrawl\cli\bin\crawl.js` is the script
 * (npm's global layout). Folders inside a `node_modules` folder are passed over: npm and npx put
 * their `node_modules/.bin` on the PATH of the run they start, not on the user's other shells'
 * PATH. A relative or empty entry before the match is a folder that depends on where the other
 * shell is: then nothing can be said, and the answer is no. Any failure: not found.
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
    if (folder === '' || !pathsOf(platform).isAbsolute(folder)) return false;
    if (isInstalledScript(platform, folder)) continue;
    // Joined with `/`, which Windows takes too, so a test's POSIX folders stand for a Windows PATH.
    const base = folder.replace(/[\\/]+$/, '');
    if (windows) {
      const extensions = (envValue(env, 'PATHEXT', platform) || DEFAULT_PATHEXT).split(';').filter((ext) => ext !== '');
      const present = [...new Set(['crawl.ps1', ...extensions.map((ext) => `crawl${ext.toLowerCase()}`), 'crawl'])].filter((name) => existsSync(`${base}/${name}`));
      if (present.length === 0) continue;
      if (!present.every((name) => NPM_SHIMS.includes(name) && startsThisPackage(`${base}/${name}`))) return false;
      const global = realpathOf(`${base}/${GLOBAL_SCRIPT.join('/')}`);
      return global !== undefined && global.toLowerCase() === own.toLowerCase();
    }
    const candidate = `${base}/crawl`;
    if (!isExecutableFile(candidate)) continue;
    return realpathOf(candidate) === own;
  }
  return false;
}

/** Whether an npm shim starts this package's script (a shim of another package's `crawl` does not). */
function startsThisPackage(shim: string): boolean {
  try {
    return readFileSync(shim, 'utf8').replace(/\\/g, '/').toLowerCase().includes(GLOBAL_SCRIPT.join('/').toLowerCase());
  } catch {
    return false;
  }
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
