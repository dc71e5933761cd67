// What `crawl keys rotate` says about a rotation: its --json document, and, when it stopped, the
// message (what was done, where the new key is, what the old key's state is) and the hint (what to
// run next). All of it is read off the flow's result (src/api/rotation.ts); nothing here decides.
import { OldKeyUncertainError, type RotationResult, type RotationStep } from '../../../api/rotation.js';
import { maskKey } from '../../../text/mask.js';
import { sanitize } from '../../../text/sanitize.js';

export type Step = RotationStep;

/** Steps 2-5 of a rotation (step 1, finding the key in use, changes nothing). */
export const STEP_NUMBER: Record<Step, number> = { create: 2, verify: 3, store: 4, revoke: 5 };

/** The profile whose key is rotated (in its own store): the new key is stored only over `replaces`. */
export interface ConfigTarget {
  /** The config file. */
  path: string;
  profile: string;
  replaces: string;
  /** Where the profile's key lives, for messages: `the config file <path> (profile "ci")`, the keyring, a secret manager. */
  home: string;
}

/**
 * Where the new key goes, as the user named it. `stdout` is `--output-file -`: the key alone on
 * standard output. `command` is `--to-command`: a command that gets the key on its stdin and
 * stores it (a secret store's CLI), and, when the key in use came from the config file, that
 * profile too.
 */
export type Target =
  | ({ kind: 'config' } & ConfigTarget)
  | { kind: 'file'; path: string }
  | { kind: 'stdout' }
  | { kind: 'command'; command: string; config: ConfigTarget | undefined };

/**
 * What the report, the JSON and the advice are made of: the flow's result (src/api/rotation.ts),
 * where the user asked the key to go, and what the CLI did with a key the flow handed back.
 */
export interface RotationState {
  result: RotationResult;
  target: Target;
  /** The new key is handed over on stdout (or in the JSON there): its only copy. */
  printed: boolean;
  /** Why stdout could not take the unstored key either (then nobody has it). */
  unprinted?: string;
  /** A key handed back from an unattended target (a store, a key-store-command): kept in this 0600 file. */
  rescueFile?: string;
  /** Why no rescue file could be written either. */
  rescueFailed?: string;
}

/** The created key's prefix, or its masked form when the service sent none. */
export function newKeyPrefix(s: RotationState): string {
  const c = s.result.created;
  return c ? (c.prefix ?? maskKey(c.secret())) : '';
}

/**
 * --to-command, the store not done: the new key was revoked again (`revoked`), or, when that
 * failed too, written to `rescueFile`, or (no file could be written) handed over on stdout.
 */
function rollbackOf(s: RotationState): { revoked: boolean; why?: string; rescueFile?: string } | undefined {
  const w = s.result.withdrawal;
  if (!w) return undefined;
  if (w.revoked) return { revoked: true };
  const why = s.rescueFailed === undefined ? w.why : `${w.why}; and no file could hold it (${s.rescueFailed})`;
  return { revoked: false, why, ...(s.rescueFile === undefined ? {} : { rescueFile: s.rescueFile }) };
}

export { OldKeyUncertainError };

export interface Failure {
  step: Step;
  reason: string;
  interrupted: boolean;
  /** The request was sent but its outcome is unknown (connection lost, timeout). */
  outcomeUnknown: boolean;
  /** The service answered 401/403 to the new key. */
  rejected: boolean;
  /** The profile's key in the config file was changed by someone else during the rotation. */
  configChanged?: boolean;
  /** Step 2: the service made a key no Authorization header can carry; it was not kept. */
  unusableKey?: boolean;
  /** Step 5: the DELETE answered 404: the service no longer has the old key. */
  oldKeyNotFound?: boolean;
  /** Step 5: the check before the DELETE found the old key gone or changed. */
  oldKeyUncertain?: OldKeyUncertainError['kind'];
  hint: string | undefined;
}

/**
 * The commands a report suggests, as the user would type them (profile and base URL flags
 * repeated, every value quoted for the shell): `crawl` + subcommand + operands + flags.
 */
export type Suggest = (subcommand: readonly string[], operands?: readonly unknown[], flags?: readonly string[]) => string;

/**
 * `--json`: whether the key in use was replaced (`rotated`: `--if-older-than` says false when it is
 * not due), old and new key, the steps done, and where the new key is; its value only when not stored.
 */
export function rotationDocument(s: RotationState): Record<string, unknown> {
  const created = s.result.created;
  const rollback = rollbackOf(s);
  return {
    rotated: s.result.failure === undefined,
    old: { id: s.result.old.id, name: s.result.old.name ?? null, prefix: s.result.old.prefix ?? null },
    new: created
      ? { id: created.id ?? null, name: created.name, prefix: newKeyPrefix(s), ...(s.result.done.store || (s.target.kind === 'command' && !s.printed) ? {} : { key: created.secret() }) }
      : null,
    steps: { ...s.result.done },
    storedIn: s.result.done.store ? storedIn(s.target) : s.result.destinationStored ? 'command' : null,
    ...(s.result.keepOld ? { oldKeptActive: true } : {}),
    ...(rollback ? { rolledBack: rollback.revoked } : {}),
    ...(s.rescueFile === undefined ? {} : { rescueFile: s.rescueFile }),
  };
}

function storedIn(target: Target): string {
  if (target.kind === 'config') return 'config';
  if (target.kind === 'stdout') return '-';
  if (target.kind === 'command') return target.config ? 'command+config' : 'command';
  return target.path;
}

/** The command itself is never repeated: it may carry the user's other secrets into a CI log. */
export function where(target: Target): string {
  if (target.kind === 'config') return target.home;
  if (target.kind === 'stdout') return 'standard output';
  if (target.kind === 'command') {
    return target.config ? `the --to-command destination, then ${target.config.home}` : 'the --to-command destination';
  }
  return target.path;
}

/**
 * The one-line account of a rotation that stopped: which step failed and why, what was done,
 * where the new key is and whether the old one still works; and the hint, the command(s) to run next.
 */
export function describeFailure(s: RotationState, f: Failure, json: boolean, suggest: Suggest): { message: string; hint: string | undefined } {
  const r = s.result;
  const rollback = rollbackOf(s);
  const oldLabel = `"${sanitize(r.old.name ?? '')}" (${sanitize(r.old.id)})`;
  const titles: Record<Step, string> = {
    create: 'create the new key',
    verify: 'check that the service accepts the new key',
    store: `store the new key in ${where(s.target)}`,
    revoke: 'revoke the old key',
  };
  // Interrupted while a request was on the wire: its own outcome (a timeout, an error) is said too.
  const why = !f.interrupted ? f.reason : f.reason === 'interrupted' ? 'interrupted' : `interrupted, and ${f.reason}`;
  const parts = [`key rotation stopped at step ${STEP_NUMBER[f.step]} of 5 (${titles[f.step]}): ${why}.`];

  const done: string[] = [];
  const c = r.created;
  if (c) done.push(`created the new key "${sanitize(c.name)}" (${sanitize(newKeyPrefix(s))})`);
  if (r.done.verify) done.push('the service accepts it');
  if (r.done.store) done.push(`stored it in ${where(s.target)}`);
  if (r.destinationStored && !r.done.store) done.push('the --to-command command stored it');
  if (r.done.revoke) done.push('revoked the old key');
  if (rollback?.revoked) done.push('then revoked the new key again (rolled back)');
  if (done.length > 0) parts.push(`Done: ${done.join(', ')}.`);
  if (r.asked?.held === 'old') parts.push(`Asked afterwards, ${where(s.target)} still holds the old key: the new one was kept nowhere, so no copy of it is left.`);
  else if (f.step === 'create' && f.unusableKey) parts.push(`A key "${sanitize(r.name)}" was created at the service, unusable: it was not kept.`);
  else if (f.step === 'create' && f.outcomeUnknown) parts.push(`Nothing else was changed, but a key "${sanitize(r.name)}" may have been created.`);
  else parts.push('Nothing was changed.');

  if (c && rollback && !rollback.revoked) {
    const whereNow = rollback.rescueFile ? `it is in ${rollback.rescueFile} (mode 0600), its only copy` : s.printed ? 'it is printed on stdout, its only copy' : 'nobody has a copy of it';
    parts.push(`The new key could not be revoked again (${rollback.why ?? 'unknown'}): ${whereNow}.`);
  }
  if (c && !rollback && s.rescueFile !== undefined) {
    parts.push(`The new key is in ${s.rescueFile} (mode 0600), the one copy crawl is sure of: ${where(s.target)} may hold it too.`);
  }
  if (c && !rollback && s.rescueFailed !== undefined) parts.push(`No file could hold the new key (${s.rescueFailed}).`);
  if (c && !r.done.store && s.unprinted !== undefined) {
    parts.push(`The new key could not be printed either (${s.unprinted}): nobody has a copy of it.`);
  }
  if (c && s.printed) {
    parts.push(json ? 'The new key is in the JSON on stdout (new.key): it is its only copy.' : 'The new key is printed on stdout: it is its only copy.');
  }
  if (r.destinationStored && !r.done.store && s.target.kind === 'command' && s.target.config) {
    parts.push(`The config file still holds the old key, which the --to-command store no longer does.`);
  }
  if (c && f.step === 'verify' && !r.done.store && s.target.kind === 'config') {
    parts.push('It was not stored: a key the service has not accepted must not replace one that works.');
  }
  if (!r.done.revoke) parts.push(oldKeyState(s, f, oldLabel));
  return { message: parts.join(' '), hint: nextSteps(s, f, suggest) };
}

/** What is known about the old key: only what the service said, never more. */
function oldKeyState(s: RotationState, f: Failure, oldLabel: string): string {
  if (f.step === 'revoke' && f.outcomeUnknown) return `The old key ${oldLabel} may have been revoked.`;
  if (f.oldKeyNotFound) return `The service no longer has the old key ${oldLabel} (HTTP 404): it may have been revoked meanwhile; this rotation did not revoke it.`;
  if (f.oldKeyUncertain === 'gone') return `The service no longer lists the old key ${oldLabel}: it may have been revoked meanwhile; nothing was revoked.`;
  if (f.oldKeyUncertain === 'changed') {
    return `The service now lists ${sanitize(s.result.old.id)} with another prefix than the key in use had (${sanitize(s.result.old.prefix ?? '')}): it may not be that key any more, so nothing was revoked.`;
  }
  if (f.oldKeyUncertain === 'new') return `The service lists the new key under the old key's id ${sanitize(s.result.old.id)}, so revoking that id could revoke the new key: nothing was revoked.`;
  if (f.configChanged) return `The old key ${oldLabel} was not revoked by this rotation; the config file holds the key another crawl process stored meanwhile, left as it is.`;
  if (s.result.asked?.held === 'old') return `The old key ${oldLabel} is still the working one, where it was.`;
  if (s.target.kind === 'config' && !s.result.done.store && !s.result.unattended) return `The old key ${oldLabel} is still active and still stored.`;
  return `The old key ${oldLabel} is still active.`;
}

function nextSteps(s: RotationState, f: Failure, suggest: Suggest): string | undefined {
  const revokeOld = `\`${suggest(['keys', 'revoke'], [s.result.old.id], ['--yes'])}\``;
  const list = `\`${suggest(['keys', 'list'])}\``;
  const rotateAgain = `\`${suggest(['keys', 'rotate'])}\``;
  const revokeAny = `\`${suggest(['keys', 'revoke'])} <id> --yes\``;
  const c = s.result.created;
  const rollback = rollbackOf(s);
  if (f.step === 'create') {
    if (f.unusableKey) return `find the key named "${sanitize(s.result.name)}" with ${list} and revoke it with ${revokeAny}; the old key still works`;
    if (f.outcomeUnknown) {
      return `run ${list} and revoke any key named "${sanitize(s.result.name)}" (${revokeAny}), then run ${rotateAgain} again`;
    }
    return f.hint ?? `the old key still works: run ${rotateAgain} again later`;
  }
  if (!c) return f.hint;
  const revokeNew = `\`${suggest(['keys', 'revoke'], [c.id ?? newKeyPrefix(s)], ['--yes'])}\``;
  if (rollback?.revoked) return f.hint ?? `the old key still works where it was: fix what failed, then run ${rotateAgain} again`;
  if (rollback) {
    const kept = rollback.rescueFile ? ` (its copy is ${rollback.rescueFile}: delete the file after)` : '';
    return `the old key still works where it was: revoke the new key with ${revokeNew}${kept}, then run ${rotateAgain} again`;
  }
  if (s.result.destinationStored && !s.result.done.store) {
    return `store the new key in the profile too (\`${suggest(['auth', 'login'], [], ['--with-key'])}\` reads it from stdin), then run ${revokeOld}`;
  }
  if (f.step === 'verify' && f.rejected) {
    return `the old key still works: revoke the new one with ${revokeNew}, then run ${rotateAgain} again`;
  }
  if (!s.result.done.store && s.unprinted !== undefined) {
    return `revoke the new key with ${revokeNew}, then run ${rotateAgain} again`;
  }
  if (!s.result.done.store && s.rescueFile !== undefined) {
    return `see which key the profile reads now with \`${suggest(['auth', 'status'])}\`; if it is not the new one, store it with \`${suggest(['auth', 'login'], [], ['--with-key'])} < ${s.rescueFile}\`; then run ${revokeOld} and delete the file`;
  }
  if (!s.result.done.store && f.configChanged) {
    return `see which key the profile holds now with \`${suggest(['auth', 'status'])}\`; keep the printed key or revoke it with ${revokeNew}`;
  }
  const setEnv = s.target.kind === 'file' ? `set CRAWL_API_KEY from ${s.target.path}, ` : s.target.kind === 'stdout' ? 'set CRAWL_API_KEY to the key printed on stdout, ' : '';
  if (!s.result.done.store) {
    return s.target.kind === 'config'
      ? `store the printed key with \`${suggest(['auth', 'login'], [], ['--with-key'])}\` (it checks the key), then run ${revokeOld}`
      : `keep the printed key, set CRAWL_API_KEY to it, then run ${revokeOld}`;
  }
  if (f.step === 'revoke' && f.outcomeUnknown) {
    return `${setEnv}check with ${list}: if ${sanitize(s.result.old.id)} is still listed, run ${revokeOld}`;
  }
  if (f.oldKeyNotFound || f.oldKeyUncertain === 'gone') return `${setEnv}check with ${list} that the old key is gone`;
  if (f.oldKeyUncertain !== undefined) {
    return `${setEnv}check with ${list} which key is which, and revoke the old one by its id (${revokeAny}) once you are sure`;
  }
  const check = s.result.done.verify ? '' : `check it with \`${suggest(['auth', 'status'])}\`, `;
  return s.target.kind === 'config' ? `${check}then finish with ${revokeOld}`.replace(/^then f/, 'f') : `${setEnv}${check}then finish with ${revokeOld}`;
}
