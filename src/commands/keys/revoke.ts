import { keyInUse, listKeys, revokeKey, type ApiKey } from '../../api/keys.js';
import type { Context } from '../../cli/context.js';
import { reportError } from '../../cli/report.js';
import { CrawlError, InterruptedError, UsageError, isCrawlError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { sanitize } from '../../output/sanitize.js';
import { keyLabel } from './label.js';
import { looksLikeFullKey, resolveKey } from './resolve.js';
import { writeRaw } from '../../output/json.js';

/**
 * DELETE /api/keys/:id for each argument (an id or a unique keyPrefix prefix). Every argument is
 * resolved, and the key in use and the confirmation are checked, before the first DELETE: a
 * mistake on the command line revokes nothing. Each DELETE is sent once.
 */
export async function handler(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  if (args.length === 0 || args.some((a) => a.trim() === '')) {
    throw new UsageError('give the id or a unique prefix of each key to revoke', 'see them with `crawl keys list`');
  }
  const http = ctx.http();
  const { keys } = await listKeys(http);
  for (const arg of args) if (looksLikeFullKey(keys, arg)) ctx.secrets.add(arg);

  const targets = resolveAll(ctx, keys, args.map((a) => a.trim()));
  const inUse = keyInUse(keys, ctx.settings.apiKey()?.value);
  if (inUse && targets.includes(inUse) && opts.force !== true) {
    throw new UsageError(
      `${keyLabel(inUse)} is the key in use; revoking it would lock this profile out: nothing was revoked`,
      'replace it without losing access with `crawl keys rotate`, or pass --force to revoke it anyway',
    );
  }
  await confirm(ctx, targets, opts.yes === true);

  // The key in use goes last: once it is revoked, the other DELETEs could no longer authenticate.
  const ordered = [...targets.filter((k) => k !== inUse), ...targets.filter((k) => k === inUse)];
  const bodies: unknown[] = [];
  const raws: string[] = [];
  let worst: number = ExitCode.ok;
  let revokedInUse = false;
  const style = await ctx.style('stderr');
  for (const key of ordered) {
    try {
      const revoked = await revokeKey(http, key.id);
      bodies.push(revoked.body);
      raws.push(revoked.raw);
      if (key === inUse) revokedInUse = true;
      if (!ctx.globals.json) ctx.io.stderr.write(`${style.green('✓')} Revoked key ${keyLabel(key)}\n`);
    } catch (error) {
      if (error instanceof InterruptedError || !isCrawlError(error)) throw error;
      const failure = new CrawlError(`cannot revoke key ${keyLabel(key)}: ${error.message}`, error.exitCode, {
        ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
        ...(error.hint === undefined ? {} : { hint: error.hint }),
      });
      if (ordered.length === 1) throw failure;
      worst = Math.max(worst, reportError(ctx.io, failure, { json: ctx.globals.json, verbose: ctx.globals.verbose, redact: (t) => ctx.redact(t) }));
    }
  }
  if (ctx.globals.json) {
    // One document: the service's body for one key, an array of the bodies for several.
    if (ordered.length === 1) writeRaw(ctx.io.stdout, (raws[0] ?? '').trim());
    else ctx.io.stdout.write(JSON.stringify(bodies) + '\n');
  } else if (revokedInUse) {
    ctx.io.stderr.write('note: the key in use was revoked; store a new one with `crawl auth login` before the next command\n');
  }
  return worst;
}

/** Every argument to one key, or one error naming every argument that does not resolve. */
function resolveAll(ctx: Context, keys: readonly ApiKey[], args: string[]): ApiKey[] {
  const targets: ApiKey[] = [];
  const problems: string[] = [];
  let code: number = ExitCode.ok;
  for (const arg of args) {
    const shown = `"${ctx.redact(sanitize(arg))}"`;
    const found = resolveKey(keys, arg);
    if (found.kind === 'found') {
      if (!targets.includes(found.key)) targets.push(found.key);
    } else if (found.kind === 'ambiguous') {
      problems.push(`${shown} matches ${found.candidates.length} keys: ${found.candidates.map(keyLabel).join(', ')}`);
      code = Math.max(code, ExitCode.usage);
    } else {
      problems.push(`no active key has the id or prefix ${shown}`);
      code = Math.max(code, ExitCode.notFound);
    }
  }
  if (problems.length > 0) {
    throw new CrawlError(`${problems.join('; ')}: nothing was revoked`, code, {
      hint: code === ExitCode.usage && problems.length === 1 ? 'give more of the prefix, or the id' : 'see ids and prefixes with `crawl keys list`',
    });
  }
  return targets;
}

async function confirm(ctx: Context, targets: ApiKey[], yes: boolean): Promise<void> {
  if (yes) return;
  const what = targets.length === 1 && targets[0] ? `key ${keyLabel(targets[0])}` : `${targets.length} keys`;
  if (!ctx.prompt.available) {
    throw new UsageError(`revoking ${what} needs confirmation: nothing was revoked`, 'pass --yes to revoke without a prompt');
  }
  if (targets.length > 1) {
    for (const key of targets) ctx.io.stderr.write(`  ${keyLabel(key)}\n`);
  }
  const ok = await ctx.prompt.confirm(`Revoke ${what}? It stops working at once; this cannot be undone.`, 'pass --yes');
  if (!ok) throw new UsageError('not confirmed: nothing was revoked');
}
