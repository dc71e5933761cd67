import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';

export type PathOptions = Record<string, never>;

/** The config file's path (it may not exist yet); with --json, `{"path": ...}`. */
export async function configPathRun(deps: Deps, _options: PathOptions): Promise<number> {
  const path = deps.settings.store.path;
  deps.io.stdout.write((deps.globals.json ? JSON.stringify({ path }) : path) + '\n');
  return ExitCode.ok;
}
