import type { Context } from '../../app/factory.js';
import { CONFIG_KEYS, type ConfigKey } from '../../config/store.js';
import { CrawlError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { parseBaseUrl } from '../../http/url.js';
import { maskKey } from '../../text/format.js';
import { printFields } from '../../io/table.js';
import { keyDefect } from '../../text/keys.js';

function configKey(name: string | undefined): ConfigKey {
  if ((CONFIG_KEYS as readonly (string | undefined)[]).includes(name)) return name as ConfigKey;
  throw new UsageError(`unknown config key "${name ?? ''}"`, `known keys: ${CONFIG_KEYS.join(', ')}`);
}

/**
 * What `get`/`list` show: the key masked, always (`crawl auth token` prints it raw); a stored key
 * that no command would send is described instead, so no part of it reaches the terminal.
 */
function shown(key: ConfigKey, value: string): string {
  if (key !== 'api-key') return value;
  const defect = keyDefect(value);
  return defect === undefined ? maskKey(value) : `(unusable: it ${defect})`;
}

export async function get(ctx: Context, args: string[]): Promise<number> {
  const key = configKey(args[0]);
  const profile = ctx.settings.profile().value;
  const value = ctx.settings.store.profile(profile)[key];
  if (value === undefined) {
    throw new CrawlError(`${key} is not set in profile "${profile}"`, ExitCode.failure, {
      hint: key === 'api-key' ? 'run `crawl auth login`' : `run \`crawl config set ${key} <value>\``,
    });
  }
  if (ctx.globals.json) ctx.io.stdout.write(JSON.stringify({ profile, key, value: shown(key, value) }) + '\n');
  else ctx.io.stdout.write(shown(key, value) + '\n');
  return ExitCode.ok;
}

export async function set(ctx: Context, args: string[]): Promise<number> {
  const key = configKey(args[0]);
  if (key === 'api-key') {
    throw new UsageError('keys are never taken on the command line', 'store one with `crawl auth login --with-key < keyfile`');
  }
  // Stored as given (validated first), so `get` answers what `set` was told; every command
  // normalises the URL where it uses it.
  const value = (args[1] ?? '').trim();
  parseBaseUrl(value);
  const profile = ctx.settings.profile().value;
  await ctx.settings.store.update(profile, (p) => {
    p[key] = value;
  });
  if (ctx.globals.json) ctx.io.stdout.write(JSON.stringify({ profile, key, value }) + '\n');
  else ctx.io.stderr.write(`Set ${key} of profile "${profile}" to ${value}\n`);
  return ExitCode.ok;
}

export async function unset(ctx: Context, args: string[]): Promise<number> {
  const key = configKey(args[0]);
  const profile = ctx.settings.profile().value;
  const had = ctx.settings.store.profile(profile)[key] !== undefined;
  if (had) {
    await ctx.settings.store.update(profile, (p) => {
      delete p[key];
    });
  }
  if (ctx.globals.json) ctx.io.stdout.write(JSON.stringify({ profile, key, removed: had }) + '\n');
  else ctx.io.stderr.write(had ? `Removed ${key} from profile "${profile}"\n` : `${key} was not set in profile "${profile}"\n`);
  return ExitCode.ok;
}

export async function list(ctx: Context): Promise<number> {
  const profile = ctx.settings.profile().value;
  const values = ctx.settings.store.profile(profile);
  const entries = CONFIG_KEYS.filter((k) => values[k] !== undefined).map((k) => [k, shown(k, values[k] ?? '')] as const);
  if (ctx.globals.json) {
    ctx.io.stdout.write(JSON.stringify({ profile, ...Object.fromEntries(entries) }) + '\n');
  } else if (entries.length === 0) {
    ctx.io.stderr.write(`profile "${profile}" has no settings in ${ctx.settings.store.path}\n`);
  } else {
    printFields(ctx.io, entries);
  }
  return ExitCode.ok;
}

export async function path(ctx: Context): Promise<number> {
  ctx.io.stdout.write(ctx.settings.store.path + '\n');
  return ExitCode.ok;
}
