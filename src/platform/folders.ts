// Where crawl keeps its files on each system, as gh does: the config in %APPDATA% on Windows
// (roaming with the user's profile) and in the XDG config folder elsewhere (~/.config/crawl, on
// macOS too); what is only this machine's (the recent job ids) in %LOCALAPPDATA% on Windows and
// the XDG state folder elsewhere. An XDG variable set to an absolute path wins on every system,
// as it does for gh; a relative one is ignored, as the XDG spec says (it would put the files in
// whatever folder the command runs in). On Windows HOME is not read: PowerShell and cmd do not set
// it, and MSYS2, Cygwin or a corporate policy set it differently per shell, so one shell would
// not find the key another stored.
import type { Env } from './env.js';
import { envValue, isWindows, pathsOf, type Platform } from './platform.js';

/** $CRAWL_CONFIG_DIR, else $XDG_CONFIG_HOME/crawl, else %APPDATA%\crawl (Windows) or ~/.config/crawl. */
export function configDir(env: Env, platform: Platform): string {
  const path = pathsOf(platform);
  if (env.CRAWL_CONFIG_DIR) return env.CRAWL_CONFIG_DIR;
  const xdg = absolute(env.XDG_CONFIG_HOME, platform);
  if (xdg !== undefined) return path.join(xdg, 'crawl');
  if (isWindows(platform)) {
    const appData = absolute(envValue(env, 'APPDATA', platform), platform);
    return appData !== undefined ? path.join(appData, 'crawl') : path.join(profileFolder(env, platform), 'AppData', 'Roaming', 'crawl');
  }
  return path.join(env.HOME || platform.home, '.config', 'crawl');
}

/**
 * Folders where an earlier crawl kept the config on this system and the current rule does not
 * (Windows: `~\.config\crawl`, by HOME or by the profile folder), for a config still there to be
 * read. None when the folder is chosen by CRAWL_CONFIG_DIR or XDG_CONFIG_HOME, which meant the
 * same then.
 */
export function earlierConfigDirs(env: Env, platform: Platform): string[] {
  if (!isWindows(platform) || env.CRAWL_CONFIG_DIR || absolute(env.XDG_CONFIG_HOME, platform) !== undefined) return [];
  const path = pathsOf(platform);
  const homes = [envValue(env, 'HOME', platform), platform.home].filter((h): h is string => h !== undefined && h !== '');
  const current = configDir(env, platform).toLowerCase();
  const dirs: string[] = [];
  for (const home of homes) {
    const dir = path.join(home, '.config', 'crawl');
    if (dir.toLowerCase() !== current && !dirs.some((d) => d.toLowerCase() === dir.toLowerCase())) dirs.push(dir);
  }
  return dirs;
}

/**
 * The folder for what this machine keeps between runs (the recent job ids): $XDG_STATE_HOME/crawl,
 * else %LOCALAPPDATA%\crawl\state (Windows) or ~/.local/state/crawl; undefined when no home is known.
 */
export function stateDir(env: Env, platform: Platform): string | undefined {
  const path = pathsOf(platform);
  const xdg = absolute(env.XDG_STATE_HOME, platform);
  if (xdg !== undefined) return path.join(xdg, 'crawl');
  if (isWindows(platform)) {
    const local = localAppData(env, platform);
    return local === undefined ? undefined : path.join(local, 'crawl', 'state');
  }
  const home = env.HOME || platform.home;
  return home ? path.join(home, '.local', 'state', 'crawl') : undefined;
}

/** %LOCALAPPDATA%, else the profile's AppData\Local; undefined when neither is known. */
function localAppData(env: Env, platform: Platform): string | undefined {
  const local = absolute(envValue(env, 'LOCALAPPDATA', platform), platform);
  if (local !== undefined) return local;
  const profile = profileFolder(env, platform);
  return profile ? pathsOf(platform).join(profile, 'AppData', 'Local') : undefined;
}

/** The user's profile folder on Windows: os.homedir()'s answer, else %USERPROFILE%. */
function profileFolder(env: Env, platform: Platform): string {
  return platform.home || envValue(env, 'USERPROFILE', platform) || '';
}

function absolute(value: string | undefined, platform: Platform): string | undefined {
  return value && pathsOf(platform).isAbsolute(value) ? value : undefined;
}
