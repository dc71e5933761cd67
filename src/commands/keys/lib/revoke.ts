import { identifyKeyInUse, listKeys, mayBeInUse, type ApiKey } from '../../../api/keys.js';
import { revokeEach } from '../../../api/revoke-each.js';
import type { Deps } from '../../../deps.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { pathSegmentProblem } from '../../../http/url.js';
import { sanitize } from '../../../text/sanitize.js';
import { crawlCommand } from '../../shared/suggest.js';
import { keyLabel } from '../../../api/key-label.js';
import { isKnownKeyOrShape, looksLikeFullKey, resolveKey } from '../../../api/key-match.js';
import { writeJson } from '../../../io/json.js';

/**
 * DELETE /api/keys/:id for each argument (an id, or a unique keyPrefix prefix or name). Every argument is
 * resolved, and the key in use and the confirmation are checked, before the first DELETE: a
 * mistake on the command line revokes nothing. Each DELETE is sent once.
 */
export interface RevokeOptions {
  ids: string[];
  yes: boolean;
  force: boolean;
}

export async function keysRevokeRun(deps: Deps, options: RevokeOptions): Promise<number> {
  const args = options.ids;
  if (args.length === 0 || args.some((a) => a.trim() === '')) {
    throw new UsageError('give the id, a unique prefix or the name of each key to revoke', 'see them with `crawl keys list`');
  }
  const trimmed = args.map((a) => a.trim());
  const configured = (await deps.settings.apiKey(deps.signal))?.value;
  // A key pasted as an argument: refused before any request when that can be told without the list.
  refuseKeys(deps, trimmed, (arg) => isKnownKeyOrShape(arg, knownKeys(deps), configured));
  const http = await deps.http();
  const { keys } = await listKeys(http);
  refuseKeys(deps, trimmed, (arg) => looksLikeFullKey(keys, arg));

  const targets = resolveAll(deps, keys, trimmed);
  checkIds(targets);
  const found = identifyKeyInUse(keys, configured);
  const inUse = targets.filter((k) => mayBeInUse(found).includes(k));
  if (inUse.length > 0 && !options.force) {
    const labels = inUse.map(keyLabel).join(', ');
    throw new UsageError(
      found.kind === 'unique'
        ? `${labels} is the key in use; revoking it would lock this profile out: nothing was revoked`
        : `${labels} may be the key in use (the prefixes of ${mayBeInUse(found).length} listed keys begin it, so it cannot be told apart); revoking it could lock this profile out: nothing was revoked`,
      `replace it without losing access with \`${crawlCommand(deps, ['keys', 'rotate'])}\`, or pass --force to revoke it anyway`,
    );
  }
  await confirm(deps, targets, options.yes);

  // The key in use (or any that may be) goes last: once it is revoked, the other DELETEs could no longer authenticate.
  const ordered = [...targets.filter((k) => !inUse.includes(k)), ...inUse];
  let worst: number = ExitCode.ok;
  const style = await deps.style('stderr');
  const outcomes = await revokeEach(http, ordered, (outcome) => {
    if (!outcome.ok) {
      if (ordered.length > 1) worst = Math.max(worst, deps.report(outcome.error));
    } else if (!deps.globals.json) deps.io.stderr.write(`${style.green('✓')} Revoked key ${keyLabel(outcome.key)}\n`);
  });
  const only = outcomes[0];
  if (ordered.length === 1 && only && !only.ok) throw only.error;
  const revoked = outcomes.flatMap((o) => (o.ok ? [o.revoked] : []));
  const bodies = revoked.map((r) => r.body);
  const raws = revoked.map((r) => r.raw);
  const revokedInUse = outcomes.some((o) => o.ok && inUse.includes(o.key));
  if (deps.globals.json) {
    // One document: the service's body for one key, an array of the bodies for several.
    if (ordered.length === 1) writeJson(deps.io, (raws[0] ?? '').trim());
    else writeJson(deps.io, JSON.stringify(bodies));
  } else if (revokedInUse) {
    const login = crawlCommand(deps, ['auth', 'login']);
    deps.io.stderr.write(
      found.kind === 'unique'
        ? `note: the key in use was revoked; store a new one with \`${login}\` before the next command\n`
        : `note: the key in use may have been revoked; check with \`${crawlCommand(deps, ['auth', 'status'])}\`, and store a new one with \`${login}\` if it was\n`,
    );
  }
  return worst;
}

/**
 * Keys never belong on the command line (shell history, process lists): an argument that looks
 * like one is refused without being shown, and kept out of every later output.
 */
function refuseKeys(deps: Deps, args: readonly string[], isKey: (arg: string) => boolean): void {
  const positions: number[] = [];
  args.forEach((arg, i) => {
    if (!isKey(arg)) return;
    deps.redactor.add(arg);
    positions.push(i + 1);
  });
  if (positions.length === 0) return;
  const which = positions.length === 1 ? `argument ${positions[0]} looks` : `arguments ${positions.join(', ')} look`;
  throw new UsageError(
    `${which} like a full API key, not a key's id or prefix: not shown, not used, and nothing was revoked. Keys never belong on the command line, where shell history and process lists keep them`,
    `give the id or the prefix that \`${crawlCommand(deps, ['keys', 'list'])}\` shows; if that key was exposed, revoke it by its id`,
  );
}

/** The keys this run knows: from CRAWL_API_KEY and from the profile, whichever is in use. */
function knownKeys(deps: Deps): string[] {
  const keys: string[] = [];
  const fromEnv = deps.env.CRAWL_API_KEY?.trim();
  if (fromEnv) keys.push(fromEnv);
  try {
    const stored = deps.settings.store.profile(deps.settings.profile().value)['api-key'];
    if (stored) keys.push(stored);
  } catch {
    // An unreadable config holds no key to compare with; the command reports it when it needs the file.
  }
  return keys;
}

/** Every id is checked as a path segment before the first DELETE: a bad one must not stop a batch midway. */
function checkIds(targets: readonly ApiKey[]): void {
  for (const key of targets) {
    const problem = pathSegmentProblem(key.id);
    if (problem !== undefined) {
      throw new CrawlError(`the service lists key ${keyLabel(key)} with an id that cannot be sent in a URL path (${problem}): nothing was revoked`, ExitCode.failure);
    }
  }
}

/** Every argument to one key, or one error naming every argument that does not resolve. */
function resolveAll(deps: Deps, keys: readonly ApiKey[], args: string[]): ApiKey[] {
  const targets: ApiKey[] = [];
  const problems: string[] = [];
  let code: number = ExitCode.ok;
  for (const arg of args) {
    const shown = `"${deps.redactor.redact(sanitize(arg))}"`;
    const found = resolveKey(keys, arg);
    if (found.kind === 'found') {
      if (!targets.includes(found.key)) targets.push(found.key);
    } else if (found.kind === 'ambiguous') {
      const what = found.byName ? `is the name of ${found.candidates.length} keys` : `matches ${found.candidates.length} keys`;
      problems.push(`${shown} ${what}: ${found.candidates.map(keyLabel).join(', ')}`);
      code = Math.max(code, ExitCode.usage);
    } else {
      problems.push(`no active key has the id, prefix or name ${shown}`);
      code = Math.max(code, ExitCode.notFound);
    }
  }
  if (problems.length > 0) {
    throw new CrawlError(`${problems.join('; ')}: nothing was revoked`, code, {
      hint: code === ExitCode.usage && problems.length === 1 ? 'give the id, or more of the prefix' : 'see ids, prefixes and names with `crawl keys list`',
    });
  }
  return targets;
}

async function confirm(deps: Deps, targets: ApiKey[], yes: boolean): Promise<void> {
  if (yes) return;
  const what = targets.length === 1 && targets[0] ? `key ${keyLabel(targets[0])}` : `${targets.length} keys`;
  if (!deps.prompter.available) {
    throw new UsageError(`revoking ${what} needs confirmation: nothing was revoked`, 'pass --yes to revoke without a prompt');
  }
  if (targets.length > 1) {
    for (const key of targets) deps.io.stderr.write(`  ${keyLabel(key)}\n`);
  }
  const ok = await deps.prompter.confirm(`Revoke ${what}? It stops working at once; this cannot be undone.`, 'pass --yes');
  if (!ok) throw new UsageError('not confirmed: nothing was revoked');
}
