import { homedir } from 'node:os';
import { join } from 'node:path';

/** $CRAWL_CONFIG_DIR, else $XDG_CONFIG_HOME/crawl, else ~/.config/crawl. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.CRAWL_CONFIG_DIR) return env.CRAWL_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'crawl');
  return join(env.HOME || homedir(), '.config', 'crawl');
}

export function configFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}
