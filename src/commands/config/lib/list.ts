import { describeSource, type Source } from '../../../config/settings.js';
import { CONFIG_KEYS, type ConfigKey } from '../../../config/store.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeJson } from '../../../io/json.js';
import { printFields } from '../../../io/table.js';
import { sanitize } from '../../../text/sanitize.js';
import { shown } from './setting.js';

export type ListOptions = Record<string, never>;

interface Row {
  name: 'profile' | ConfigKey;
  value: string;
  source: Source;
  /** The profile's own value, when a flag or a variable wins over it. */
  shadowed?: string | undefined;
}

/**
 * What every command of this run would use, and where each value comes from (flag, environment,
 * config file, default), as `auth status` says it: the profile first, then each setting the
 * table in config/setting-names.ts has that something sets. A secret is masked.
 */
export async function configListRun(deps: Deps, _options: ListOptions): Promise<number> {
  const profile = deps.settings.profile();
  const stored = deps.settings.stored();
  const rows: Row[] = [{ name: 'profile', value: profile.value, source: profile.source }];
  for (const name of CONFIG_KEYS) {
    const resolved = deps.settings.resolve(name);
    if (resolved === undefined) continue;
    const own = stored[name];
    const shadowed = resolved.source !== 'config' && own !== undefined && own !== resolved.value ? shown(name, own) : undefined;
    rows.push({ name, value: shown(name, resolved.value), source: resolved.source, shadowed });
  }
  if (deps.globals.json) {
    const values = Object.fromEntries(rows.map((row) => [row.name, row.value]));
    const sources = Object.fromEntries(rows.map((row) => [row.name, row.source]));
    const shadowed = Object.fromEntries(rows.flatMap((row) => (row.shadowed === undefined ? [] : [[row.name, row.shadowed]])));
    writeJson(deps.io, JSON.stringify({ ...values, sources, overridden: shadowed }));
    return ExitCode.ok;
  }
  if (!deps.io.stdoutIsTTY) {
    // name, value, source: `cut -f2` still gives the values.
    deps.io.stdout.write(rows.map((row) => `${row.name}\t${sanitize(row.value)}\t${row.source}\n`).join(''));
  } else {
    await printFields(
      deps.io,
      rows.map((row) => {
        const from = row.source === 'default' ? 'the default' : `from ${row.name === 'profile' ? describeProfileSource(row.source) : describeSource(row.source, row.name)}`;
        const under = row.shadowed === undefined ? '' : `; the profile has ${sanitize(row.shadowed)}`;
        return [row.name, `${sanitize(row.value)} (${from}${under})`];
      }),
    );
  }
  if (rows.length === 1) deps.io.stderr.write(`profile "${profile.value}" has no settings in ${deps.settings.store.path}\n`);
  return ExitCode.ok;
}

function describeProfileSource(source: Source): string {
  return source === 'flag' ? 'the --profile flag' : 'CRAWL_PROFILE';
}
