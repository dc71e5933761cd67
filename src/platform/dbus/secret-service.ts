// The freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) over the session bus, spoken
// directly rather than through a native library: each call is a message on a socket, so a
// collection whose unlock prompt nobody answers costs a bounded wait and never holds the process.
// Secrets travel in a "plain" session, on the user's own bus socket, as libsecret's
// `secret-tool` may also send them.
import { DBusConnection, DBusError, sessionBusAddress } from './connection.js';
import type { DBusValue, Variant } from './wire.js';

const BUS = 'org.freedesktop.secrets';
const SERVICE_PATH = '/org/freedesktop/secrets';
const SERVICE = 'org.freedesktop.Secret.Service';
const ITEM = 'org.freedesktop.Secret.Item';
const PROMPT = 'org.freedesktop.Secret.Prompt';
const PROPERTIES = 'org.freedesktop.DBus.Properties';
const NO_OBJECT = '/';

/** Why the Secret Service cannot be used at all: crawl may fall back to the config file then. */
export class SecretServiceUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretServiceUnreachable';
  }
}

/** A collection is locked and unlocking it was not allowed, dismissed or failed. */
export class SecretServiceLocked extends Error {
  readonly dismissed: boolean;

  constructor(message: string, dismissed = false) {
    super(message);
    this.name = 'SecretServiceLocked';
    this.dismissed = dismissed;
  }
}

export type Attributes = Record<string, string>;

export interface FoundItem {
  path: string;
  locked: boolean;
}

export class SecretService {
  readonly #conn: DBusConnection;
  #session: Promise<string> | undefined;

  private constructor(conn: DBusConnection) {
    this.#conn = conn;
  }

  /**
   * Connects to the session bus; rejects with SecretServiceUnreachable when there is none. That
   * nothing on it provides the Secret Service shows at the first call (the same rejection).
   */
  static async open(env: Readonly<Record<string, string | undefined>>, uid: number, signal: AbortSignal): Promise<SecretService> {
    const address = sessionBusAddress(env, uid);
    if (address === undefined) throw new SecretServiceUnreachable('no session bus (DBUS_SESSION_BUS_ADDRESS is not set)');
    let conn: DBusConnection;
    try {
      conn = await DBusConnection.open(address, uid, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      // Nothing listens where the bus should be: no keyring here. A bus that is there but
      // refuses or garbles the connection is a keyring that fails, not a reason for plaintext.
      if (error instanceof DBusError && error.dbusName === 'crawl.NoBus') throw new SecretServiceUnreachable(`no session bus: ${error.message}`);
      throw error;
    }
    return new SecretService(conn);
  }

  #call(path: string, iface: string, member: string, signature: string, body: DBusValue[], signal: AbortSignal): Promise<DBusValue[]> {
    return this.#conn.call({ destination: BUS, path, interface: iface, member, signature, body }, signal).catch((error: unknown) => {
      if (error instanceof DBusError && /\.(ServiceUnknown|NameHasNoOwner|Spawn\.ServiceNotFound)$/.test(error.dbusName)) {
        throw new SecretServiceUnreachable('no Secret Service on the session bus');
      }
      throw error;
    });
  }

  /** The first item with these attributes (in an unlocked collection if any is), without prompting. */
  async find(attributes: Attributes, signal: AbortSignal): Promise<FoundItem | undefined> {
    const [unlocked, locked] = (await this.#call(SERVICE_PATH, SERVICE, 'SearchItems', 'a{ss}', [Object.entries(attributes)], signal)) as [string[], string[]];
    if (unlocked[0] !== undefined) return { path: unlocked[0], locked: false };
    if (locked[0] !== undefined) return { path: locked[0], locked: true };
    return undefined;
  }

  /** The default collection (where new items go), and whether it is locked; undefined if there is none. */
  async defaultCollection(signal: AbortSignal): Promise<FoundItem | undefined> {
    const [path] = (await this.#call(SERVICE_PATH, SERVICE, 'ReadAlias', 's', ['default'], signal)) as [string];
    if (!path || path === NO_OBJECT) return undefined;
    const [[, locked]] = (await this.#call(path, PROPERTIES, 'Get', 'ss', ['org.freedesktop.Secret.Collection', 'Locked'], signal)) as [Variant];
    return { path, locked: locked === true };
  }

  /**
   * Unlocks `paths`, through the service's prompt when it needs one (a dialog on the desktop):
   * resolves once unlocked; rejects with SecretServiceLocked when the prompt is dismissed, and
   * with the signal's reason when it aborts first (a prompt nobody answers).
   */
  async unlock(paths: string[], signal: AbortSignal): Promise<void> {
    const [, prompt] = (await this.#call(SERVICE_PATH, SERVICE, 'Unlock', 'ao', [paths], signal)) as [string[], string];
    if (prompt === NO_OBJECT) return;
    const [dismissed] = await this.#prompt(prompt, signal);
    if (dismissed === true) throw new SecretServiceLocked('the unlock prompt was dismissed', true);
  }

  async #prompt(path: string, signal: AbortSignal): Promise<DBusValue[]> {
    const rule = `type='signal',interface='${PROMPT}',member='Completed',path='${path}'`;
    await this.#conn.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'AddMatch', signature: 's', body: [rule] }, signal);
    let stop = (): void => undefined;
    const completed = new Promise<DBusValue[]>((resolve, reject) => {
      const off = this.#conn.onSignal((m) => {
        if (m.path === path && m.interface === PROMPT && m.member === 'Completed') resolve(m.body);
      });
      const onAbort = (): void => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      stop = () => {
        off();
        signal.removeEventListener('abort', onAbort);
      };
    });
    // Awaited only once Prompt answered: an abort before then rejects it unobserved.
    completed.catch(() => undefined);
    try {
      // The prompt's window: none (crawl has no window to parent a dialog to).
      await this.#call(path, PROMPT, 'Prompt', 's', [''], signal);
      return await completed;
    } catch (error) {
      // An abandoned prompt is dismissed, so no dialog stays open for a command that has gone.
      this.#call(path, PROMPT, 'Dismiss', '', [], AbortSignal.timeout(1000)).catch(() => undefined);
      throw error;
    } finally {
      stop();
    }
  }

  /** The session secrets travel in, opened once; callers may start it early, beside another call. */
  openSession(signal: AbortSignal): Promise<string> {
    this.#session ??= this.#call(SERVICE_PATH, SERVICE, 'OpenSession', 'sv', ['plain', ['s', '']], signal).then(([, session]) => session as string);
    return this.#session;
  }

  /** The secret of an unlocked item, as text. */
  async read(item: string, signal: AbortSignal): Promise<string> {
    const session = await this.openSession(signal);
    const [secret] = (await this.#call(item, ITEM, 'GetSecret', 'o', [session], signal)) as [[string, Buffer, Buffer, string]];
    const value = secret[2];
    if (!Buffer.isBuffer(value)) throw new DBusError('crawl.Protocol', 'the Secret Service sent a secret that is not bytes');
    return value.toString('utf8');
  }

  /** Stores `secret` as the item with these attributes in the default collection, replacing one already there. */
  async store(collection: string, label: string, attributes: Attributes, secret: string, signal: AbortSignal): Promise<void> {
    const session = await this.openSession(signal);
    const properties: [string, Variant][] = [
      ['org.freedesktop.Secret.Item.Label', ['s', label]],
      ['org.freedesktop.Secret.Item.Attributes', ['a{ss}', Object.entries(attributes)]],
    ];
    const value: DBusValue[] = [session, Buffer.alloc(0), Buffer.from(secret, 'utf8'), 'text/plain'];
    const [, prompt] = (await this.#call(collection, 'org.freedesktop.Secret.Collection', 'CreateItem', 'a{sv}(oayays)b', [properties, value, true], signal)) as [string, string];
    if (prompt !== NO_OBJECT) {
      const [dismissed] = await this.#prompt(prompt, signal);
      if (dismissed === true) throw new SecretServiceLocked('the keyring prompt was dismissed', true);
    }
  }

  async delete(item: string, signal: AbortSignal): Promise<void> {
    const [prompt] = (await this.#call(item, ITEM, 'Delete', '', [], signal)) as [string];
    if (prompt !== NO_OBJECT) {
      const [dismissed] = await this.#prompt(prompt, signal);
      if (dismissed === true) throw new SecretServiceLocked('the keyring prompt was dismissed', true);
    }
  }

  close(): void {
    this.#conn.close();
  }
}
