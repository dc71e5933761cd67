// Replacing the key in use without losing access: one flow for `crawl keys rotate` and the
// client's `keys.rotate()`. The front-ends only present it: the CLI draws a line for each step
// reported and builds its message from the result; the client resolves or rejects.
import { CrawlError, InterruptedError, isCrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { HttpClient } from '../http/client.js';
import { pathSegmentProblem } from '../http/url.js';
import { sanitize } from '../text/sanitize.js';
import { keyLabel } from './key-label.js';
import { createKey, identifyKeyInUse, listKeys, revokeKey, UnusableKeyError, type ApiKey, type KeyList } from './keys.js';

export type RotationStep = 'create' | 'verify' | 'store' | 'revoke';

/**
 * Where a profile's key lives (its store: the keyring, the config file, a secret manager's
 * commands): read it, and write a new key over the one it holds. `replaces`: write only if the
 * home still holds that key, checked under the config's lock by the implementation, so a
 * concurrent login or rotation is never overwritten.
 */
export interface KeyHome {
  /**
   * `command`: a secret manager's commands keep it, run unattended (CI), where stdout is a log: a
   * key handed back is kept out of it. Whatever its kind, a home is never revoked again: its
   * write reads the key back, so one that failed may hold the new key all the same.
   */
  readonly kind?: 'keyring' | 'file' | 'command';
  describe(): string;
  read(signal: AbortSignal): Promise<string | undefined>;
  write(key: string, signal: AbortSignal, options?: { replaces?: string }): Promise<void>;
}

/**
 * A place a new key is handed to once, and cannot be read back from.
 * - `new`: a place that held no key before (a new file, standard output). It replaces nothing, so
 *   a key the service has not accepted yet (the check failed or was interrupted) goes there too.
 * - `store`: a secret store that keeps the key for others (a `--to-command` command, the client's
 *   `store()`). Only a key the service accepts goes there, and a key it did not take is revoked
 *   again: a store runs unattended (CI), where nobody would pick the key up.
 */
export interface KeyDestination {
  readonly kind: 'new' | 'store';
  describe(): string;
  write(key: string, signal: AbortSignal): Promise<void>;
  /**
   * What the store holds now, asked only once `write` failed (a store that can be read, the
   * client's `read()`): its answer, not the failure, then says whether it took the key.
   */
  read?(signal: AbortSignal): Promise<string | undefined>;
}

/**
 * Where the new key goes: a destination, the profile's home, or a store and then the profile's
 * home (a profile's key rotated through `--to-command`). `replaces` is the key in use: the home
 * is written over it, and a target whose write failed is compared with it (see `asked`).
 */
export interface RotationTarget {
  destination?: KeyDestination;
  home?: KeyHome;
  replaces?: string;
}

/**
 * What a target whose write failed holds, asked then (a home kept by a secret manager's commands,
 * a store with `read`): `new` (it took the key after all), `old` (the key in use: it did not),
 * `unknown` (no answer, or another key).
 */
export type HeldAfterFailure = 'new' | 'old' | 'unknown';

/** The key in use, as the service lists it. */
export interface OldKey {
  id: string;
  name: string | undefined;
  prefix: string | undefined;
}

/** The key this rotation made. Its value is never a property, so no JSON or log of a result holds it. */
export class NewKey {
  /** From the check (step 3), or from the list read to revoke it again; the create answer has none. */
  id: string | undefined;
  readonly name: string;
  readonly prefix: string | undefined;
  readonly #key: string;

  constructor(key: string, name: string, prefix: string | undefined) {
    this.#key = key;
    this.name = name;
    this.prefix = prefix;
    this.id = undefined;
  }

  secret(): string {
    return this.#key;
  }

  toJSON(): Record<string, unknown> {
    return { id: this.id ?? null, name: this.name, prefix: this.prefix ?? null };
  }
}

/**
 * Where the new key is once the flow is over:
 * - `none`: no key was made (or the service's answer did not hand one over);
 * - `stored`: in its target (every part of it), read back where it can be;
 * - `store-only`: the destination (a store) took it, the profile's home did not;
 * - `withdrawn`: it did not reach a store, and was revoked again;
 * - `unstored`: it is in no target (a home that failed may hold it all the same) and is active:
 *   the caller must keep `created.secret()` (off stdout when `unattended`).
 */
export type NewKeyPlace = 'none' | 'stored' | 'store-only' | 'withdrawn' | 'unstored';

export interface RotationFailure {
  step: RotationStep;
  error: unknown;
  /** Ctrl-C (or the signal) came before or during the step. */
  interrupted: boolean;
}

/** What a rotation did, step by step: all a front-end needs to say what state things are in. */
export interface RotationResult {
  old: OldKey;
  /** The name the new key was asked for. */
  name: string;
  created: NewKey | undefined;
  done: Record<RotationStep, boolean>;
  /** The destination took the key (with a home after it, the home may still have failed). */
  destinationStored: boolean;
  /** The target runs unattended (a store, a command home): a key handed back must stay off stdout. */
  unattended: boolean;
  keepOld: boolean;
  /** The new key did not reach a store: it was revoked again, or could not be (why). */
  withdrawal: { revoked: true } | { revoked: false; why: string } | undefined;
  /**
   * A target's write failed and it was asked what it holds: the answer, and the failure. `new`:
   * the rotation went on (the failure is only said); `old`: the new key was withdrawn, and the old
   * key is still the working one where it was; `unknown`: the key is handed back, as when nothing can be asked.
   */
  asked: { held: HeldAfterFailure; error: unknown } | undefined;
  place: NewKeyPlace;
  failure: RotationFailure | undefined;
  /** Every step was done, but the signal was aborted meanwhile. */
  interruptedAfterAll: boolean;
}

export interface RotationContext {
  /**
   * The HTTP client of a key (the key in use when none is given); `evenIfAborted`: one whose
   * requests are sent after the signal is aborted too, to undo what was done.
   */
  http(key?: string, options?: { evenIfAborted?: boolean }): Promise<HttpClient>;
  signal: AbortSignal;
  /** Given every key the service hands over, before anything could print it. */
  secret(key: string): void;
  /** Called after each step is done (`store` too when a new place is written after a failed check). */
  report(step: RotationStep, result: Readonly<RotationResult>): void;
}

export interface RotationRequest {
  old: OldKey;
  name: string;
  target: RotationTarget;
  keepOld: boolean;
}

/**
 * Step 1, for the front-ends to phrase: which listed key is in use, and can it be revoked by id.
 * Nothing is created until this is known.
 */
export type OldKeyLookup =
  | { kind: 'found'; old: OldKey; key: ApiKey }
  | { kind: 'none' }
  | { kind: 'ambiguous'; candidates: ApiKey[] }
  | { kind: 'bad-id'; key: ApiKey; problem: string };

export function findOldKey(keys: readonly ApiKey[], inUse: string): OldKeyLookup {
  const found = identifyKeyInUse(keys, inUse);
  if (found.kind !== 'unique') return found;
  const problem = pathSegmentProblem(found.key.id);
  if (problem !== undefined) return { kind: 'bad-id', key: found.key, problem };
  return { kind: 'found', old: oldKeyOf(found.key), key: found.key };
}

export function oldKeyOf(key: ApiKey): OldKey {
  return { id: key.id, name: typeof key.name === 'string' ? key.name : undefined, prefix: typeof key.keyPrefix === 'string' ? key.keyPrefix : undefined };
}

/**
 * Before step 5, the list seen with the new key no longer shows the old key as step 1 found it:
 * `gone` (its id is not listed: revoked meanwhile, perhaps), `changed` (listed with another
 * prefix), or `new` (the new key is listed under the old key's id). Revoking it could hit a key
 * other than the one that was in use, so nothing is revoked.
 */
export class OldKeyUncertainError extends CrawlError {
  readonly kind: 'gone' | 'changed' | 'new';

  constructor(kind: 'gone' | 'changed' | 'new', message: string) {
    super(message, kind === 'gone' ? ExitCode.notFound : ExitCode.failure);
    this.name = 'OldKeyUncertainError';
    this.kind = kind;
  }
}

/**
 * (2) create the new key, (3) check that the service accepts it, (4) store it (and read it back
 * from a home), (5) revoke the old key with the new one. Never throws for a step that fails: the
 * result says which step stopped and where the new key is (the policy in docs/key-rotation.md):
 * the old key is revoked only once the new key is in its target; a new key that is not is
 * revoked again if it was meant for a store, else handed back to the caller (`unstored`).
 */
export async function rotate(ctx: RotationContext, request: RotationRequest): Promise<RotationResult> {
  const { target } = request;
  if (!target.destination && !target.home) throw new Error('a rotation needs somewhere to put the new key');
  const r: RotationResult = {
    old: request.old,
    name: request.name,
    created: undefined,
    done: { create: false, verify: false, store: false, revoke: false },
    destinationStored: false,
    unattended: target.destination?.kind === 'store' || target.home?.kind === 'command',
    keepOld: request.keepOld,
    withdrawal: undefined,
    asked: undefined,
    place: 'none',
    failure: undefined,
    interruptedAfterAll: false,
  };
  let step: RotationStep = 'create';
  try {
    // Sent once, even if the signal comes meanwhile: its answer is read, so a key the service
    // made is known and kept like any other.
    const made = await createKey(await ctx.http(), request.name);
    ctx.secret(made.key);
    const created = new NewKey(made.key, made.name ?? request.name, made.prefix);
    r.created = created;
    r.done.create = true;
    ctx.report('create', r);

    step = 'verify';
    stopIfAborted(ctx.signal);
    // Answered by the service's own origin only; the same list names the new key's id (the
    // create answer has none) and shows the old key as it is now, for step 5.
    const seen = await listKeys(await ctx.http(made.key), { sameOriginOnly: true });
    const mine = identifyKeyInUse(seen.keys, made.key);
    created.id = mine.kind === 'unique' ? mine.key.id : undefined;
    r.done.verify = true;
    ctx.report('verify', r);

    step = 'store';
    stopIfAborted(ctx.signal);
    await store(ctx, target, made.key, r);
    r.done.store = true;
    ctx.report('store', r);

    if (!request.keepOld) {
      step = 'revoke';
      stopIfAborted(ctx.signal);
      checkOldKey(r.old, created, seen);
      // With the new key: it is the one in use from now on, and this proves it can act.
      await revokeKey(await ctx.http(made.key), r.old.id);
      r.done.revoke = true;
      ctx.report('revoke', r);
    }
  } catch (error) {
    if (error instanceof UnusableKeyError) ctx.secret(error.secret());
    r.failure = { step, error, interrupted: error instanceof InterruptedError || ctx.signal.aborted };
    await settle(ctx, target, r, step);
  }
  r.place = placeOf(r);
  r.interruptedAfterAll = r.failure === undefined && ctx.signal.aborted;
  return r;
}

function stopIfAborted(signal: AbortSignal): void {
  if (!signal.aborted) return;
  throw signal.reason instanceof InterruptedError ? signal.reason : new InterruptedError();
}

async function store(ctx: RotationContext, target: RotationTarget, key: string, r: RotationResult): Promise<void> {
  // A store that took the key is not asked again (a late write after a failure comes here too).
  const destination = target.destination;
  if (destination && !r.destinationStored) {
    try {
      await destination.write(key, ctx.signal);
    } catch (error) {
      if (!destination.read || (await ask(ctx, destination.read.bind(destination), key, target, r, error)) !== 'new') throw error;
    }
    r.destinationStored = true;
  }
  const home = target.home;
  if (home) {
    try {
      await home.write(key, ctx.signal, target.replaces === undefined ? {} : { replaces: target.replaces });
      // A key reported as stored must really be there.
      const back = await home.read(ctx.signal);
      if (back !== key) throw new CrawlError(`${home.describe()} does not hold the new key after writing it`, ExitCode.failure);
    } catch (error) {
      // A home run unattended (a secret manager's commands) is asked what it holds: that costs
      // nobody a prompt, and a key handed back from it would lie in a file on disk. A keyring or
      // the config file whose write failed hands the key back to the person at the terminal
      // instead (asking a locked keyring again would prompt again).
      if (home.kind !== 'command' || (await ask(ctx, (signal) => home.read(signal), key, target, r, error)) !== 'new') throw error;
    }
  }
}

/** Asks a target whose write failed what it holds (see HeldAfterFailure), and records the answer. */
async function ask(ctx: RotationContext, read: (signal: AbortSignal) => Promise<string | undefined>, key: string, target: RotationTarget, r: RotationResult, error: unknown): Promise<HeldAfterFailure> {
  let held: HeldAfterFailure = 'unknown';
  try {
    const now = await read(ctx.signal);
    if (now === key) held = 'new';
    else if (now !== undefined && now === target.replaces) held = 'old';
  } catch {
    // No answer: the target may hold either key, or none.
  }
  r.asked = { held, error };
  return held;
}

/**
 * Step 5 revokes the old key by id, so that id must still name the key step 1 found: listed in
 * the list seen with the new key, with the same prefix, and not the new key itself.
 */
function checkOldKey(old: OldKey, created: NewKey, seen: KeyList): void {
  const label = keyLabel({ id: old.id, name: old.name, keyPrefix: old.prefix });
  const listed = seen.keys.find((k) => k.id === old.id);
  if (!listed) throw new OldKeyUncertainError('gone', `the service no longer lists the old key ${label}`);
  if (listed.keyPrefix !== old.prefix) throw new OldKeyUncertainError('changed', `the service lists ${sanitize(old.id)} with another prefix than before`);
  if (created.id === old.id) throw new OldKeyUncertainError('new', `the service lists the new key under the old key's id ${sanitize(old.id)}`);
}

/**
 * The one failure policy: the old key is still active (step 5 was not done, or failed); the new
 * key, when it exists but is not in its target, is
 * - written to a new place anyway (it replaces nothing), unless writing it is what failed;
 * - revoked again (with the old key, which still works) when a store destination did not take
 *   it: only a store's own answer (a command's exit status, store() rejecting) says for sure
 *   that it does not hold the key. A store that took it keeps it, even when the profile's home
 *   then failed;
 * - asked about where it can be: a home kept by a secret manager's commands (key-command), or a
 *   store with `read`, whose write failed, is read. The new key there: it took it, and the
 *   rotation goes on (in store()); the key in use: the new key is revoked again; no answer: as
 *   below. A keyring or config-file home is never revoked again: its write reads back, so one
 *   that failed may hold the key;
 * - else handed back to the caller, who keeps it (the CLI prints it once, the client's error
 *   holds it): a key the service has not accepted never replaces a working one in a home.
 */
async function settle(ctx: RotationContext, target: RotationTarget, r: RotationResult, step: RotationStep): Promise<void> {
  const created = r.created;
  // A store that took the key keeps it: revoking it then would leave the store a dead key.
  if (!created || r.done.store || r.destinationStored) return;
  // Asked after its write failed, the target said it still holds the key in use: the new key is
  // in no place at all, and is withdrawn, leaving no copy anywhere. A target that gave no answer
  // may hold the new key: it is handed back, never revoked.
  if (r.asked?.held === 'old') {
    await withdraw(ctx, r, created);
    return;
  }
  const destination = target.destination;
  if (destination?.kind === 'store' && r.asked === undefined) {
    await withdraw(ctx, r, created);
    return;
  }
  if (destination?.kind === 'new' && !target.home && step !== 'store') {
    try {
      await destination.write(created.secret(), ctx.signal);
      r.destinationStored = true;
      r.done.store = true;
      ctx.report('store', r);
    } catch {
      // Handed back to the caller instead.
    }
  }
}

/** The new key reached no store: revoked again with the old key, even after an abort. */
async function withdraw(ctx: RotationContext, r: RotationResult, created: NewKey): Promise<void> {
  const http = await ctx.http(undefined, { evenIfAborted: true });
  // Step 3 did not get as far as the new key's id: the old key's list can tell it.
  const id = created.id ?? (await listKeys(http).then(({ keys }) => {
    const found = identifyKeyInUse(keys, created.secret());
    return found.kind === 'unique' ? found.key.id : undefined;
  }, () => undefined));
  if (id === undefined) {
    r.withdrawal = { revoked: false, why: 'the service did not list it under an id' };
    return;
  }
  created.id = id;
  try {
    await revokeKey(http, id);
    r.withdrawal = { revoked: true };
  } catch (error) {
    r.withdrawal = { revoked: false, why: isCrawlError(error) ? error.message : String(error) };
  }
}

function placeOf(r: RotationResult): NewKeyPlace {
  if (!r.created) return 'none';
  if (r.done.store) return 'stored';
  if (r.destinationStored) return 'store-only';
  if (r.withdrawal?.revoked) return 'withdrawn';
  return 'unstored';
}
