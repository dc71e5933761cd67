import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';

export type PathOptions = Record<string, never>;

export async function printPath(deps: Deps, _options: PathOptions): Promise<number> {
  deps.io.stdout.write(deps.settings.store.path + '\n');
  return ExitCode.ok;
}
