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

export async function keysCreateRun(deps: Deps, options: CreateOptions): Promise<number> {
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
  // With no other home, stdout is the key's only copy: a filter that would leave it out is refused now.
  if (outputFlag === STDOUT_PATH || (outputFile === undefined && !save)) refuseFilterWithoutKey(deps, name);
  const http = await deps.http();
  // From the POST on, an exit must wait until the key has reached the user or a file.
  return deps.guard.critical(() => createAndHandOver(deps, http, name, { outputFile, save, toStdout: outputFlag === STDOUT_PATH }));
}

async function createAndHandOver(
  deps: Deps,
  http: HttpClient,
  name: string,
  { outputFile, save, toStdout }: { outputFile: string | undefined; save: boolean; toStdout: boolean },
): Promise<number> {
  const created = await create(deps, http, name);
  deps.redactor.add(created.key);
  const human = !deps.globals.json;
  const say = (line: string): void => {
    if (human) deps.io.stderr.write(line + '\n');
  };
  const shownPrefix = created.prefix ?? maskKey(created.key);
  const label = `"${sanitize(created.name ?? name)}" (prefix ${sanitize(shownPrefix)})`;
  // `--output-file -` asks for stdout in so many words; --save and a file are destinations of their own.
  const hasDestination = !toStdout && (outputFile !== undefined || save);

  // With no destination, stdout is the key's one place: it goes there before anything can fail.
  let notPrinted: string | undefined;
  const handOver = async (): Promise<boolean> => {
    try {
      // Handed over only where stdout is the key's place (no destination, or none took it): a filter may not drop it.
      await deps.handOver(deps.globals.json ? jsonDocument(deps.io, created.raw) : created.key + '\n', { mustCarry: created.key });
      return true;
    } catch (error) {
      notPrinted = describe(error);
      return false;
    }
  };
  if (!hasDestination) await handOver();

  say(`Created key "${sanitize(created.name ?? name)}" (prefix ${sanitize(shownPrefix)})`);
  // The service's word about keeping the key is for a key handed over here, on stdout: a key that
  // went where it was asked to go is kept already.
  const warn = (): void => say(`warning: ${deps.redactor.redact(sanitize(created.warning ?? DEFAULT_WARNING))}`);
  if (!hasDestination) warn();

  const failures: string[] = [];
  const keptIn: string[] = [];
  if (outputFile !== undefined) {
    try {
      await writeKeyFile(outputFile, created.key, deps);
      keptIn.push(outputFile);
      say(`Wrote the key to ${outputFile} (mode 0600)`);
    } catch (error) {
      failures.push(describe(error));
    }
  }
  if (save) {
    try {
      const saved = await storeProfileKey(deps, created.key, { withBaseUrl: true });
      keptIn.push(`the ${saved.store.describe()}`);
      say(`Saved as the key of profile "${saved.profile}" in the ${saved.store.describe()}`);
      if (saved.baseUrlChange) say(`note: ${describeBaseUrlChange(saved.baseUrlChange)}`);
      if (deps.env.CRAWL_API_KEY) say('note: CRAWL_API_KEY is set and takes precedence over the saved key');
    } catch (error) {
      failures.push(describe(error));
    }
  }
  let printed = !hasDestination && notPrinted === undefined;
  if (hasDestination && keptIn.length > 0 && deps.globals.json) {
    // The service's document as received, but for the key: it went where it was asked to go.
    deps.io.stdout.write(withKeyMasked(jsonDocument(deps.io, created.raw), created.key));
  }
  if (hasDestination && keptIn.length === 0) {
    // Every destination failed: stdout is the last place the key can go, rather than nowhere.
    printed = await handOver();
    if (printed) warn();
  }
  if (notPrinted !== undefined && keptIn.length === 0) {
    // Nobody holds this key: say so, and how to get rid of it (never print it on stderr instead).
    throw new CrawlError(`the key ${label} was created, but nobody has a copy of it: ${[...failures, notPrinted].join('; and ')}`, ExitCode.failure, {
      hint: created.prefix !== undefined
        ? `revoke it with \`${crawlCommand(deps, ['keys', 'revoke'], [created.prefix], ['--yes'])}\`, then create another`
        : `find it by its name with \`${crawlCommand(deps, ['keys', 'list'])}\`, revoke it with \`${crawlCommand(deps, ['keys', 'revoke'])} <id> --yes\`, then create another`,
    });
  }
  if (notPrinted !== undefined && !hasDestination) {
    throw new CrawlError(`the key ${label} was created, but ${notPrinted}`, ExitCode.failure);
  }
  if (failures.length > 0) {
    const where = [...(printed ? ['on stdout'] : []), ...keptIn.map((k) => `in ${k}`)];
    throw new CrawlError(
      `the key was created, but ${failures.join('; and ')}; ${keptIn.length === 0 ? 'the key on stdout is its only copy' : `it is ${where.join(' and ')}`}`,
      interrupted(deps) ?? ExitCode.failure,
      { hint: save ? `store it with \`${crawlCommand(deps, ['auth', 'login'], [], ['--with-key'])}\` (the key on standard input)` : 'keep the key somewhere safe now' },
    );
  }
  // Ctrl-C came while the POST was on the wire: its answer was read and the key handed over first.
  const code = interrupted(deps);
  if (code !== undefined) {
    const where = [...(printed ? ['on stdout'] : []), ...keptIn.map((k) => `in ${k}`)];
    throw new CrawlError(`interrupted after the key was created: it was handed over first (${where.join(' and ')})`, code);
  }
  return ExitCode.ok;
}

/**
 * `--jq` run on a stand-in for the service's answer (a made-up key, the name given): a filter
 * whose output leaves that key out would leave the real one out too. A filter that fails on the
 * stand-in is let through: one that fails on the answer prints it unfiltered, and so does one
 * that leaves the key out after all (the hand-over's mustCarry).
 */
function refuseFilterWithoutKey(deps: Deps, name: string): void {
  if (!deps.jq) return;
  const standIn = `crk_${'0123456789abcdef'.repeat(2)}STANDIN`;
  const doc = JSON.stringify({ success: true, key: standIn, prefix: standIn.slice(0, 12), name, warning: DEFAULT_WARNING });
  if (deps.jq.carries(doc, standIn) !== false) return;
  throw new UsageError(
    'the --jq filter leaves the new key out of what it prints, and the key would be kept nowhere else: no key was created',
    'keep .key in the filter (`--jq .key`), or give the key a home with --save or --output-file <path>',
  );
}

/** A JSON line with the key's every occurrence replaced by its masked form. */
function withKeyMasked(line: string, key: string): string {
  const escaped = JSON.stringify(key).slice(1, -1);
  return line.split(escaped).join(maskKey(key));
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
