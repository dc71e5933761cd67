import { sanitize } from '../../output/sanitize.js';

export type Step = 'create' | 'verify' | 'store' | 'revoke';

/** Steps 2-5 of a rotation (step 1, finding the key in use, changes nothing). */
export const STEP_NUMBER: Record<Step, number> = { create: 2, verify: 3, store: 4, revoke: 5 };

/** For the config, `replaces` is the key being rotated: the new one is stored only over it. */
export type Target = { kind: 'config'; path: string; profile: string; replaces: string } | { kind: 'file'; path: string };

/** Everything a rotation has done so far: what its report, its JSON and its advice are made of. */
export interface RotationState {
  old: { id: string; name: string | undefined; prefix: string | undefined };
  target: Target;
  newName: string;
  created?: { key: string; id: string | undefined; name: string; prefix: string };
  done: Record<Step, boolean>;
  /** The new key could not be stored, so it was handed over on stdout: its only copy. */
  printed: boolean;
  /** Why stdout could not take the unstored key either (then nobody has it). */
  unprinted?: string;
}

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
  hint: string | undefined;
}

/** `--json`: old and new key, the steps done, and where the new key is; its value only when not stored. */
export function rotationDocument(s: RotationState): Record<string, unknown> {
  const created = s.created;
  return {
    old: { id: s.old.id, name: s.old.name ?? null, prefix: s.old.prefix ?? null },
    new: created
      ? { id: created.id ?? null, name: created.name, prefix: created.prefix, ...(s.done.store ? {} : { key: created.key }) }
      : null,
    steps: { ...s.done },
    storedIn: s.done.store ? (s.target.kind === 'config' ? 'config' : s.target.path) : null,
  };
}

export function where(target: Target): string {
  return target.kind === 'config' ? `the config file ${target.path} (profile "${target.profile}")` : target.path;
}

/**
 * The one-line account of a rotation that stopped: which step failed and why, what was done,
 * where the new key is and whether the old one still works; and the hint, the command(s) to run next.
 */
export function describeFailure(s: RotationState, f: Failure, json: boolean): { message: string; hint: string | undefined } {
  const oldLabel = `"${sanitize(s.old.name ?? '')}" (${sanitize(s.old.id)})`;
  const titles: Record<Step, string> = {
    create: 'create the new key',
    verify: 'check that the service accepts the new key',
    store: `store the new key in ${where(s.target)}`,
    revoke: 'revoke the old key',
  };
  const parts = [`key rotation stopped at step ${STEP_NUMBER[f.step]} of 5 (${titles[f.step]}): ${f.interrupted ? 'interrupted' : f.reason}.`];

  const done: string[] = [];
  const c = s.created;
  if (c) done.push(`created the new key "${sanitize(c.name)}" (${sanitize(c.prefix)})`);
  if (s.done.verify) done.push('the service accepts it');
  if (s.done.store) done.push(`stored it in ${where(s.target)}`);
  if (s.done.revoke) done.push('revoked the old key');
  if (done.length > 0) parts.push(`Done: ${done.join(', ')}.`);
  else if (f.step === 'create' && f.outcomeUnknown) parts.push(`Nothing else was changed, but a key "${sanitize(s.newName)}" may have been created.`);
  else parts.push('Nothing was changed.');

  if (c && !s.done.store && s.unprinted !== undefined) {
    parts.push(`The new key could not be printed either (${s.unprinted}): nobody has a copy of it.`);
  }
  if (c && s.printed) {
    parts.push(json ? 'The new key is in the JSON on stdout (new.key): it is its only copy.' : 'The new key is printed on stdout: it is its only copy.');
  }
  if (c && f.step === 'verify' && !s.done.store && s.target.kind === 'config') {
    parts.push('It was not stored: a key the service has not accepted must not replace one that works.');
  }
  if (!s.done.revoke) {
    if (f.step === 'revoke' && f.outcomeUnknown) parts.push(`The old key ${oldLabel} may have been revoked.`);
    else if (f.configChanged) parts.push(`The old key ${oldLabel} was not revoked by this rotation; the config file holds the key another crawl process stored meanwhile, left as it is.`);
    else if (s.target.kind === 'config' && !s.done.store) parts.push(`The old key ${oldLabel} is still active and still stored.`);
    else parts.push(`The old key ${oldLabel} is still active.`);
  }
  return { message: parts.join(' '), hint: nextSteps(s, f) };
}

function nextSteps(s: RotationState, f: Failure): string | undefined {
  const revokeOld = `\`crawl keys revoke ${s.old.id} --yes\``;
  const c = s.created;
  if (f.step === 'create') {
    if (f.outcomeUnknown) {
      return `run \`crawl keys list\` and revoke any key named "${sanitize(s.newName)}" (\`crawl keys revoke <id> --yes\`), then run \`crawl keys rotate\` again`;
    }
    return f.hint ?? 'the old key still works: run `crawl keys rotate` again later';
  }
  if (!c) return f.hint;
  const newRef = sanitize(c.id ?? c.prefix);
  if (f.step === 'verify' && f.rejected) {
    return `the old key still works: revoke the new one with \`crawl keys revoke ${newRef} --yes\`, then run \`crawl keys rotate\` again`;
  }
  if (!s.done.store && s.unprinted !== undefined) {
    return `revoke the new key with \`crawl keys revoke ${newRef} --yes\`, then run \`crawl keys rotate\` again`;
  }
  if (!s.done.store && f.configChanged) {
    return `see which key the profile holds now with \`crawl auth status\`; keep the printed key or revoke it with \`crawl keys revoke ${newRef} --yes\``;
  }
  if (!s.done.store) {
    return s.target.kind === 'config'
      ? `store the printed key with \`crawl auth login --with-key\` (it checks the key), then run ${revokeOld}`
      : `keep the printed key, set CRAWL_API_KEY to it, then run ${revokeOld}`;
  }
  if (f.step === 'revoke' && f.outcomeUnknown) {
    return s.target.kind === 'config'
      ? `check with \`crawl keys list\`: if ${sanitize(s.old.id)} is still listed, run ${revokeOld}`
      : `set CRAWL_API_KEY from ${s.target.path}, check with \`crawl keys list\`: if ${sanitize(s.old.id)} is still listed, run ${revokeOld}`;
  }
  const check = s.done.verify ? '' : 'check it with `crawl auth status`, ';
  return s.target.kind === 'config'
    ? `${check}then finish with ${revokeOld}`.replace(/^then f/, 'f')
    : `set CRAWL_API_KEY from ${s.target.path}, ${check}then finish with ${revokeOld}`;
}
