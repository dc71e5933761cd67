import { createKey, OutcomeUnknownError, UnusableKeyError, type CreatedKey } from '../../../api/keys.js';
import type { Deps } from '../../../deps.js';
import type { HttpClient } from '../../../http/client.js';
import { CrawlError, InterruptedError, UsageError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { maskKey } from '../../../text/mask.js';
import { sanitize } from '../../../text/sanitize.js';
import { crawlCommand } from '../../shared/suggest.js';
import { checkNewKeyFile, STDOUT_PATH, writeKeyFile } from './key-file.js';
import { describeBaseUrlChange, storeProfileKey } from '../../shared/profile-key.js';
import { jsonDocument } from '../../../io/json.js';

const DEFAULT_WARNING = 'This key will not be shown again. Store it securely.';

/**
 * POST /api/keys once. The full key goes alone to stdout (`KEY=$(crawl keys create ci)`), before
 * anything that could fail: once the service has made it, stdout may hold its only copy.
 */
export interface CreateOptions {
  name: string;
  save: boolean;
  outputFile: string | undefined;
}

export async function createNewKey(deps: Deps, options: CreateOptions): Promise<number> {
  const { name } = options;
  const outputFlag = options.outputFile;
  // `--output-file -` is stdout, where the key goes alone anyway: it is printed once, not twice.
  if (outputFlag === STDOUT_PATH && deps.globals.json) {
    throw new UsageError('--output-file - puts the key alone on stdout, where --json puts the service\'s document: give a file, or drop one of the two');
  }
  const outputFile = outputFlag === STDOUT_PATH ? undefined : outputFlag;
  const save = options.save;
  // Everything that can be refused is refused before the key exists.
  if (outputFile !== undefined) checkNewKeyFile(outputFile);
  if (save) deps.settings.store.read();
  const http = deps.http();
  // From the POST on, an exit must wait until the key has reached the user or a file.
  return deps.guard.critical(() => createAndHandOver(deps, http, name, { outputFile, save }));
}

async function createAndHandOver(
  deps: Deps,
  http: HttpClient,
  name: string,
  { outputFile, save }: { outputFile: string | undefined; save: boolean },
): Promise<number> {
  const created = await create(deps, http, name);
  deps.redactor.add(created.key);

  let notPrinted: string | undefined;
  try {
    await deps.handOver(deps.globals.json ? jsonDocument(deps.io, created.raw) : created.key + '\n');
  } catch (error) {
    notPrinted = describe(error);
  }

  const human = !deps.globals.json;
  const say = (line: string): void => {
    if (human) deps.io.stderr.write(line + '\n');
  };
  const shownPrefix = created.prefix ?? maskKey(created.key);
  say(`Created key "${sanitize(created.name ?? name)}" (prefix ${sanitize(shownPrefix)})`);
  say(`warning: ${deps.redactor.redact(sanitize(created.warning ?? DEFAULT_WARNING))}`);

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
      const { profile, path, baseUrlChange } = await storeProfileKey(deps, created.key, { withBaseUrl: true });
      keptIn.push(`the config file ${path}`);
      say(`Saved as the key of profile "${profile}" in ${path}`);
      if (baseUrlChange) say(`note: ${describeBaseUrlChange(baseUrlChange)}`);
      if (deps.env.CRAWL_API_KEY) say('note: CRAWL_API_KEY is set and takes precedence over the saved key');
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
      hint: created.prefix !== undefined
        ? `revoke it with \`${crawlCommand(deps, ['keys', 'revoke'], [created.prefix], ['--yes'])}\`, then create another`
        : `find it by its name with \`${crawlCommand(deps, ['keys', 'list'])}\`, revoke it with \`${crawlCommand(deps, ['keys', 'revoke'])} <id> --yes\`, then create another`,
    });
  }
  if (failures.length > 0) {
    throw new CrawlError(
      `the key was created, but ${failures.join('; and ')}; ${keptIn.length > 0 ? `it is on stdout and in ${keptIn.join(' and ')}` : 'the key on stdout is its only copy'}`,
      interrupted(deps) ?? ExitCode.failure,
      { hint: save ? `store it with \`${crawlCommand(deps, ['auth', 'login'], [], ['--with-key'])}\` (the key on standard input)` : 'keep the printed key somewhere safe now' },
    );
  }
  // Ctrl-C came while the POST was on the wire: its answer was read and the key handed over first.
  const code = interrupted(deps);
  if (code !== undefined) {
    throw new CrawlError(`interrupted after the key was created: it was handed over first (on stdout${keptIn.length > 0 ? ` and in ${keptIn.join(' and ')}` : ''})`, code);
  }
  return ExitCode.ok;
}

/** The POST, with what an interrupt while it was out means for the message and the exit code. */
async function create(deps: Deps, http: HttpClient, name: string): Promise<CreatedKey> {
  try {
    return await createKey(http, name);
  } catch (error) {
    if (error instanceof UnusableKeyError) {
      deps.redactor.add(error.secret());
      throw new CrawlError(error.message, interrupted(deps) ?? error.exitCode, {
        hint: `the key exists at the service: find it by its name with \`${crawlCommand(deps, ['keys', 'list'])}\` and revoke it with \`${crawlCommand(deps, ['keys', 'revoke'])} <id> --yes\``,
      });
    }
    // Interrupted before the POST was sent: nothing was created, and nothing is said.
    if (error instanceof InterruptedError) throw error;
    const code = interrupted(deps);
    if (code !== undefined && error instanceof OutcomeUnknownError) {
      throw new OutcomeUnknownError(`interrupted while creating the key, and its answer was lost: ${error.message}`, code, error.hint);
    }
    if (code !== undefined && error instanceof CrawlError) {
      throw new CrawlError(`interrupted while creating the key, and it failed: ${error.message}`, code, {
        ...(error.hint === undefined ? {} : { hint: error.hint }),
        ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
      });
    }
    throw error;
  }
}

/** The exit code of the interrupt (130 Ctrl-C, 143 SIGTERM) once one came, else undefined. */
function interrupted(deps: Deps): number | undefined {
  if (!deps.signal.aborted) return undefined;
  return deps.signal.reason instanceof InterruptedError ? deps.signal.reason.exitCode : ExitCode.interrupted;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
