import { createKey, identifyKeyInUse, listKeys, OutcomeUnknownError, revokeKey, rotatedName, UnusableKeyError, type KeyList } from '../../../api/keys.js';
import type { Deps } from '../../../deps.js';
import { CrawlError, InterruptedError, UsageError, isCrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { HttpStatusError } from '../../../http/errors.js';
import { pathSegmentProblem } from '../../../http/url.js';
import { maskKey } from '../../../text/mask.js';
import { sanitize } from '../../../text/sanitize.js';
import { crawlCommand } from '../../shared/suggest.js';
import { checkNewKeyFile, rescueKeyFile, STDOUT_PATH, writeKeyFile } from './key-file.js';
import { dirname } from 'node:path';
import { keyLabel } from './label.js';
import { ProfileKeyChangedError, storeProfileKey } from '../../shared/profile-key.js';
import {
  describeFailure,
  OldKeyUncertainError,
  rotationDocument,
  where,
  type RotationState,
  type Step,
  type Suggest,
  type Target,
} from './rotate-state.js';

/**
 * Replaces the key in use without losing access: (1) find it and decide where the new key goes,
 * (2) create the new key, (3) check that the service accepts it, (4) store it, (5) revoke the old
 * key. Whatever step fails or is interrupted, a created key is kept (stored, or printed once on
 * stdout) and the old key stays active unless step 5 was done; the message says what to run next.
 */
export interface RotateOptions {
  /** The new key's name (default: the old name and the date). */
  name: string | undefined;
  outputFile: string | undefined;
  /** A shell command that stores the new key, read from its stdin (a secret store's CLI). */
  toCommand: string | undefined;
  /** Leave the old key active (step 5 left out). */
  keepOld: boolean;
  yes: boolean;
}

export async function rotateKey(deps: Deps, options: RotateOptions): Promise<number> {
  const state = await prepare(deps, options);
  return rotateWith(deps, state);
}

/** Step 1: nothing is created until the old key, its id and the new key's home are all known. */
async function prepare(deps: Deps, options: RotateOptions): Promise<RotationState> {
  const nameFlag = options.name;
  const outputFile = options.outputFile;
  const key = await deps.settings.requireApiKey(deps.signal);
  let target: Target;
  if (options.toCommand !== undefined) {
    if (options.toCommand.trim() === '') throw new UsageError('--to-command needs a command');
    if (outputFile !== undefined) {
      throw new UsageError('--to-command and --output-file both say where the new key goes: give one', 'with --to-command the command is the store; it can write a file itself');
    }
    // A key from the config file is replaced there too (after the command): crawl must go on working.
    const config = key.source === 'config' ? { path: deps.settings.store.path, profile: deps.settings.profile().value, replaces: key.value } : undefined;
    target = { kind: 'command', command: options.toCommand, config };
  } else if (key.source === 'config') {
    if (outputFile !== undefined) {
      throw new UsageError(
        "--output-file is for a key that comes from CRAWL_API_KEY; this profile's key is in the config file, and the new key replaces it there",
        `run \`${crawlCommand(deps, ['keys', 'rotate'])}\` without --output-file`,
      );
    }
    target = { kind: 'config', path: deps.settings.store.path, profile: deps.settings.profile().value, replaces: key.value };
  } else if (outputFile === undefined) {
    throw new UsageError(
      'the key in use comes from CRAWL_API_KEY, which crawl cannot change: say where the new key goes',
      "pass --to-command '<command>' (the command that stores it, given the key on its stdin: `gh secret set CRAWL_API_KEY`); or --output-file <path> (a new file, mode 0600); or --output-file - for standard output",
    );
  } else if (outputFile === STDOUT_PATH) {
    if (deps.globals.json) {
      throw new UsageError('--output-file - puts the new key on stdout, where --json puts its document: give a file, or drop --json');
    }
    target = { kind: 'stdout' };
  } else {
    checkNewKeyFile(outputFile);
    target = { kind: 'file', path: outputFile };
  }

  const { keys } = await listKeys(await deps.http());
  const found = identifyKeyInUse(keys, key.value);
  if (found.kind === 'none') {
    throw new CrawlError(`the key in use (${maskKey(key.value)}) is not among the active keys the service lists; nothing was changed`, ExitCode.notFound, {
      hint: `check it with \`${crawlCommand(deps, ['auth', 'status'])}\``,
    });
  }
  if (found.kind === 'ambiguous') {
    // Rotating would revoke one of them: perhaps not the one in use.
    throw new CrawlError(
      `the key in use (${maskKey(key.value)}) cannot be told apart: the prefixes of ${found.candidates.length} listed keys begin it (${found.candidates.map(keyLabel).join(', ')}); rotating could revoke the wrong key, so nothing was changed`,
      ExitCode.failure,
      {
        hint: `replace it by hand: \`${crawlCommand(deps, ['keys', 'create'])} <name> ${target.kind === 'config' ? '--save' : '--output-file <path>'}\`, then revoke the old key by its id once you know which it is`,
      },
    );
  }
  const old = found.key;
  const problem = pathSegmentProblem(old.id);
  if (problem !== undefined) {
    // The id comes from the service, not from the user: a malformed answer (exit 1), not a usage error.
    throw new CrawlError(
      `the service lists the key in use ${keyLabel(old)} with an id that cannot be sent in a URL path (${problem}), so it could not be revoked: nothing was changed`,
      ExitCode.failure,
    );
  }
  const newName = nameFlag ?? rotatedName(old.name, deps.clock.now());

  if (!options.yes) {
    if (!deps.prompter.available) {
      throw new UsageError(`rotating key ${keyLabel(old)} needs confirmation: nothing was changed`, 'pass --yes to rotate without a prompt (as in CI)');
    }
    const ok = await deps.prompter.confirm(
      options.keepOld
        ? `Create a new key "${sanitize(newName)}" stored in ${where(target)}, leaving key ${keyLabel(old)} active?`
        : `Rotate key ${keyLabel(old)}? A new key "${sanitize(newName)}" will be stored in ${where(target)}, then the old one revoked.`,
      'pass --yes',
    );
    if (!ok) throw new UsageError('not confirmed: nothing was changed');
  }
  return {
    old: { id: old.id, name: typeof old.name === 'string' ? old.name : undefined, prefix: typeof old.keyPrefix === 'string' ? old.keyPrefix : undefined },
    target,
    newName,
    done: { create: false, verify: false, store: false, revoke: false },
    printed: false,
    keepOld: options.keepOld,
  };
}

/**
 * From the POST until the new key is stored or printed, the key exists nowhere else: a critical
 * section, so the forced exit after Ctrl-C waits for it (src/app/guard.ts).
 */
function rotateWith(deps: Deps, s: RotationState): Promise<number> {
  return deps.guard.critical(() => steps(deps, s));
}

async function steps(deps: Deps, s: RotationState): Promise<number> {
  const style = await deps.style('stderr');
  const progress = (line: string): void => {
    if (!deps.globals.json) deps.io.stderr.write(`${style.green('✓')} ${line}\n`);
  };
  const stopIfInterrupted = (): void => {
    if (deps.signal.aborted) throw deps.signal.reason;
  };
  let step: Step = 'create';
  try {
    // Sent even if Ctrl-C comes meanwhile: its answer is read (src/http/client.ts), so a key the
    // service made is kept like any other, below.
    const created = await createKey(await deps.http(), s.newName);
    deps.redactor.add(created.key);
    s.created = { key: created.key, id: undefined, name: created.name ?? s.newName, prefix: created.prefix ?? maskKey(created.key) };
    s.done.create = true;
    progress(`Created key "${sanitize(s.created.name)}" (${sanitize(s.created.prefix)})`);

    step = 'verify';
    stopIfInterrupted();
    // Answered by the service's own origin only; the same list names the new key's id, which the
    // create response does not carry, and shows the old key as it is now.
    const seen = await listKeys(await deps.http({ apiKey: created.key }), { sameOriginOnly: true });
    const fresh = identifyKeyInUse(seen.keys, created.key);
    s.created.id = fresh.kind === 'unique' ? fresh.key.id : undefined;
    s.done.verify = true;
    progress('The service accepts the new key');

    step = 'store';
    stopIfInterrupted();
    await store(deps, s.target, created.key, s);
    s.done.store = true;
    progress(`Stored the new key in ${where(s.target)}`);

    if (s.keepOld) return kept(deps, s, progress);
    step = 'revoke';
    stopIfInterrupted();
    checkOldKey(s, seen);
    // With the new key: it is the one that will be used from now on, and this proves it can act.
    await revokeKey(await deps.http({ apiKey: created.key }), s.old.id);
    s.done.revoke = true;
    progress(`Revoked the old key ${keyLabel({ id: s.old.id, name: s.old.name, keyPrefix: s.old.prefix })}`);
  } catch (error) {
    return fail(deps, s, step, error, progress);
  }

  if (deps.globals.json) {
    deps.io.stdout.write(JSON.stringify(rotationDocument(s)) + '\n');
  } else if (s.target.kind === 'command') {
    if (!s.target.config) deps.io.stderr.write('note: CRAWL_API_KEY in this job still holds the old key, which no longer works: later steps get the new one from the store\n');
  } else if (s.target.kind === 'file') {
    deps.io.stderr.write(`note: CRAWL_API_KEY still holds the old key, which no longer works: set it from ${s.target.path}\n`);
  } else if (s.target.kind === 'stdout') {
    deps.io.stderr.write('note: CRAWL_API_KEY still holds the old key, which no longer works: set it to the new key printed on stdout\n');
  }
  // Ctrl-C came while the revocation was on the wire, and it went through: all is done, but the
  // run was interrupted all the same.
  if (deps.signal.aborted) {
    const code = deps.signal.reason instanceof InterruptedError ? deps.signal.reason.exitCode : ExitCode.interrupted;
    throw new CrawlError('interrupted, but the rotation had completed: all five steps were done', code);
  }
  return ExitCode.ok;
}

/**
 * Step 5 revokes the old key by id, so that id must still name the key step 1 found: listed in the
 * list seen with the new key, with the same prefix, and not the new key itself.
 */
function checkOldKey(s: RotationState, seen: KeyList): void {
  const label = keyLabel({ id: s.old.id, name: s.old.name, keyPrefix: s.old.prefix });
  const listed = seen.keys.find((k) => k.id === s.old.id);
  if (!listed) throw new OldKeyUncertainError('gone', `the service no longer lists the old key ${label}`);
  if (listed.keyPrefix !== s.old.prefix) throw new OldKeyUncertainError('changed', `the service lists ${sanitize(s.old.id)} with another prefix than before`);
  if (s.created?.id === s.old.id) throw new OldKeyUncertainError('new', `the service lists the new key under the old key's id ${sanitize(s.old.id)}`);
}

/** --keep-old: the new key is stored and checked; the old one is left active, and named. */
function kept(deps: Deps, s: RotationState, progress: (line: string) => void): number {
  const label = keyLabel({ id: s.old.id, name: s.old.name, keyPrefix: s.old.prefix });
  progress(`Left the old key ${label} active (--keep-old)`);
  if (deps.globals.json) deps.io.stdout.write(JSON.stringify(rotationDocument(s)) + '\n');
  else deps.io.stderr.write(`note: retire it when its window ends: \`${crawlCommand(deps, ['keys', 'revoke'], [s.old.id], ['--yes'])}\`\n`);
  if (deps.signal.aborted) {
    const code = deps.signal.reason instanceof InterruptedError ? deps.signal.reason.exitCode : ExitCode.interrupted;
    throw new CrawlError('interrupted, but the new key had been created, checked and stored; the old key is active, as --keep-old asks', code);
  }
  return ExitCode.ok;
}

async function store(deps: Deps, target: Target, key: string, s?: RotationState): Promise<void> {
  // Only over the key this rotation replaces: a concurrent rotation or login may have stored its own.
  if (target.kind === 'config') await storeProfileKey(deps, key, { withBaseUrl: false, replaces: target.replaces });
  else if (target.kind === 'command') {
    if (!s?.commandStored) {
      await storeWithCommand(deps, target.command, key);
      if (s) s.commandStored = true;
    }
    if (target.config) await storeProfileKey(deps, key, { withBaseUrl: false, replaces: target.config.replaces });
  }
  else if (target.kind === 'file') await writeKeyFile(target.path, key);
  // `--output-file -`: the key alone on stdout is where it is kept (nothing checks the reader kept it).
  else await deps.handOver(key + '\n');
}

/** The "nothing lost" path, for failures and Ctrl-C alike. Always throws. */
async function fail(deps: Deps, s: RotationState, step: Step, error: unknown, progress: (line: string) => void): Promise<never> {
  const interrupted = error instanceof InterruptedError || deps.signal.aborted;
  if (error instanceof UnusableKeyError) deps.redactor.add(error.secret());
  const c = s.created;
  // --to-command is the CI's secret store: a key it did not take is revoked again, never printed into a log.
  // Once the command has stored it (only the profile's copy failed), the store has it: not printed either.
  if (c && !s.done.store && s.target.kind === 'command') {
    if (!s.commandStored) await rollBack(deps, s, c);
  } else if (c && !s.done.store) {
    // A new file (or stdout) replaces nothing, so an unchecked key may go there; the config's working key may not be replaced by one.
    if (s.target.kind !== 'config' && step !== 'store') {
      try {
        await store(deps, s.target, c.key);
        s.done.store = true;
        progress(`Stored the new key in ${where(s.target)}`);
      } catch {
        // Falls through to printing it.
      }
    }
    if (!s.done.store) {
      s.printed = true;
      if (!deps.globals.json) await handOver(deps, s, c.key + '\n');
    }
  }
  if (deps.globals.json && c) await handOver(deps, s, JSON.stringify(rotationDocument(s)) + '\n');

  const known = isCrawlError(error);
  const reason = known ? error.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  const suggest: Suggest = (subcommand, operands, flags) => crawlCommand(deps, subcommand, operands, flags);
  const { message, hint } = describeFailure(
    s,
    {
      step,
      reason,
      interrupted,
      outcomeUnknown: error instanceof OutcomeUnknownError,
      rejected: error instanceof HttpStatusError && (error.status === 401 || error.status === 403),
      configChanged: error instanceof ProfileKeyChangedError,
      unusableKey: error instanceof UnusableKeyError,
      oldKeyNotFound: step === 'revoke' && error instanceof HttpStatusError && error.status === 404,
      ...(error instanceof OldKeyUncertainError ? { oldKeyUncertain: error.kind } : {}),
      hint: known ? error.hint : undefined,
    },
    deps.globals.json,
    suggest,
  );
  const interruptCode = deps.signal.reason instanceof InterruptedError ? deps.signal.reason.exitCode : ExitCode.interrupted;
  const exitCode = interrupted ? interruptCode : known ? error.exitCode : ExitCode.failure;
  const httpStatus = known ? error.httpStatus : undefined;
  throw new CrawlError(message, exitCode, { ...(hint === undefined ? {} : { hint }), ...(httpStatus === undefined ? {} : { httpStatus }) });
}

/** The command's exit status, in words, when it is not 0: the store did not take the key. */
export class StoreCommandError extends CrawlError {
  constructor(outcome: string) {
    super(`the --to-command command did not store the key: ${outcome}`, ExitCode.failure);
    this.name = 'StoreCommandError';
  }
}

/**
 * The key on the command's stdin; its output passed on (redacted, line by line: with --json, stdout
 * is the rotation's document, so the command's stdout goes to stderr). Neither the new key nor the
 * one in use is in its environment or arguments.
 */
async function storeWithCommand(deps: Deps, command: string, key: string): Promise<void> {
  // Loaded here only: node:child_process has no business in the start-up of every other command.
  const { describeOutcome, runShellCommand } = await import('../../../platform/shell-command.js');
  const { CRAWL_API_KEY: _inUse, ...env } = deps.env;
  const out = deps.globals.json ? deps.io.stderr : deps.io.stdout;
  const outcome = await runShellCommand({
    command,
    input: key + '\n',
    env,
    onStdout: (text) => void out.write(text),
    onStderr: (text) => void deps.io.stderr.write(text),
    signal: deps.signal,
  });
  if (outcome.kind !== 'exited' || outcome.code !== 0) throw new StoreCommandError(describeOutcome(outcome));
}

/**
 * The store did not take the new key: it is revoked again, with the old key (which still works).
 * If that fails, the key goes to a 0600 file in the config folder, or as a last resort to stdout:
 * a key that exists is never left unknown.
 */
async function rollBack(deps: Deps, s: RotationState, c: NonNullable<RotationState['created']>): Promise<void> {
  let why: string;
  const http = await deps.http({ evenIfInterrupted: true });
  // Step 3 did not get as far as the new key's id: the old key's list can tell it.
  const id = c.id ?? (await listKeys(http).then(({ keys }) => {
    const found = identifyKeyInUse(keys, c.key);
    return found.kind === 'unique' ? found.key.id : undefined;
  }, () => undefined));
  if (id === undefined) {
    why = 'the service did not list it under an id';
  } else {
    c.id = id;
    try {
      await revokeKey(http, id);
      s.rollback = { revoked: true };
      return;
    } catch (error) {
      why = isCrawlError(error) ? error.message : String(error);
    }
  }
  try {
    const rescueFile = await rescueKeyFile(dirname(deps.settings.store.path), c.prefix, c.key, deps.clock.now());
    s.rollback = { revoked: false, why, rescueFile };
  } catch (error) {
    s.rollback = { revoked: false, why: `${why}; and no file could hold it (${isCrawlError(error) ? error.message : String(error)})` };
    s.printed = true;
    // With --json the key goes in the document (new.key), printed by the caller.
    if (!deps.globals.json) await handOver(deps, s, c.key + '\n');
  }
}

/** Prints the unstored key (or the JSON holding it); if stdout cannot take it, the report says so. */
async function handOver(deps: Deps, s: RotationState, text: string): Promise<void> {
  try {
    await deps.handOver(text);
  } catch (error) {
    if (s.printed) {
      s.printed = false;
      s.unprinted = error instanceof Error ? error.message : String(error);
    }
  }
}
