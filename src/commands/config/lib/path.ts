import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeJson } from '../../../io/json.js';

export type PathOptions = Record<string, never>;

/** The config file's path (it may not exist yet); with --json, `{"path": ...}`. */
export async function configPathRun(deps: Deps, _options: PathOptions): Promise<number> {
  const path = deps.settings.store.path;
  if (deps.globals.json) writeJson(deps.io, JSON.stringify({ path }));
  else deps.io.stdout.write(path + '\n');
  return ExitCode.ok;
}
