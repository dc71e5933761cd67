// The system keyring: the freedesktop Secret Service on Linux and the BSDs (spoken over D-Bus,
// platform/dbus/), the macOS Keychain and the Windows Credential Manager through the native
// binding (native-keyring.ts). Every call is bounded; a locked keyring is unlocked only when a
// person can answer the prompt, and otherwise reported with the ways around it.
import type { Env } from '../../platform/env.js';
// Types only: the D-Bus code loads when a key lives in the Secret Service (see #secretService).
import type { SecretService } from '../../platform/dbus/secret-service.js';
import type { DBusError } from '../../platform/dbus/connection.js';
import { sanitize } from '../../text/sanitize.js';
import { bounded, KeyringUnavailableError, KeyStoreError, type DeadlineClock, type KeyStore, type KeyStoreBounds } from './key-store.js';
import { entryAttributes, type KeyringEntry } from './keyring-entry.js';
import { describeKeyring } from './store-names.js';
import type * as NativeKeyringModule from './native-keyring.js';

type NativeKeyring = typeof NativeKeyringModule;

export interface KeyringContext {
  env: Env;
  platform: NodeJS.Platform;
  /** The user the session bus authenticates (undefined where there is no such thing). */
  uid: number | undefined;
  bounds: KeyStoreBounds;
  clock: DeadlineClock;
  /** A person is at a terminal who can answer the keyring's unlock dialog (not --no-input, not CI). */
  interactive(): boolean;
  /** One line for the user on stderr (waiting for an unlock). */
  notice(line: string): void;
  /** The `crawl …` command lines hints name (with the run's --profile). */
  command(words: readonly string[]): string;
}

function usesSecretService(platform: NodeJS.Platform): boolean {
  return platform !== 'darwin' && platform !== 'win32';
}

export class KeyringStore implements KeyStore {
  readonly kind = 'keyring' as const;
  readonly entry: KeyringEntry;
  readonly #label: string;
  readonly #ctx: KeyringContext;

  constructor(entry: KeyringEntry, label: string, ctx: KeyringContext) {
    this.entry = entry;
    this.#label = label;
    this.#ctx = ctx;
  }

  describe(): string {
    return describeKeyring(this.#ctx.platform);
  }

  read(signal: AbortSignal): Promise<string | undefined> {
    if (!usesSecretService(this.#ctx.platform)) return this.#native('read', signal, (n, s) => n.read(this.entry, s));
    return this.#secretService('read', signal, async (ss, call, unlock) => {
      // The session the secret travels in is opened beside the search: one round trip, not two.
      const item = await call((s) => {
        ss.openSession(s).catch(() => undefined);
        return ss.find(entryAttributes(this.entry), s);
      });
      if (item === undefined) return undefined;
      if (item.locked) await unlock([item.path]);
      return call((s) => ss.read(item.path, s));
    });
  }

  async write(key: string, signal: AbortSignal): Promise<void> {
    if (!usesSecretService(this.#ctx.platform)) return this.#native('write', signal, (n, s) => n.write(this.entry, key, s));
    return this.#secretService('write', signal, async (ss, call, unlock) => {
      const collection = await call((s) => ss.defaultCollection(s));
      if (collection === undefined) {
        throw new KeyStoreError(
          'the system keyring (Secret Service) has no default collection to store the key in',
          `create one in your keyring app (GNOME: Passwords and Keys), or store the key in the config file with \`${this.#ctx.command(['auth', 'login', '--insecure-storage'])}\``,
        );
      }
      if (collection.locked) await unlock([collection.path]);
      await call((s) => ss.store(collection.path, this.#label, entryAttributes(this.entry), key, s));
    });
  }

  async erase(signal: AbortSignal): Promise<boolean> {
    if (!usesSecretService(this.#ctx.platform)) return this.#native('remove', signal, (n, s) => n.erase(this.entry, s));
    return this.#secretService('remove', signal, async (ss, call, unlock) => {
      let removed = false;
      // Every copy: a second one (written by another tool, or restored) would be found next time.
      for (let i = 0; i < 16; i++) {
        const item = await call((s) => ss.find(entryAttributes(this.entry), s));
        if (item === undefined) break;
        if (item.locked) await unlock([item.path]);
        await call((s) => ss.delete(item.path, s));
        removed = true;
      }
      return removed;
    });
  }

  async #secretService<T>(
    what: 'read' | 'write' | 'remove',
    runSignal: AbortSignal,
    work: (ss: SecretService, call: Call, unlock: (paths: string[]) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const ctx = this.#ctx;
    const name = this.describe();
    const uid = ctx.uid;
    if (uid === undefined) throw new KeyringUnavailableError('this system has no user id to give the session bus');
    // Each call has the short bound; an unlock, which waits for a person, the long one.
    const call: Call = (fn) => bounded(ctx.clock, ctx.bounds.callMs, runSignal, () => new KeyStoreError(`the ${name} did not answer within ${seconds(ctx.bounds.callMs)}`, this.#unansweredHint()), fn);
    let service: SecretService | undefined;
    try {
      const { SecretService: Service } = await import('../../platform/dbus/secret-service.js');
      const ss = await call(async (signal) => {
        try {
          return await Service.open(ctx.env, uid, signal);
        } catch (error) {
          if (error instanceof Error && error.name === 'SecretServiceUnreachable') throw new KeyringUnavailableError(error.message, this.#unavailableHint());
          throw error;
        }
      });
      service = ss;
      const unlock = async (paths: string[]): Promise<void> => {
        if (!ctx.interactive()) throw new KeyStoreError(`the ${name} is locked`, this.#lockedHint());
        ctx.notice(`the ${name} is locked: unlock it in the dialog on your desktop (waiting up to ${seconds(ctx.bounds.unlockMs)}; Ctrl-C stops)`);
        await bounded(
          ctx.clock,
          ctx.bounds.unlockMs,
          runSignal,
          () => new KeyStoreError(`the ${name} stayed locked: nobody unlocked it within ${seconds(ctx.bounds.unlockMs)}`, this.#lockedHint()),
          (signal) => ss.unlock(paths, signal),
        );
      };
      return await work(ss, call, unlock);
    } catch (error) {
      throw this.#explain(what, error, runSignal);
    } finally {
      service?.close();
    }
  }

  #explain(what: string, error: unknown, runSignal: AbortSignal): unknown {
    if (runSignal.aborted && error === runSignal.reason) return error;
    if (error instanceof KeyStoreError) return error;
    // No Secret Service on the bus shows at the first call that needs one.
    if (error instanceof Error && error.name === 'SecretServiceUnreachable') return new KeyringUnavailableError(error.message, this.#unavailableHint());
    const name = this.describe();
    if (error instanceof Error && error.name === 'SecretServiceLocked') {
      return new KeyStoreError(`the ${name} stayed locked: ${error.message}`, this.#lockedHint());
    }
    if (error instanceof Error && error.name === 'DBusError') {
      const dbusError = error as DBusError;
      if (/IsLocked/.test(dbusError.dbusName)) return new KeyStoreError(`the ${name} is locked`, this.#lockedHint());
      if (/AccessDenied|NotAuthorized/.test(dbusError.dbusName)) return new KeyStoreError(`the ${name} refused access to the key (${sanitize(dbusError.dbusName)})`, this.#unansweredHint());
      return new KeyStoreError(`could not ${what} the key in the ${name}: ${sanitize(dbusError.message).slice(0, 200)}`, this.#unansweredHint());
    }
    return error;
  }

  async #native<T>(what: 'read' | 'write' | 'remove', runSignal: AbortSignal, work: (n: NativeKeyring, signal: AbortSignal) => Promise<T>): Promise<T> {
    const ctx = this.#ctx;
    const name = this.describe();
    const bound = ctx.interactive() ? ctx.bounds.unlockMs : ctx.bounds.callMs;
    try {
      const native = await import('./native-keyring.js');
      return await bounded(ctx.clock, bound, runSignal, () => new KeyStoreError(`the ${name} did not answer within ${seconds(bound)}`, this.#unansweredHint()), (signal) => work(native, signal));
    } catch (error) {
      if (runSignal.aborted && error === runSignal.reason) throw error;
      if (error instanceof KeyStoreError) throw error;
      const reason = sanitize(error instanceof Error ? error.message : String(error)).slice(0, 200);
      throw new KeyStoreError(`could not ${what} the key in the ${name}: ${reason}`, this.#unansweredHint());
    }
  }

  #lockedHint(): string {
    const ways = [
      usesSecretService(this.#ctx.platform)
        ? 'unlock it on the desktop, or from a shell (over SSH too): `gnome-keyring-daemon --unlock`, type the keyring password, then press Ctrl-D'
        : 'unlock it',
      'or set CRAWL_API_KEY for this shell',
      `or keep the key in the config file instead: \`${this.#ctx.command(['auth', 'login', '--insecure-storage'])}\``,
    ];
    return ways.join('; ');
  }

  #unansweredHint(): string {
    return `set CRAWL_API_KEY for this shell, or keep the key in the config file instead: \`${this.#ctx.command(['auth', 'login', '--insecure-storage'])}\``;
  }

  #unavailableHint(): string {
    return `log in on this machine with \`${this.#ctx.command(['auth', 'login'])}\` (the key then goes where this machine can keep it), or set CRAWL_API_KEY`;
  }
}

type Call = <R>(fn: (signal: AbortSignal) => Promise<R>) => Promise<R>;

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
