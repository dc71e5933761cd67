import { identifyKeyInUse, listKeys, mayBeInUse, type ApiKey } from '../../../api/keys.js';
import { revokeEach } from '../../../api/revoke-each.js';
import type { Deps } from '../../../deps.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { pathSegmentProblem } from '../../../http/url.js';
import { printTable } from '../../../io/table.js';
import { relativeTime, rfc3339 } from '../../../text/format.js';
import { describeCutoff, spanBefore, type Span } from '../../../text/duration.js';
import { keyLabel } from '../../../api/key-label.js';
import { describeListed, listedTime } from '../../../api/key-times.js';
import { writeJson } from '../../../io/json.js';

/**
 * Revokes the keys nobody has used for a while: those whose last use (or, never used, whose
 * creation) is older than --unused-for, or that were never used (--never-used; with both, never
 * used and created longer ago than that), whose names match --name-glob. Never the key in use, nor
 * one that cannot be told apart from it; a key whose times cannot be read is kept and said so.
 */
export interface PruneOptions {
  /** --unused-for: idle at least this long (months on the calendar). */
  unusedFor: Span | undefined;
  neverUsed: boolean;
  /** Which names may be pruned (the whole name matches); every name when undefined. */
  nameMatches: ((name: string) => boolean) | undefined;
  dryRun: boolean;
  yes: boolean;
}

/** Why a key that fits the name pattern is not pruned, when the reason is worth saying. */
type Kept = { key: ApiKey; reason: string };

interface Selection {
  prune: ApiKey[];
  kept: Kept[];
  /** How many keys the name pattern let through (all of them without one). */
  named: number;
}

export async function keysPruneRun(deps: Deps, options: PruneOptions): Promise<number> {
  const http = await deps.http();
  const { keys } = await listKeys(http);
  const inUse = new Set(mayBeInUse(identifyKeyInUse(keys, (await deps.settings.apiKey(deps.signal))?.value)));
  const now = deps.clock.now();
  const selection = select(keys, inUse, options, now);
  const { prune, kept } = selection;
  const cutoff = cutoffOf(options, now);

  if (options.dryRun || prune.length === 0) {
    await report(deps, selection, options, cutoff);
    return ExitCode.ok;
  }
  const bad = prune.find((key) => pathSegmentProblem(key.id) !== undefined);
  if (bad) {
    throw new CrawlError(`the service lists key ${keyLabel(bad)} with an id that cannot be sent in a URL path: nothing was revoked`, ExitCode.failure);
  }
  await confirm(deps, prune, kept, options.yes, cutoff);

  const style = await deps.style('stderr');
  let worst: number = ExitCode.ok;
  const outcomes = await revokeEach(http, prune, (outcome) => {
    if (!outcome.ok) worst = Math.max(worst, deps.globals.json ? outcome.error.exitCode : deps.report(outcome.error));
    else if (!deps.globals.json) deps.io.stderr.write(`${style.green('✓')} Revoked key ${keyLabel(outcome.key)}\n`);
  });
  const revoked = outcomes.flatMap((o) => (o.ok ? [o.key] : []));
  const failed = outcomes.flatMap((o) => (o.ok ? [] : [{ key: o.key, error: o.error }]));
  if (deps.globals.json) {
    writeJson(
      deps.io,
      JSON.stringify({
        dryRun: false,
        ...cutoffField(cutoff),
        revoked: revoked.map(view),
        failed: failed.map(({ key, error }) => ({ ...view(key), error: error.message, exitCode: error.exitCode })),
        kept: kept.map(keptView),
      }),
    );
  } else {
    writeKept(deps, kept);
    const summary = `${revoked.length} of ${prune.length} ${prune.length === 1 ? 'key' : 'keys'} revoked`;
    deps.io.stderr.write(failed.length === 0 ? `${summary}.\n` : `${summary}; ${failed.length} failed (above).\n`);
  }
  return worst;
}

/** Which keys go, which stay and why (only the reasons a user would want to hear). */
export function select(keys: readonly ApiKey[], inUse: ReadonlySet<ApiKey>, options: PruneOptions, now: number): Selection {
  const prune: ApiKey[] = [];
  const kept: Kept[] = [];
  let named = 0;
  for (const key of keys) {
    const name = typeof key.name === 'string' ? key.name : '';
    if (options.nameMatches && !options.nameMatches(name)) continue;
    named++;
    const last = listedTime(key.lastUsedAt);
    const created = listedTime(key.createdAt);
    let due: boolean;
    if (last === 'unreadable') {
      kept.push({ key, reason: `its lastUsedAt cannot be read (${describeListed(key.lastUsedAt)})` });
      continue;
    }
    const never = last === 'never';
    if (options.neverUsed && !never) continue;
    if (options.unusedFor === undefined) {
      due = never;
    } else {
      // Never used: idle since it was made.
      const since = never ? created : last;
      if (since === 'unreadable' || since === 'never') {
        kept.push({ key, reason: `its createdAt cannot be read (${describeListed(key.createdAt)})` });
        continue;
      }
      due = since <= spanBefore(now, options.unusedFor);
    }
    if (!due) continue;
    if (inUse.has(key)) {
      kept.push({ key, reason: inUse.size === 1 ? 'it is the key in use' : 'it may be the key in use (it cannot be told apart from another)' });
      continue;
    }
    prune.push(key);
  }
  return { prune, kept, named };
}

function view(key: ApiKey): Record<string, unknown> {
  return { id: key.id, name: key.name ?? null, keyPrefix: key.keyPrefix ?? null, lastUsedAt: key.lastUsedAt ?? null, createdAt: key.createdAt ?? null };
}

function keptView({ key, reason }: Kept): Record<string, unknown> {
  return { ...view(key), reason };
}

/** --unused-for's cut-off: a key last used (or, never used, made) at or before it is idle enough. */
interface Cutoff {
  at: number;
  /** For people: `2026-05-27`, with the time when the span is not whole days. */
  text: string;
}

function cutoffOf(options: PruneOptions, now: number): Cutoff | undefined {
  if (options.unusedFor === undefined) return undefined;
  const at = spanBefore(now, options.unusedFor);
  return { at, text: describeCutoff(at, options.unusedFor) };
}

function cutoffField(cutoff: Cutoff | undefined): Record<string, string> {
  return cutoff === undefined ? {} : { notUsedSince: new Date(cutoff.at).toISOString() };
}

/** `, not used since 2026-05-27`, or nothing without --unused-for. */
function since(cutoff: Cutoff | undefined): string {
  return cutoff === undefined ? '' : ` not used since ${cutoff.text}`;
}

/** --dry-run, or nothing to prune: what would go (data, on stdout) and what stays. */
async function report(deps: Deps, selection: Selection, options: PruneOptions, cutoff: Cutoff | undefined): Promise<void> {
  const { prune, kept } = selection;
  const dryRun = options.dryRun;
  if (deps.globals.json) {
    writeJson(deps.io, JSON.stringify({ dryRun, ...cutoffField(cutoff), ...(dryRun ? { wouldRevoke: prune.map(view) } : { revoked: [] }), kept: kept.map(keptView) }));
    return;
  }
  if (prune.length > 0) await listOnStdout(deps, prune);
  writeKept(deps, kept);
  deps.io.stderr.write(
    prune.length === 0
      ? `${nothingToPrune(selection, options, cutoff)}\n`
      : `${prune.length} ${prune.length === 1 ? 'key' : 'keys'}${since(cutoff)} would be revoked (--dry-run: nothing was).\n`,
  );
}

/** Why no key is due, in plain words: what every key (of those the flags ask about) has done. */
function nothingToPrune({ kept, named }: Selection, options: PruneOptions, cutoff: Cutoff | undefined): string {
  if (named === 0) return options.nameMatches ? 'No key to prune: no key has a name that matches --name-glob.' : 'No key to prune: the service lists no key.';
  const every = `every key${options.nameMatches ? ' whose name matches' : ''}${kept.length > 0 ? ', but those kept above,' : ''}`;
  if (cutoff === undefined) return `No key to prune: ${every} has been used.`;
  if (options.neverUsed) return `No key to prune: ${every} has been used, or was created after ${cutoff.text}.`;
  return `No key to prune: ${every} was used after ${cutoff.text} (a key never used: created after it).`;
}

function writeKept(deps: Deps, kept: readonly Kept[]): void {
  for (const { key, reason } of kept) deps.io.stderr.write(`note: kept ${keyLabel(key)}: ${reason}\n`);
}

/** --dry-run's list on stdout: a table on a terminal, tab-separated rows for scripts (id, name, keyPrefix, lastUsedAt, createdAt). */
async function listOnStdout(deps: Deps, keys: readonly ApiKey[]): Promise<void> {
  if (!deps.io.stdoutIsTTY) {
    await printTable(deps.io, [], keys.map((k) => [k.id, k.name, k.keyPrefix, rfc3339(k.lastUsedAt), rfc3339(k.createdAt)]));
    return;
  }
  const now = deps.clock.now();
  await printTable(deps.io, [{ header: 'ID' }, { header: 'NAME', truncate: true }, { header: 'PREFIX' }, { header: 'LAST USED' }, { header: 'CREATED', optional: true }],
    keys.map((k) => [k.id, typeof k.name === 'string' ? k.name : '', k.keyPrefix, when(k.lastUsedAt, now), when(k.createdAt, now)]));
}

function when(value: unknown, now: number): string {
  return typeof value === 'string' && value !== '' ? (relativeTime(value, now) ?? value) : 'never';
}

async function confirm(deps: Deps, prune: readonly ApiKey[], kept: readonly Kept[], yes: boolean, cutoff: Cutoff | undefined): Promise<void> {
  const what = `${prune.length} ${prune.length === 1 ? 'key' : 'keys'}`;
  if (yes) return;
  if (!deps.prompter.available) {
    throw new UsageError(`pruning ${what} needs confirmation: nothing was revoked`, 'pass --yes to revoke without a prompt (as in CI), or --dry-run to see the list');
  }
  // Only on a terminal (the prompter asks nowhere else): what the prompt is about, above it.
  const now = deps.clock.now();
  for (const key of prune) deps.io.stderr.write(`  ${keyLabel(key)}, last used ${when(key.lastUsedAt, now)}\n`);
  writeKept(deps, kept);
  const ok = await deps.prompter.confirm(`Revoke these ${what}${since(cutoff)}? They stop working at once; this cannot be undone.`, 'pass --yes');
  if (!ok) throw new UsageError('not confirmed: nothing was revoked');
}
