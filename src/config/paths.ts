import { existsSync } from 'node:fs';
import type { Env } from '../platform/env.js';
import { configDir, earlierConfigDirs } from '../platform/folders.js';
import { pathsOf, type Platform } from '../platform/platform.js';

export { configDir };

export function configFile(env: Env, platform: Platform): string {
  return pathsOf(platform).join(configDir(env, platform), 'config.json');
}

export interface ConfigLocation {
  /** The config file to read and write. */
  path: string;
  /** Where it is kept now, when `path` is an earlier version's place that still holds the config. */
  movedTo?: string;
}

/**
 * The config file: where this version keeps it, unless nothing is there yet and an earlier
 * version's place (platform/folders.ts) still holds one: that one is used, so a key stored before
 * still works, and the caller says where it belongs now.
 */
export function locateConfig(env: Env, platform: Platform, exists: (path: string) => boolean = existsSync): ConfigLocation {
  const path = configFile(env, platform);
  if (exists(path)) return { path };
  for (const dir of earlierConfigDirs(env, platform)) {
    const earlier = pathsOf(platform).join(dir, 'config.json');
    if (exists(earlier)) return { path: earlier, movedTo: path };
  }
  return { path };
}

/** What the user is told, once a run, when the config was found where an earlier version kept it. */
export function movedNotice(location: ConfigLocation): string | undefined {
  if (location.movedTo === undefined) return undefined;
  return `using the config file ${location.path}, where an earlier version kept it; crawl now keeps it at ${location.movedTo}: move it there`;
}
