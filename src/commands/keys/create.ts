import { createKey, OutcomeUnknownError } from '../../api/keys.js';
import type { Context } from '../../cli/context.js';
import { critical } from '../../cli/critical.js';
import type { HttpClient } from '../../http/client.js';
import { CrawlError, InterruptedError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { maskKey } from '../../output/format.js';
import { sanitize } from '../../output/sanitize.js';
import { checkNewKeyFile, writeKeyFile } from './key-file.js';
import { storeProfileKey } from './profile-key.js';
import { rawLine } from '../../output/json.js';

const DEFAULT_WARNING = 'This key will not be shown again. Store it securely.';

/**
 * POST /api/keys once. The full key goes alone to stdout (`KEY=$(crawl keys create ci)`), before
 * anything that could fail: once the service has made it, stdout may hold its only copy.
 */
export async function handler(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  const name = (args[0] ?? '').trim();
  if (name === '') throw new UsageError('the key needs a name', 'crawl keys create <name>');
  const outputFile = typeof opts.outputFile === 'string' ? opts.outputFile : undefined;
  const save = opts.save === true;
  // Everything that can be refused is refused before the key exists.
  if (outputFile !== undefined) checkNewKeyFile(outputFile);
  if (save) ctx.settings.store.read();
  const http = ctx.http();
  // From the POST on, an exit must wait until the key has reached the user or a file.
  return critical(() => createAndHandOver(ctx, http, name, { outputFile, save }));
}

async function createAndHandOver(
  ctx: Context,
  http: HttpClient,
  name: string,
  { outputFile, save }: { outputFile: string | undefined; save: boolean },
): Promise<number> {
  let created;
  try {
    created = await createKey(http, name);
  } catch (error) {
    // Ctrl-C with the POST in flight: reported like any unknown outcome (as JSON with --json).
    if (error instanceof InterruptedError) {
      throw new OutcomeUnknownError('interrupted while creating the key: a key may have been created; check with `crawl keys list`', error.exitCode);
    }
    throw error;
  }
  ctx.secrets.add(created.key);

  let notPrinted: string | undefined;
  try {
    await ctx.handOver(ctx.globals.json ? rawLine(created.raw) : created.key + '\n');
  } catch (error) {
    notPrinted = describe(error);
  }

  const human = !ctx.globals.json;
  const say = (line: string): void => {
    if (human) ctx.io.stderr.write(line + '\n');
  };
  const shownPrefix = created.prefix ?? maskKey(created.key);
  say(`Created key "${sanitize(created.name ?? name)}" (prefix ${sanitize(shownPrefix)})`);
  say(`warning: ${ctx.redact(sanitize(created.warning ?? DEFAULT_WARNING))}`);

  const failures: string[] = [];
  const keptIn: string[] = [];
  if (outputFile !== undefined) {
    try {
      await writeKeyFile(outputFile, created.key);
      keptIn.push(outputFile);
      say(`Wrote the key to ${outputFile} (mode 0600)`);
    } catch (error) {
      failures.push(describe(error));
    }
  }
  if (save) {
    try {
      const { profile, path } = await storeProfileKey(ctx, created.key, { withBaseUrl: true });
      keptIn.push(`the config file ${path}`);
      say(`Saved as the key of profile "${profile}" in ${path}`);
      if (ctx.env.CRAWL_API_KEY) say('note: CRAWL_API_KEY is set and takes precedence over the saved key');
    } catch (error) {
      failures.push(describe(error));
    }
  }
  if (notPrinted !== undefined) {
    const label = `"${sanitize(created.name ?? name)}" (prefix ${sanitize(shownPrefix)})`;
    if (keptIn.length > 0) {
      throw new CrawlError(`the key ${label} was created and stored in ${keptIn.join(' and ')}, but ${notPrinted}`, ExitCode.failure);
    }
    // Nobody holds this key: say so, and how to get rid of it (never print it on stderr instead).
    throw new CrawlError(`the key ${label} was created, but nobody has a copy of it: ${notPrinted}`, ExitCode.failure, {
      hint: `revoke it with \`crawl keys revoke ${sanitize(shownPrefix)} --yes\`, then create another`,
    });
  }
  if (failures.length > 0) {
    throw new CrawlError(
      `the key was created, but ${failures.join('; and ')}; ${keptIn.length > 0 ? `it is on stdout and in ${keptIn.join(' and ')}` : 'the key on stdout is its only copy'}`,
      ExitCode.failure,
      { hint: save ? 'store it with `crawl auth login --with-key` (the key on standard input)' : 'keep the printed key somewhere safe now' },
    );
  }
  return ExitCode.ok;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
