import { CONFIG_KEYS } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { printFields } from '../../../io/table.js';
import { shown } from './setting.js';

export type ListOptions = Record<string, never>;

export async function configListRun(deps: Deps, _options: ListOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const values = deps.settings.stored();
  const entries = CONFIG_KEYS.filter((k) => values[k] !== undefined).map((k) => [k, shown(k, values[k] ?? '')] as const);
  if (deps.globals.json) {
    deps.io.stdout.write(JSON.stringify({ profile, ...Object.fromEntries(entries) }) + '\n');
  } else if (entries.length === 0) {
    deps.io.stderr.write(`profile "${profile}" has no settings in ${deps.settings.store.path}\n`);
  } else {
    await printFields(deps.io, entries);
  }
  return ExitCode.ok;
}
