import type { Env } from '../platform/env.js';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * $CRAWL_CONFIG_DIR, else $XDG_CONFIG_HOME/crawl, else ~/.config/crawl. A relative
 * XDG_CONFIG_HOME is ignored, as the XDG Base Directory spec says: it would put the key in
 * whatever folder the command happens to run in.
 */
export function configDir(env: Env): string {
  if (env.CRAWL_CONFIG_DIR) return env.CRAWL_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) return join(env.XDG_CONFIG_HOME, 'crawl');
  return join(env.HOME || homedir(), '.config', 'crawl');
}

export function configFile(env: Env): string {
  return join(configDir(env), 'config.json');
}
