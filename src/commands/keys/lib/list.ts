import { identifyKeyInUse, listKeys, mayBeInUse, type ApiKey } from '../../../api/keys.js';
import type { Deps } from '../../../deps.js';
import { ExitCode } from '../../../exit-codes.js';
import { relativeTime, rfc3339 } from '../../../text/format.js';
import { printTable } from '../../../io/table.js';
import { writeJson } from '../../../io/json.js';
import { crawlCommand } from '../../shared/suggest.js';
import { keyLabel } from '../../../api/key-label.js';

const IN_USE = ' (in use)';
const MAYBE_IN_USE = ' (in use?)';

/**
 * GET /api/keys. People get a table with relative times and the key in use marked after its
 * name; scripts get tab-separated rows (id, name, keyPrefix, lastUsedAt, createdAt, in use as
 * true/false, or `unknown` for each key that cannot be told apart from another) or, with --json,
 * the body as received.
 */
export type ListOptions = Record<string, never>;

export async function keysListRun(deps: Deps, _options: ListOptions): Promise<number> {
  const http = await deps.http();
  const list = await listKeys(http);
  if (deps.globals.json) {
    writeJson(deps.io, list.raw);
    return ExitCode.ok;
  }
  const found = identifyKeyInUse(list.keys, (await deps.settings.apiKey(deps.signal))?.value);
  const candidates = new Set(mayBeInUse(found));
  const certain = found.kind === 'unique';
  if (found.kind === 'ambiguous') {
    const labels = found.candidates.map(keyLabel).join(', ');
    deps.io.stderr.write(
      deps.redactor.redact(`crawl: warning: the key in use cannot be told apart: the prefixes of ${found.candidates.length} listed keys begin it (${labels}); each is marked as possibly in use\n`),
    );
  }
  if (!deps.io.stdoutIsTTY) {
    const inUseCell = (k: ApiKey): string => (candidates.has(k) ? (certain ? 'true' : 'unknown') : 'false');
    const rows = list.keys.map((k) => [k.id, k.name, k.keyPrefix, rfc3339(k.lastUsedAt), rfc3339(k.createdAt), inUseCell(k)]);
    await printTable(deps.io, [], rows);
    return ExitCode.ok;
  }
  if (list.keys.length === 0) {
    deps.io.stderr.write(`No active keys. Create one with \`${crawlCommand(deps, ['keys', 'create'])} <name>\`.\n`);
    return ExitCode.ok;
  }
  const style = await deps.style();
  const now = deps.clock.now();
  const mark = certain ? IN_USE : MAYBE_IN_USE;
  const marked = list.keys.map((k) => candidates.has(k));
  const rows = list.keys.map((k) => [k.id, typeof k.name === 'string' ? k.name : '', k.keyPrefix, lastUsed(k, now), timeForPeople(k.createdAt, now)]);
  const keys = list.keys;
  await printTable(deps.io, [
    { header: 'ID' },
    {
      header: 'NAME',
      truncate: true,
      suffix: (row) => (marked[row] ? mark : ''),
      // By row, not by text: a name that itself ends in "(in use)" is not coloured as the key in use.
      style: (text, row) => (marked[row] ? text.slice(0, -mark.length) + style.green(mark) : text),
    },
    { header: 'PREFIX' },
    {
      header: 'LAST USED',
      style: (text) => (text === 'never' ? style.dim(text) : text),
      compact: (row) => relativeOnly(keys[row]?.lastUsedAt, now) ?? 'never',
      optional: true,
    },
    { header: 'CREATED', compact: (row) => relativeOnly(keys[row]?.createdAt, now) ?? '', optional: true },
  ], rows);
  return ExitCode.ok;
}

function lastUsed(key: ApiKey, now: number): string {
  return timeForPeople(key.lastUsedAt, now) || 'never';
}

/** ISO 8601 with a relative hint, as the contract shows times to people; whole seconds are enough for them. */
function timeForPeople(value: unknown, now: number): string {
  if (typeof value !== 'string' || value === '') return '';
  const hint = relativeTime(value, now);
  return hint === undefined ? value : `${rfc3339(value).replace(/\.\d+Z$/, 'Z')} (${hint})`;
}

/** The relative part alone, for a terminal too narrow for both; the time itself when it does not parse. */
function relativeOnly(value: unknown, now: number): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return relativeTime(value, now) ?? value;
}
