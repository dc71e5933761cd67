// Every decision that depends on the operating system, in one place, as functions of a Platform
// value: the process's own (platform/host.ts's hostPlatform(), given by src/main.ts through
// Deps) or one a test makes, so that each system's branch runs in the tests on any system.
import { posix, win32, type PlatformPath } from 'node:path';
import type { Env } from './env.js';

/** The system a run is on, as far as crawl's behaviour depends on it. */
export interface Platform {
  /** process.platform: 'linux', 'darwin', 'win32', ... */
  readonly os: NodeJS.Platform;
  /** os.homedir(): the user's home (their profile folder on Windows); '' where none is known. */
  readonly home: string;
  /**
   * The script the process was started with (process.argv[1]: `/usr/local/bin/crawl`, or
   * `…/bin/crawl.js` when run by node from a clone); none known: crawl is named `crawl`.
   */
  readonly script?: string | undefined;
  /** The user this process runs as (process.getuid()); undefined where there is none (Windows). */
  readonly uid?: number | undefined;
  /**
   * Where the system keeps this user's runtime files (systemd's `/run/user/<uid>`, whose `bus`
   * socket is the desktop session's bus): named to a shell that lacks it (SSH). Undefined: none known.
   */
  readonly runtimeDir?: string | undefined;
  /**
   * The folder the native keyring binding (@napi-rs/keyring, macOS and Windows) is required from;
   * undefined: where crawl itself is installed, as npm put it.
   */
  readonly keyringBindingFrom?: string | undefined;
}

export function isWindows(platform: Pick<Platform, 'os'>): boolean {
  return platform.os === 'win32';
}

/** The path rules of the platform (backslashes and drive letters on Windows), whatever runs the code. */
export function pathsOf(platform: Pick<Platform, 'os'>): PlatformPath {
  return isWindows(platform) ? win32 : posix;
}

/**
 * The most bytes one write puts into a pipe whole (POSIX's PIPE_BUF): 4096 on Linux; 512 on
 * macOS and the BSDs, which is also POSIX's minimum, so it is the value for any system whose own
 * is not known here (a Windows pipe promises none, and smaller pieces cost nothing but writes).
 */
export function pipeBufferSize(platform: Pick<Platform, 'os'>): number {
  return platform.os === 'linux' || platform.os === 'android' ? 4096 : 512;
}

/**
 * `env` without the variables named: by exact name on POSIX, in any case on Windows, where
 * `crawl_api_key` and `CRAWL_API_KEY` are one variable (a child would see it under either).
 */
export function envWithout(env: Env, names: readonly string[], platform: Pick<Platform, 'os'>): Record<string, string> {
  const fold = (name: string): string => (isWindows(platform) ? name.toUpperCase() : name);
  const dropped = new Set(names.map(fold));
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !dropped.has(fold(name))) kept[name] = value;
  return kept;
}

/**
 * An environment variable's value, by any case of its name on Windows (where the process's
 * environment is case-insensitive, but a copy of it, as a test or a wrapper passes, may not be).
 */
export function envValue(env: Env, name: string, platform: Pick<Platform, 'os'>): string | undefined {
  if (env[name] !== undefined || !isWindows(platform)) return env[name];
  const upper = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) if (key.toUpperCase() === upper && value !== undefined) return value;
  return undefined;
}

/**
 * The shell that runs a user's command line (`keys rotate --to-command`, the key stores'
 * commands): what Node's `shell: true` starts, named for messages and docs.
 */
export function commandShell(platform: Pick<Platform, 'os'>, env: Env): string {
  if (isWindows(platform)) return envValue(env, 'ComSpec', platform) || 'cmd.exe';
  return platform.os === 'android' ? '/system/bin/sh' : '/bin/sh';
}

/**
 * A program of Windows itself (`icacls`, `taskkill`) by its full path in `%SystemRoot%\System32`:
 * started by its bare name, it would be looked for in the current folder first, so a repository
 * holding an `icacls.exe` would run that instead. `C:\Windows` where SystemRoot is not set.
 */
export function windowsProgram(name: string, env: Env): string {
  const root = envValue(env, 'SystemRoot', { os: 'win32' })?.replace(/[\\/]+$/, '') || 'C:\\Windows';
  return win32.join(root, 'System32', `${name}.exe`);
}

/**
 * The folder a user's command line (a key command, `--to-command`) starts in, when it cannot be
 * crawl's own current folder `cwd`: cmd.exe refuses a UNC one (`\\wsl$\…`, `\\server\share\…`),
 * warns on stderr and runs in %SystemRoot%. From there crawl starts it in the user's profile
 * folder instead, where a new console starts and where a command that writes a file by a relative
 * name can (a secret manager's CLI reads no folder at all); should that be a UNC path too, in
 * %SystemRoot%, as cmd would, without the warning. Undefined: crawl's own folder, as everywhere else.
 */
export function commandFolder(platform: Pick<Platform, 'os'> & { readonly home?: string }, cwd: string, env: Env): string | undefined {
  if (!isWindows(platform) || !isUncPath(cwd)) return undefined;
  const local = (path: string | undefined): path is string => path !== undefined && /^[A-Za-z]:[\\/]/.test(path);
  if (local(platform.home)) return platform.home;
  const systemRoot = envValue(env, 'SystemRoot', platform);
  return local(systemRoot) ? systemRoot : 'C:\\Windows';
}

/** `\\server\share\…`, `\\wsl$\…`, `\\?\UNC\…`, or with forward slashes: no folder cmd.exe runs in. */
function isUncPath(path: string): boolean {
  return /^[\\/]{2}/.test(path);
}

/** The keys that end typed input at a terminal: Ctrl-Z then Enter in a Windows console. */
export function endOfInputKeys(platform: Pick<Platform, 'os'>): string {
  return isWindows(platform) ? 'Ctrl-Z, then Enter' : 'Ctrl-D';
}

/**
 * The signals that ask crawl to stop as SIGTERM does: SIGHUP (the terminal or console window
 * closed) everywhere; on Windows also SIGBREAK (Ctrl-Break), since SIGTERM never arrives there.
 */
export function terminatingSignals(platform: Pick<Platform, 'os'>): NodeJS.Signals[] {
  return isWindows(platform) ? ['SIGTERM', 'SIGHUP', 'SIGBREAK'] : ['SIGTERM', 'SIGHUP'];
}

/**
 * The words that start crawl again as this run was started, for a command crawl prints to be run
 * as printed in another shell. `crawl` when the `crawl` found on PATH is this very crawl
 * (`thisCrawlOnPath`, which platform/crawl-on-path.ts looks up: a global install, `npm link`);
 * else, for a script inside a `node_modules` folder (a project's install run by its npm script,
 * npx's cache, a global install whose folder is not on PATH), `npx @webcrawl/cli`, which runs this
 * package's one bin and finds a project's own install first (never `npx crawl`: without a local
 * install, npx fetches whatever package has that name), at this version; else (a clone) node and
 * the script's path.
 */
export function crawlLauncher(platform: Pick<Platform, 'os' | 'script'>, thisCrawlOnPath: boolean, version: string): string[] {
  const script = platform.script;
  if (script === undefined || script === '' || thisCrawlOnPath) return ['crawl'];
  // This very version: a project's own install when it is that one, else npx fetches that one,
  // never whatever is newest.
  return isInstalledScript(platform, script) ? ['npx', `${PACKAGE_NAME}@${version}`] : ['node', script];
}

/** The package's name, as npx takes it. */
export const PACKAGE_NAME = '@webcrawl/cli';

/** Whether `path` is inside a `node_modules` folder (any case on Windows): a package npm installed. */
export function isInstalledScript(platform: Pick<Platform, 'os'>, path: string): boolean {
  const windows = isWindows(platform);
  return path.split(windows ? /[\\/]/ : '/').some((part) => (windows ? part.toLowerCase() : part) === 'node_modules');
}

/**
 * The command that removes what is at `path` (a folder with all it holds, or a file), as words for
 * a shell: `rm` (`rm -r`) for POSIX shells, Git Bash's on Windows included (MSYS would turn `/c`
 * into a path); for cmd and PowerShell, cmd's `del` and `rmdir /s /q` through `cmd /c`, which
 * PowerShell runs as it is too (PowerShell's own `del` is Remove-Item, which reads `[` and `]` in a
 * path as wildcards: it could remove another file).
 */
export function removeCommand(shell: 'posix' | 'windows', path: string, folder: boolean): string[] {
  if (shell === 'windows') return folder ? ['cmd', '/c', 'rmdir', '/s', '/q', path] : ['cmd', '/c', 'del', path];
  return folder ? ['rm', '-r', path] : ['rm', path];
}
