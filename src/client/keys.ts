import { isKnownKeyOrShape, looksLikeFullKey, resolveKey } from '../api/key-match.js';
import { createKey, identifyKeyInUse, listKeys, mayBeInUse, revokeKey, rotatedName } from '../api/keys.js';
import { findOldKey, rotate } from '../api/rotation.js';
import type { ApiKey } from '../api/model.js';
import { CrawlError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { pathSegmentProblem } from '../http/url.js';
import { sanitize } from '../text/sanitize.js';
import type { Connection } from './connection.js';
import { RotationError, type RotationStep } from './errors.js';

export type { ApiKey };

/** A key the service has just made: the only time it hands the full key over. */
export interface NewKey {
  key: string;
  prefix: string | undefined;
  name: string | undefined;
  /** The service's own word about keeping the key, when it sends one. */
  warning: string | undefined;
}

export interface RevokeOptions {
  /** Revoke it even if it is (or may be) the key this client uses. */
  force?: boolean | undefined;
}

export interface RotateOptions {
  /**
   * Keeps the new key (a secret store, a file): the old key is revoked only after this resolves;
   * if it rejects, the new key is revoked again and the old one stays active.
   */
  store: (newKey: string) => Promise<void>;
  /**
   * What the store holds now, asked only when `store` rejected (a secret store that can be read):
   * the new key means it took it after all, and the rotation goes on; the key in use means it did
   * not, and the new key is revoked again; anything else, or a rejection, leaves the new key
   * active in `RotationError.secret()` (the store may hold it). Without it, a rejected `store`
   * revokes the new key again.
   */
  read?: (() => Promise<string | undefined>) | undefined;
  /** The new key's name (default: the old one's, with the date). */
  name?: string | undefined;
  /** Leave the old key active. */
  keepOld?: boolean | undefined;
  /** Called as each step is done: `create`, `verify`, `store` (store() resolved), `revoke`. */
  onStep?: ((step: 'create' | RotationStep) => void) | undefined;
}

export interface KeyRef {
  id: string;
  name: string | undefined;
  prefix: string | undefined;
}

export interface Rotation {
  old: KeyRef & { revoked: boolean };
  new: { id: string | undefined; name: string; prefix: string | undefined };
}

/** API keys: list, create, revoke, rotate (the same checks as `crawl keys`). */
export class KeysClient {
  readonly #c: Connection;

  /** @internal */
  constructor(connection: Connection) {
    this.#c = connection;
  }

  /** GET /api/keys: the active keys, with prefixes only. */
  async list(): Promise<ApiKey[]> {
    return (await listKeys(this.#c.http())).keys;
  }

  /** POST /api/keys, sent once (a retry could make a second key nobody sees). */
  async create(name: string): Promise<NewKey> {
    const created = await createKey(this.#c.http(), name);
    this.#c.redactor.add(created.key);
    return { key: created.key, prefix: created.prefix, name: created.name, warning: created.warning };
  }

  /**
   * DELETE /api/keys/:id for an id, a unique keyPrefix beginning or a unique name. A full key is
   * refused (not used, not echoed), and so is the key in use unless `force`.
   */
  async revoke(idOrPrefix: string, options: RevokeOptions = {}): Promise<{ id: string; body: unknown }> {
    const arg = idOrPrefix.trim();
    if (arg === '') throw new UsageError('give the id, a unique prefix or the name of the key to revoke');
    const inUse = this.#c.apiKey();
    const refuse = (): never => {
      this.#c.redactor.add(arg);
      throw new UsageError("the argument looks like a full API key, not a key's id or prefix: not used, and nothing was revoked");
    };
    if (isKnownKeyOrShape(arg, [inUse], inUse)) refuse();
    const http = this.#c.http();
    const { keys } = await listKeys(http);
    if (looksLikeFullKey(keys, arg)) refuse();
    const found = resolveKey(keys, arg);
    const shown = `"${this.#c.redactor.redact(sanitize(arg))}"`;
    if (found.kind === 'missing') throw new CrawlError(`no active key has the id, prefix or name ${shown}: nothing was revoked`, ExitCode.notFound);
    if (found.kind === 'ambiguous') throw new UsageError(`${shown} matches ${found.candidates.length} keys (${found.candidates.map(label).join(', ')}): nothing was revoked`);
    const key = found.key;
    checkId(key);
    if (!options.force && mayBeInUse(identifyKeyInUse(keys, inUse)).includes(key)) {
      throw new UsageError(`${label(key)} is (or may be) the key this client uses: nothing was revoked`, 'rotate it with keys.rotate(), or pass { force: true }');
    }
    const revoked = await revokeKey(http, key.id);
    return { id: key.id, body: revoked.body };
  }

  /**
   * Replaces the key in use: (1) find it, (2) create the new key, (3) check the service accepts
   * it, (4) `store` it, (5) revoke the old key with the new one: the flow `crawl keys rotate`
   * runs (src/api/rotation.ts), with `store` as a secret store. A failure before (4) is done
   * revokes the new key again; if even that fails, the RotationError holds it (`secret()`), never
   * in its message. The old key is revoked only once `store` has resolved.
   */
  async rotate(options: RotateOptions): Promise<Rotation> {
    const oldKey = this.#c.apiKey();
    const { keys } = await listKeys(this.#c.http());
    const found = findOldKey(keys, oldKey);
    if (found.kind === 'none') throw new CrawlError('the key in use is not among the active keys the service lists; nothing was changed', ExitCode.notFound);
    if (found.kind === 'ambiguous') {
      throw new CrawlError(
        `the key in use cannot be told apart: the prefixes of ${found.candidates.length} listed keys begin it (${found.candidates.map(label).join(', ')}); rotating could revoke the wrong key, so nothing was changed`,
        ExitCode.failure,
      );
    }
    if (found.kind === 'bad-id') throw new CrawlError(`the service lists key ${label(found.key)} with an id that cannot be sent in a URL path (${found.problem})`, ExitCode.failure);
    const old = ref(found.key);
    const name = options.name ?? rotatedName(found.key.name, this.#c.system.clock.now());
    const store = options.store;
    const read = options.read;
    const onStep = options.onStep;
    const result = await rotate(
      {
        http: (key, httpOptions) => Promise.resolve(this.#c.http(key, httpOptions)),
        signal: this.#c.signal,
        secret: (key) => this.#c.redactor.add(key),
        report: (step) => onStep?.(step),
      },
      {
        old: found.old,
        name,
        target: {
          destination: { kind: 'store', describe: () => 'store()', write: (key) => store(key), ...(read === undefined ? {} : { read: () => read() }) },
          replaces: oldKey,
        },
        keepOld: options.keepOld === true,
      },
    );
    const created = result.created;
    const fresh = { id: created?.id, name: created?.name ?? name, prefix: created?.prefix };
    const failure = result.failure;
    if (failure === undefined) return { old: { ...old, revoked: result.done.revoke }, new: fresh };
    const { step, error } = failure;
    // Nothing was made (or the answer did not hand a key over): the service's own error.
    if (step === 'create' || created === undefined) throw error;
    if (step === 'revoke') {
      throw new RotationError('revoke', `the new key is stored, but the old key ${label(found.key)} may still be active: ${this.#said(error)}`, exitCodeOf(error), { stored: true, rolledBack: false, cause: error });
    }
    const what = step === 'store' ? 'store() did not keep the new key' : 'the service did not accept the new key';
    const withdrawal = result.withdrawal;
    const asked = result.asked?.held;
    if (withdrawal?.revoked) {
      const held = asked === 'old' ? ' (read() shows the store still holds the key in use)' : '';
      throw new RotationError(step, `${what} (${this.#said(error)})${held}: the new key was revoked again; the old key is still active`, exitCodeOf(error), { stored: false, rolledBack: true, cause: error });
    }
    if (asked === 'unknown') {
      throw new RotationError(
        step,
        `${what} (${this.#said(error)}), and read() could not say what the store holds: the new key is active and may be in the store; error.secret() holds it, and the old key is still active`,
        exitCodeOf(error),
        { stored: false, rolledBack: false, cause: error, key: created.secret() },
      );
    }
    throw new RotationError(
      step,
      `${what} (${this.#said(error)}), and the new key could not be revoked again (${this.#c.redactor.redact(withdrawal?.why ?? 'unknown')}): it is active, and only error.secret() holds it`,
      exitCodeOf(error),
      { stored: false, rolledBack: false, cause: error, key: created.secret() },
    );
  }

  /** An error's message for ours: a store() that quoted the key does not get it printed. */
  #said(error: unknown): string {
    return this.#c.redactor.redact(error instanceof Error ? error.message : String(error));
  }
}

function ref(key: ApiKey): KeyRef {
  return { id: key.id, name: typeof key.name === 'string' ? key.name : undefined, prefix: typeof key.keyPrefix === 'string' ? key.keyPrefix : undefined };
}

function label(key: ApiKey): string {
  const prefix = typeof key.keyPrefix === 'string' ? ` (${sanitize(key.keyPrefix)})` : '';
  return `${sanitize(key.id)}${prefix}`;
}

function checkId(key: ApiKey): void {
  const problem = pathSegmentProblem(key.id);
  if (problem !== undefined) throw new CrawlError(`the service lists key ${label(key)} with an id that cannot be sent in a URL path (${problem})`, ExitCode.failure);
}

function exitCodeOf(error: unknown): number {
  return error instanceof CrawlError ? error.exitCode : ExitCode.failure;
}
