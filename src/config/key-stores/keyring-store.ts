// The system keyring: the freedesktop Secret Service on Linux and the BSDs (spoken over D-Bus,
// platform/dbus/), the macOS Keychain and the Windows Credential Manager through the native
// binding (native-keyring.ts). Every call is bounded; a locked keyring is unlocked only when a
// person can answer the prompt, and otherwise reported with the ways around it.
import { CALLED_OFF } from '../../platform/deadline.js';
import type { Env } from '../../platform/env.js';
// Types only: the D-Bus code loads when a key lives in the Secret Service (see #secretService).
import type { SecretService } from '../../platform/dbus/secret-service.js';
import type { DBusError } from '../../platform/dbus/connection.js';
import { userBusAddress } from '../../platform/user-bus.js';
import { sanitize } from '../../text/sanitize.js';
import { bounded, KeyringUnavailableError, KeyringUnreachableError, KeyStoreError, type DeadlineClock, type KeyStore, type KeyStoreBounds } from './key-store.js';
import { entryAttributes, type KeyringEntry } from './keyring-entry.js';
import { describeKeyring } from './store-names.js';
import type * as NativeKeyringModule from './native-keyring.js';

type NativeKeyring = typeof NativeKeyringModule;

export interface KeyringContext {
  env: Env;
  platform: NodeJS.Platform;
  /** The user the session bus authenticates (undefined where there is no such thing). */
  uid: number | undefined;
  /** The user's runtime folder (Platform.runtimeDir), whose `bus` a hint names when it is there. */
  runtimeDir?: string | undefined;
  /** Where the native binding is required from (Platform.keyringBindingFrom); undefined: crawl's own install. */
  bindingFrom?: string | undefined;
  bounds: KeyStoreBounds;
  clock: DeadlineClock;
  /** A person is at a terminal who can answer the keyring's unlock dialog (not --no-input, not CI). */
  interactive(): boolean;
  /** One line for the user on stderr (waiting for an unlock). */
  notice(line: string): void;
  /** One line for --verbose (the Secret Service sends secrets in plain). */
  verbose(line: string): void;
  /** The `crawl …` command lines hints name (with the run's --profile). */
  command(words: readonly string[]): string;
}

function usesSecretService(platform: NodeJS.Platform): boolean {
  return platform !== 'darwin' && platform !== 'win32';
}

/** How long a native keyring call runs before crawl says a Keychain dialog may be waiting for an answer. */
const DIALOG_NOTICE_MS = 1_000;

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
    if (!usesSecretService(this.#ctx.platform)) return this.#native('read', signal, (n, s) => n.read(this.entry, s, this.#ctx.bindingFrom));
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
    if (!usesSecretService(this.#ctx.platform)) return this.#native('write', signal, (n, s) => n.write(this.entry, key, s, this.#ctx.bindingFrom));
    return this.#secretService('write', signal, async (ss, call, unlock) => {
      const collection = await this.#defaultCollection(ss, call);
      if (collection.locked) await unlock([collection.path]);
      await call((s) => ss.store(collection.path, this.#label, entryAttributes(this.entry), key, s));
    });
  }

  /**
   * Whether a key could be stored here now, found without prompting anyone: `ready`, or `locked`
   * (a write would need an unlock). Rejects as a write would where it cannot be done at all: no
   * keyring (KeyringUnavailableError), one crawl cannot reach (KeyringUnreachableError: the native
   * binding does not load), no collection to store in. For the Secret Service: connect, find the
   * default collection, read its `Locked` property; for the native keystores: load the binding.
   */
  probe(signal: AbortSignal): Promise<'ready' | 'locked'> {
    return this.#probe(signal, false);
  }

  /**
   * The probe before a person types a key (`auth login`): a locked keyring is unlocked now, where
   * a person can answer its dialog (and said so), or rejected with the locked error off a terminal,
   * so that nothing typed is lost to a keyring that would refuse it.
   */
  async prepareWrite(signal: AbortSignal): Promise<void> {
    await this.#probe(signal, true);
  }

  #probe(signal: AbortSignal, unlockNow: boolean): Promise<'ready' | 'locked'> {
    if (!usesSecretService(this.#ctx.platform)) return this.#native('write', signal, (n) => n.loadBinding(this.#ctx.bindingFrom).then(() => 'ready' as const));
    return this.#secretService('write', signal, async (ss, call, unlock) => {
      const collection = await this.#defaultCollection(ss, call);
      if (!collection.locked) return 'ready';
      if (!unlockNow) return 'locked';
      await unlock([collection.path]);
      return 'ready';
    });
  }

  async #defaultCollection(ss: SecretService, call: Call): Promise<{ path: string; locked: boolean }> {
    const collection = await call((s) => ss.defaultCollection(s));
    if (collection === undefined) {
      throw new KeyStoreError(
        'the system keyring (Secret Service) has no default collection to store the key in',
        `create one in your keyring app (GNOME: Passwords and Keys), or store the key in the config file with \`${this.#ctx.command(['auth', 'login', '--insecure-storage'])}\``,
      );
    }
    return collection;
  }

  async erase(signal: AbortSignal): Promise<boolean> {
    if (!usesSecretService(this.#ctx.platform)) return this.#native('remove', signal, (n, s) => n.erase(this.entry, s, this.#ctx.bindingFrom));
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
          return await Service.open(ctx.env, uid, signal, ctx.verbose);
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
    if (error instanceof Error && error.name === 'SecretServiceStopped') {
      return new KeyStoreError(`the ${name} stopped while crawl waited for it: ${error.message}`, this.#unansweredHint());
    }
    if (error instanceof Error && error.name === 'SecretServiceLocked') {
      return new KeyStoreError(`the ${name} stayed locked: ${error.message}`, this.#lockedHint());
    }
    if (error instanceof Error && error.name === 'DBusError') {
      const dbusError = error as DBusError;
      // A bus address this crawl cannot use (a transport it does not speak, or unreadable): a
      // keyring may well be there, so this is never a reason for the file store.
      if (/^crawl\.(Unsupported|BadAddress)$/.test(dbusError.dbusName)) return new KeyringUnreachableError(sanitize(dbusError.message).slice(0, 300), this.#unreachableHint());
      if (/IsLocked/.test(dbusError.dbusName)) return new KeyStoreError(`the ${name} is locked`, this.#lockedHint());
      if (/AccessDenied|NotAuthorized/.test(dbusError.dbusName)) return new KeyStoreError(`the ${name} refused access to the key (${sanitize(dbusError.dbusName)})`, this.#unansweredHint());
      return new KeyStoreError(`could not ${what} the key in the ${name}: ${sanitize(dbusError.message).slice(0, 200)}`, this.#unansweredHint());
    }
    return error;
  }

  async #native<T>(what: 'read' | 'write' | 'remove', runSignal: AbortSignal, work: (n: NativeKeyring, signal: AbortSignal) => Promise<T>): Promise<T> {
    const ctx = this.#ctx;
    const name = this.describe();
    const interactive = ctx.interactive();
    const bound = interactive ? ctx.bounds.unlockMs : ctx.bounds.callMs;
    // The keystore may be showing a dialog (Keychain's password prompt): a call that takes a
    // moment is said on the terminal, as the Secret Service's unlock is.
    const answered = new AbortController();
    if (interactive) {
      ctx.clock.deadline(DIALOG_NOTICE_MS, answered.signal).then(
        () => ctx.notice(`waiting for the ${name}: if it shows a dialog, answer it there (waiting up to ${seconds(bound)}; Ctrl-C stops)`),
        () => undefined,
      );
    }
    try {
      const native = await import('./native-keyring.js');
      return await bounded(ctx.clock, bound, runSignal, () => new KeyStoreError(`the ${name} did not answer within ${seconds(bound)}`, this.#unansweredHint()), (signal) => work(native, signal));
    } catch (error) {
      if (runSignal.aborted && error === runSignal.reason) throw error;
      if (error instanceof KeyStoreError) throw error;
      const reason = sanitize(error instanceof Error ? error.message : String(error)).slice(0, 200);
      // A keystore is always there on macOS and Windows: a binding that cannot load is a keyring
      // crawl cannot reach, never "no keyring" (and so never the plaintext file unasked).
      if (error instanceof Error && error.name === 'BindingLoadError') throw new KeyringUnreachableError(`its binding (@napi-rs/keyring) cannot load: ${reason}`, this.#bindingHint());
      throw new KeyStoreError(`could not ${what} the key in the ${name}: ${reason}`, this.#unansweredHint());
    } finally {
      answered.abort(CALLED_OFF);
    }
  }

  #lockedHint(): string {
    const platform = this.#ctx.platform;
    const ways = [
      usesSecretService(platform)
        ? `unlock it on the desktop, or from a shell (over SSH too) by restarting GNOME Keyring unlocked: \`${UNLOCK_GNOME_KEYRING}\``
        : platform === 'darwin'
          ? 'unlock it from this shell (over SSH too): `security unlock-keychain`, then type your login password'
          : 'unlock it',
      'or set CRAWL_API_KEY for this shell',
      `or keep the key in the config file instead: \`${this.#ctx.command(['auth', 'login', '--insecure-storage'])}\``,
    ];
    return ways.join('; ');
  }

  #unansweredHint(): string {
    // Over SSH the Keychain can show no dialog, and refuses instead: unlocked first, it answers.
    const unlock = this.#ctx.platform === 'darwin' ? 'unlock the Keychain from this shell first (over SSH too): `security unlock-keychain`; or ' : '';
    return `${unlock}set CRAWL_API_KEY for this shell, or keep the key in the config file instead: \`${this.#ctx.command(['auth', 'login', '--insecure-storage'])}\``;
  }

  /** A bus address crawl cannot speak: the same ways forward, and a unix:path address if none is found. */
  #unreachableHint(): string {
    return this.#unavailableHint("point DBUS_SESSION_BUS_ADDRESS at the session bus's Unix socket (`unix:path=…`)");
  }

  /**
   * The ways forward where the keyring cannot be reached from here (a shell without the desktop's
   * bus: SSH): reach it, set the key for this shell, or ask for the file store. Never a plain
   * `crawl auth login`, which cannot reach it either.
   */
  #unavailableHint(noBusFound?: string): string {
    const ctx = this.#ctx;
    const ways: string[] = [];
    const bus = userBusAddress(ctx.runtimeDir, ctx.uid, ctx.env);
    if (bus !== undefined) ways.push(`reach the desktop session's bus from this shell: \`export DBUS_SESSION_BUS_ADDRESS=${bus}\``);
    else if (noBusFound !== undefined) ways.push(noBusFound);
    ways.push('set CRAWL_API_KEY for this shell', `keep the key in the config file instead (plaintext): \`${ctx.command(['auth', 'login', '--insecure-storage'])}\``);
    return ways.join('; or ');
  }

  /** The binding's build for this system is missing: reinstall as npm would, or the two ways around. */
  #bindingHint(): string {
    return [
      'reinstall crawl with its optional dependencies (not `--omit=optional`; pnpm and yarn: for this system and architecture), run by a Node built for this machine (not x64 Node under Rosetta)',
      'set CRAWL_API_KEY for this shell',
      `keep the key in the config file instead (plaintext): \`${this.#ctx.command(['auth', 'login', '--insecure-storage'])}\``,
    ].join('; or ');
  }
}

/**
 * What unlocks a running GNOME Keyring from a shell, seen to work (test/process/keyring.test.ts
 * runs it as printed). The daemon has no way to unlock the login collection of a running instance
 * from the command line: `--unlock` alone starts a second daemon, and `--start` refuses `--unlock`.
 * `--replace` takes the running one's place and unlocks with the password on its stdin, which must
 * end without a newline (what typing it then Ctrl-D gives is another password);
 * systemd-ask-password reads it unechoed and writes it so. `--daemonize` keeps the new daemon
 * when the shell's terminal closes (without it the hangup ends it).
 */
const UNLOCK_GNOME_KEYRING = "systemd-ask-password -n 'GNOME Keyring password:' | gnome-keyring-daemon --replace --unlock --daemonize";

type Call = <R>(fn: (signal: AbortSignal) => Promise<R>) => Promise<R>;

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
