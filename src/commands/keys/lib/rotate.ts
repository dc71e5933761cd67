import { findOldKey, rotate, type OldKey, type RotationFailure, type RotationStep, type RotationTarget } from '../../../api/rotation.js';
import { listKeys, OutcomeUnknownError, rotatedName, UnusableKeyError } from '../../../api/keys.js';
import { keyLabel } from '../../../api/key-label.js';
import type { ResolvedKey } from '../../../config/settings.js';
import type { Deps } from '../../../deps.js';
import { jsonDocument, writeJson } from '../../../io/json.js';
import { CrawlError, InterruptedError, UsageError, isCrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { HttpStatusError } from '../../../http/errors.js';
import { maskKey } from '../../../text/mask.js';
import { sanitize } from '../../../text/sanitize.js';
import { crawlCommand } from '../../shared/suggest.js';
import { checkNewKeyFile, rescueKeyFile, STDOUT_PATH } from './key-file.js';
import { commandDestination, fileDestination, stdoutDestination } from './key-destinations.js';
import { dirname } from 'node:path';
import { ProfileKeyChangedError, profileKeyHome } from '../../shared/profile-key.js';
import { notDue, reportNotDue, type IfOlderThan, type NotDue } from './rotate-due.js';
import {
  describeFailure,
  newKeyPrefix,
  OldKeyUncertainError,
  rotationDocument,
  where,
  type ConfigTarget,
  type RotationState,
  type Suggest,
  type Target,
} from './rotate-report.js';

/**
 * Replaces the key in use without losing access: (1) find it and decide where the new key goes,
 * here; then steps 2-5 (create, check, store, revoke the old key) are the flow of
 * src/api/rotation.ts, whose failure policy keeps a working key whatever step fails or is
 * interrupted. This module draws its steps and keeps a key the flow hands back; the message
 * and the hint come from rotate-report.ts.
 */
export interface RotateOptions {
  /** The new key's name (default: the old name and the date). */
  name: string | undefined;
  outputFile: string | undefined;
  /** A shell command that stores the new key, read from its stdin (a secret store's CLI). */
  toCommand: string | undefined;
  /** Leave the old key active (step 5 left out). */
  keepOld: boolean;
  /** Rotate only a key in use created longer ago than this (a scheduled job); else say it is not due. */
  ifOlderThan: IfOlderThan | undefined;
  yes: boolean;
}

export async function keysRotateRun(deps: Deps, options: RotateOptions): Promise<number> {
  const plan = await prepare(deps, options);
  if ('notDue' in plan) return reportNotDue(deps, plan.notDue);
  return rotateWith(deps, plan);
}

/** What step 1 decided: the key to replace, where the new key goes, and its name. */
interface Plan {
  old: OldKey;
  target: Target;
  newName: string;
  keepOld: boolean;
}

/**
 * Step 1: nothing is created until the old key, its id and the new key's home are all known, and
 * (--if-older-than) the key is due. Every flag is checked first, so that a scheduled job whose
 * flags are wrong fails on its first run, not on the first run that finds the key due.
 */
async function prepare(deps: Deps, options: RotateOptions): Promise<Plan | { notDue: NotDue }> {
  const nameFlag = options.name;
  const outputFile = options.outputFile;
  const key = await deps.settings.requireApiKey(deps.signal);
  let target: Target;
  if (options.toCommand !== undefined) {
    if (options.toCommand.trim() === '') throw new UsageError('--to-command needs a command');
    if (outputFile !== undefined) {
      throw new UsageError('--to-command and --output-file both say where the new key goes: give one', 'with --to-command the command is the store; it can write a file itself');
    }
    // A key from the keyring or the config file is replaced there too (after the command): crawl must
    // go on working. A secret manager's key is left to the command given here, which stores it instead.
    const config = key.source === 'config' && key.store?.kind !== 'command' ? profileTarget(deps, key) : undefined;
    target = { kind: 'command', command: options.toCommand, config };
  } else if (key.source === 'config') {
    if (outputFile !== undefined) {
      throw new UsageError(
        `--output-file is for a key that comes from CRAWL_API_KEY; this profile's key is in the ${key.store?.describe() ?? 'config file'}, and the new key replaces it there`,
        `run \`${crawlCommand(deps, ['keys', 'rotate'])}\` without --output-file`,
      );
    }
    target = { kind: 'config', ...profileTarget(deps, key) };
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
  const found = findOldKey(keys, key.value);
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
  if (found.kind === 'bad-id') {
    // The id comes from the service, not from the user: a malformed answer (exit 1), not a usage error.
    throw new CrawlError(
      `the service lists the key in use ${keyLabel(found.key)} with an id that cannot be sent in a URL path (${found.problem}), so it could not be revoked: nothing was changed`,
      ExitCode.failure,
    );
  }
  const old = found.key;
  if (options.ifOlderThan) {
    const due = notDue(deps, old, options.ifOlderThan);
    if (due) return { notDue: due };
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
  return { old: found.old, target, newName, keepOld: options.keepOld };
}

/** The profile whose key is replaced, and how messages name its store. */
function profileTarget(deps: Deps, key: ResolvedKey): ConfigTarget {
  const path = deps.settings.store.path;
  const profile = deps.settings.profile().value;
  const kind = key.store?.kind;
  const home =
    kind === 'keyring' && key.store
      ? `the ${key.store.describe()} (profile "${profile}")`
      : kind === 'command'
        ? `the secret manager of profile "${profile}" (its key-store-command)`
        : `the config file ${path} (profile "${profile}")`;
  return { path, profile, replaces: key.value, home };
}

/**
 * From the POST until the new key is stored or printed, the key exists nowhere else: a critical
 * section, so the forced exit after Ctrl-C waits for it (src/app/guard.ts).
 */
function rotateWith(deps: Deps, plan: Plan): Promise<number> {
  return deps.guard.critical(() => steps(deps, plan));
}

async function steps(deps: Deps, plan: Plan): Promise<number> {
  const style = await deps.style('stderr');
  const progress = (line: string): void => {
    if (!deps.globals.json) deps.io.stderr.write(`${style.green('✓')} ${line}\n`);
  };
  const result = await rotate(
    {
      http: (apiKey, options) => deps.http({ ...(apiKey === undefined ? {} : { apiKey }), ...(options?.evenIfAborted ? { evenIfInterrupted: true } : {}) }),
      signal: deps.signal,
      secret: (key) => deps.redactor.add(key),
      report: (step, r) => {
        // The store failed but holds the new key all the same: said, and the rotation goes on.
        if (step === 'store' && r.asked?.held === 'new') deps.io.stderr.write(`crawl: warning: ${storeFailure(r.asked.error)}; but ${where(plan.target)} holds the new key, so the rotation goes on\n`);
        progress(stepLine(step, { result: r, target: plan.target, printed: false }));
      },
    },
    { old: plan.old, name: plan.newName, target: flowTarget(deps, plan.target), keepOld: plan.keepOld },
  );
  const s: RotationState = { result, target: plan.target, printed: false };
  if (result.failure) return fail(deps, s, result.failure);
  if (result.keepOld) return kept(deps, s, progress);

  if (deps.globals.json) {
    writeJson(deps.io, JSON.stringify(rotationDocument(s)));
  } else if (s.target.kind === 'command') {
    // A later step of a CI job reads the store anew; a later line of the same script has the old
    // key in its environment until it reads the store again itself.
    if (!s.target.config) {
      deps.io.stderr.write('note: CRAWL_API_KEY still holds the old key, which no longer works: later steps of the job get the new one from the store, but later commands of this script must read it from the store again first\n');
    }
  } else if (s.target.kind === 'file') {
    deps.io.stderr.write(`note: CRAWL_API_KEY still holds the old key, which no longer works: set it from ${s.target.path}\n`);
  } else if (s.target.kind === 'stdout') {
    deps.io.stderr.write('note: CRAWL_API_KEY still holds the old key, which no longer works: set it to the new key printed on stdout\n');
  }
  // Ctrl-C came while the revocation was on the wire, and it went through: all is done, but the
  // run was interrupted all the same.
  if (result.interruptedAfterAll) {
    throw new CrawlError('interrupted, but the rotation had completed: all five steps were done', interruptCode(deps));
  }
  return ExitCode.ok;
}

/** The ✓ line of a step the flow reports done. */
function stepLine(step: RotationStep, s: RotationState): string {
  const r = s.result;
  if (step === 'create') return `Created key "${sanitize(r.created?.name ?? r.name)}" (${sanitize(newKeyPrefix(s))})`;
  if (step === 'verify') return 'The service accepts the new key';
  if (step === 'store') return `Stored the new key in ${where(s.target)}`;
  return `Revoked the old key ${keyLabel({ id: r.old.id, name: r.old.name, keyPrefix: r.old.prefix })}`;
}

/** Where the user's choice puts the key, in the flow's terms. */
function flowTarget(deps: Deps, target: Target): RotationTarget {
  // Only over the key this rotation replaces: a concurrent rotation or login may have stored its own.
  if (target.kind === 'config') return { home: profileKeyHome(deps), replaces: target.replaces };
  if (target.kind === 'file') return { destination: fileDestination(deps, target.path) };
  if (target.kind === 'stdout') return { destination: stdoutDestination(deps) };
  const destination = commandDestination(deps, target.command);
  return target.config ? { destination, home: profileKeyHome(deps), replaces: target.config.replaces } : { destination };
}

function storeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function interruptCode(deps: Deps): number {
  return deps.signal.reason instanceof InterruptedError ? deps.signal.reason.exitCode : ExitCode.interrupted;
}

/** --keep-old: the new key is stored and checked; the old one is left active, and named. */
function kept(deps: Deps, s: RotationState, progress: (line: string) => void): number {
  const old = s.result.old;
  const label = keyLabel({ id: old.id, name: old.name, keyPrefix: old.prefix });
  progress(`Left the old key ${label} active (--keep-old)`);
  if (deps.globals.json) writeJson(deps.io, JSON.stringify(rotationDocument(s)));
  else deps.io.stderr.write(`note: retire it when its window ends: \`${crawlCommand(deps, ['keys', 'revoke'], [old.id], ['--yes'])}\`\n`);
  if (s.result.interruptedAfterAll) {
    throw new CrawlError('interrupted, but the new key had been created, checked and stored; the old key is active, as --keep-old asks', interruptCode(deps));
  }
  return ExitCode.ok;
}

/**
 * The flow stopped (src/api/rotation.ts says what it did with the new key). A key it handed back
 * unstored is kept here: printed once on stdout, or, when it was meant for a store (a CI job,
 * whose stdout is a log), written to a 0600 file in the config folder first.
 * Always throws: the message says what state things are in and what to run next.
 */
async function fail(deps: Deps, s: RotationState, failure: RotationFailure): Promise<never> {
  const { step, error, interrupted } = failure;
  const c = s.result.created;
  if (c && s.result.place === 'unstored') {
    // Meant for a store run unattended (CI): its stdout is a log.
    if (s.result.unattended) {
      try {
        s.rescueFile = await rescueKeyFile(dirname(deps.settings.store.path), newKeyPrefix(s), c.secret(), deps.clock.now(), deps);
      } catch (rescue) {
        s.rescueFailed = isCrawlError(rescue) ? rescue.message : String(rescue);
      }
    }
    if (s.rescueFile === undefined) {
      s.printed = true;
      // With --json the key goes in the document (new.key), printed below.
      if (!deps.globals.json) await handOver(deps, s, c.secret() + '\n');
    }
  }
  if (deps.globals.json && c) await handOver(deps, s, jsonDocument(deps.io, JSON.stringify(rotationDocument(s))));

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
  const exitCode = interrupted ? interruptCode(deps) : known ? error.exitCode : ExitCode.failure;
  const httpStatus = known ? error.httpStatus : undefined;
  throw new CrawlError(message, exitCode, { ...(hint === undefined ? {} : { hint }), ...(httpStatus === undefined ? {} : { httpStatus }) });
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
