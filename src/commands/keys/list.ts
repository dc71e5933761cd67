import { keyInUse, listKeys, type ApiKey } from '../../api/keys.js';
import type { Context } from '../../cli/context.js';
import { ExitCode } from '../../exit-codes.js';
import { relativeTime, rfc3339 } from '../../output/format.js';
import { printTable } from '../../output/table.js';
import { writeRaw } from '../../output/json.js';

const IN_USE = ' (in use)';

/**
 * GET /api/keys. People get a table with relative times and the key in use marked after its
 * name; scripts get tab-separated rows (id, name, keyPrefix, lastUsedAt, createdAt, in use as
 * true/false) or, with --json, the body as received.
 */
export async function handler(ctx: Context): Promise<number> {
  const http = ctx.http();
  const list = await listKeys(http);
  if (ctx.globals.json) {
    writeRaw(ctx.io.stdout, list.raw);
    return ExitCode.ok;
  }
  const inUse = keyInUse(list.keys, ctx.settings.apiKey()?.value);
  if (!ctx.io.stdoutIsTTY) {
    const rows = list.keys.map((k) => [k.id, k.name, k.keyPrefix, rfc3339(k.lastUsedAt), rfc3339(k.createdAt), String(k === inUse)]);
    await printTable(ctx.io, [], rows);
    return ExitCode.ok;
  }
  if (list.keys.length === 0) {
    ctx.io.stderr.write('No active keys. Create one with `crawl keys create <name>`.\n');
    return ExitCode.ok;
  }
  const style = await ctx.style();
  const now = ctx.now();
  const rows = list.keys.map((k) => [
    k.id,
    `${typeof k.name === 'string' ? k.name : ''}${k === inUse ? IN_USE : ''}`,
    k.keyPrefix,
    lastUsed(k, now),
    created(k, now),
  ]);
  await printTable(ctx.io, [
    { header: 'ID' },
    { header: 'NAME', style: (text) => (text.endsWith(IN_USE) ? text.slice(0, -IN_USE.length) + style.green(IN_USE) : text) },
    { header: 'PREFIX' },
    { header: 'LAST USED', style: (text) => (text === 'never' ? style.dim(text) : text) },
    { header: 'CREATED' },
  ], rows);
  return ExitCode.ok;
}

function lastUsed(key: ApiKey, now: number): string {
  if (typeof key.lastUsedAt !== 'string' || key.lastUsedAt === '') return 'never';
  return relativeTime(key.lastUsedAt, now) ?? key.lastUsedAt;
}

/** ISO 8601 with a relative hint, as the contract shows times to people. */
function created(key: ApiKey, now: number): string {
  if (typeof key.createdAt !== 'string' || key.createdAt === '') return '';
  const hint = relativeTime(key.createdAt, now);
  // Whole seconds are enough for people; scripts get the exact value.
  return hint === undefined ? key.createdAt : `${rfc3339(key.createdAt).replace(/\.\d+Z$/, 'Z')} (${hint})`;
}
