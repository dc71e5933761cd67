// The freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) over the session bus, spoken
// directly rather than through a native library: each call is a message on a socket, so a
// collection whose unlock prompt nobody answers costs a bounded wait and never holds the process.
// Secrets travel encrypted (secret-session.ts), as libsecret's `secret-tool` sends them: anything
// that can watch the bus (dbus-monitor, another process of the user) sees ciphertext. A service
// that refuses the algorithm gets them in a "plain" session, the specification's fall back, and
// --verbose says so.
import { DBusConnection, DBusError, isUnowned, sessionBusAddress } from './connection.js';
// Types only: the module, and node:crypto with it (a dozen of Node's modules), loads when a session opens.
import type * as SessionCrypto from './secret-session.js';
import type { DBusValue, Message, Variant } from './wire.js';

const BUS = 'org.freedesktop.secrets';
const SERVICE_PATH = '/org/freedesktop/secrets';
const SERVICE = 'org.freedesktop.Secret.Service';
const ITEM = 'org.freedesktop.Secret.Item';
const PROMPT = 'org.freedesktop.Secret.Prompt';
const PROPERTIES = 'org.freedesktop.DBus.Properties';
const NO_OBJECT = '/';
const DRIVER = { destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus' } as const;

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

/** The service left the bus (its daemon exited or crashed) while crawl waited for a prompt it had shown. */
export class SecretServiceStopped extends Error {
  constructor() {
    super('the keyring service left the session bus');
    this.name = 'SecretServiceStopped';
  }
}

export type Attributes = Record<string, string>;

/** The session secrets travel in: its object, and the AES key when it is encrypted (undefined: plain). */
interface Session {
  path: string;
  key: Buffer | undefined;
  crypto: typeof SessionCrypto;
}

export interface FoundItem {
  path: string;
  locked: boolean;
}

export class SecretService {
  readonly #conn: DBusConnection;
  readonly #verbose: (line: string) => void;
  #session: Promise<Session> | undefined;
  /** Whether the service has answered a call: once it has, its name missing means it left, not that there is none. */
  #answered = false;

  private constructor(conn: DBusConnection, verbose: (line: string) => void) {
    this.#conn = conn;
    this.#verbose = verbose;
  }

  /**
   * Connects to the session bus; rejects with SecretServiceUnreachable when there is none. That
   * nothing on it provides the Secret Service shows at the first call (the same rejection).
   * `verbose` gets a line for --verbose (a plain session).
   */
  static async open(env: Readonly<Record<string, string | undefined>>, uid: number, signal: AbortSignal, verbose: (line: string) => void = () => undefined): Promise<SecretService> {
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
    return new SecretService(conn, verbose);
  }

  #call(path: string, iface: string, member: string, signature: string, body: DBusValue[], signal: AbortSignal): Promise<DBusValue[]> {
    return this.#conn.call({ destination: BUS, path, interface: iface, member, signature, body }, signal).then(
      (answer) => {
        this.#answered = true;
        return answer;
      },
      async (error: unknown) => {
        if (isUnowned(error)) {
          // A service that answered this run a moment ago and has no name now stopped (crashed, or was
          // replaced and gone): there was one, and there may be one again.
          throw this.#answered ? new SecretServiceStopped() : new SecretServiceUnreachable('no Secret Service on the session bus');
        }
        // The daemon went with this call unanswered (the bus answers it NoReply, in its own words).
        if (error instanceof DBusError && error.dbusName === 'org.freedesktop.DBus.Error.NoReply' && (await this.#ownerGone(undefined))) throw new SecretServiceStopped();
        throw error;
      },
    );
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

  /**
   * Shows the prompt at `path` and waits for its Completed signal. The service's name is watched
   * meanwhile: a daemon that exits or crashes ends the wait at once (SecretServiceStopped), where
   * its prompt would otherwise be waited for until the bound.
   */
  async #prompt(path: string, signal: AbortSignal): Promise<DBusValue[]> {
    const completedRule = `type='signal',interface='${PROMPT}',member='Completed',path='${path}'`;
    const ownerRule = `type='signal',sender='${DRIVER.destination}',interface='${DRIVER.interface}',member='NameOwnerChanged',arg0='${BUS}'`;
    await Promise.all([completedRule, ownerRule].map((rule) => this.#conn.call({ ...DRIVER, member: 'AddMatch', signature: 's', body: [rule] }, signal)));
    let stop = (): void => undefined;
    let stopped: SecretServiceStopped | undefined;
    let owner: string | undefined;
    // Signals that came before the owner was known are kept: they are weighed against it then.
    const early: Message[] = [];
    let fail: (error: Error) => void = () => undefined;
    const ownerChanged = (m: Message): boolean =>
      m.sender === DRIVER.destination && m.interface === DRIVER.interface && m.member === 'NameOwnerChanged' && m.body[0] === BUS && m.body[2] !== owner;
    const completed = new Promise<DBusValue[]>((resolve, reject) => {
      fail = reject;
      const off = this.#conn.onSignal((m) => {
        if (m.path === path && m.interface === PROMPT && m.member === 'Completed') resolve(m.body);
        else if (owner === undefined) early.push(m);
        else if (ownerChanged(m)) reject((stopped = new SecretServiceStopped()));
      });
      const onAbort = (): void => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      stop = () => {
        off();
        signal.removeEventListener('abort', onAbort);
      };
    });
    // Observed by the race below, once the owner is known: an abort before then rejects it unobserved.
    completed.catch(() => undefined);
    try {
      // Asked once the match is in place: a daemon gone before the answer has no owner, one gone
      // after it sends NameOwnerChanged, so no exit falls between the two.
      owner = await this.#conn.call({ ...DRIVER, member: 'GetNameOwner', signature: 's', body: [BUS] }, signal).then(
        ([name]) => String(name),
        (error: unknown) => {
          if (isUnowned(error)) throw (stopped = new SecretServiceStopped());
          throw error;
        },
      );
      if (early.some(ownerChanged)) throw (stopped = new SecretServiceStopped());
      // The prompt's window: none (crawl has no window to parent a dialog to).
      const shown = this.#call(path, PROMPT, 'Prompt', 's', [''], signal);
      // Left behind when the service stops first: its failure then is no news.
      shown.catch(() => undefined);
      await Promise.race([shown, completed]);
      return await completed;
    } catch (error) {
      fail(error as Error);
      // The call in flight when the daemon went may fail before the signal comes (the bus's
      // NoReply): whether the service is still there decides what the failure was.
      if (stopped === undefined && owner !== undefined && !signal.aborted && (await this.#ownerGone(owner))) stopped = new SecretServiceStopped();
      // An abandoned prompt is dismissed, so no dialog stays open for a command that has gone.
      if (stopped === undefined) this.#call(path, PROMPT, 'Dismiss', '', [], AbortSignal.timeout(1000)).catch(() => undefined);
      throw stopped ?? error;
    } finally {
      stop();
    }
  }

  /** Whether the service's name has left `owner` (no owner now, or another); with no owner given, whether it has none. */
  async #ownerGone(owner: string | undefined): Promise<boolean> {
    try {
      const [now] = await this.#conn.call({ ...DRIVER, member: 'GetNameOwner', signature: 's', body: [BUS] }, AbortSignal.timeout(1000));
      return owner !== undefined && now !== owner;
    } catch (error) {
      return isUnowned(error);
    }
  }

  /**
   * The session secrets travel in, opened once; callers may start it early, beside another call.
   * Encrypted unless the service refuses the algorithm (NotSupported): then plain, said in --verbose.
   */
  openSession(signal: AbortSignal): Promise<Session> {
    this.#session ??= this.#openSession(signal);
    return this.#session;
  }

  async #openSession(signal: AbortSignal): Promise<Session> {
    // Loaded here rather than with this module: by now the connection is made, and the call a
    // caller starts beside this one (read's search) is on the bus, so node:crypto loads while
    // the service answers it.
    const crypto = await import('./secret-session.js');
    const { DH_AES } = crypto;
    const pair = crypto.newKeyPair();
    let output: DBusValue;
    let path: DBusValue;
    try {
      [output, path] = (await this.#call(SERVICE_PATH, SERVICE, 'OpenSession', 'sv', [DH_AES, ['ay', crypto.publicValue(pair)]], signal)) as [DBusValue, DBusValue];
    } catch (error) {
      if (!(error instanceof DBusError && error.dbusName === 'org.freedesktop.DBus.Error.NotSupported')) throw error;
      this.#verbose(`the Secret Service does not support the encrypted session (${DH_AES}): secrets cross the session bus in plain`);
      const [, plain] = await this.#call(SERVICE_PATH, SERVICE, 'OpenSession', 'sv', ['plain', ['s', '']], signal);
      return { path: objectPath(plain), key: undefined, crypto };
    }
    const servicePublic = Array.isArray(output) && output[0] === 'ay' ? output[1] : undefined;
    if (!Buffer.isBuffer(servicePublic)) throw protocolError('the Secret Service answered the encrypted session without a public key');
    return { path: objectPath(path), key: crypto.sessionKey(pair, servicePublic), crypto };
  }

  /** The secret of an unlocked item, as text. */
  async read(item: string, signal: AbortSignal): Promise<string> {
    const session = await this.openSession(signal);
    const [secret] = await this.#call(item, ITEM, 'GetSecret', 'o', [session.path], signal);
    const [, parameters, value] = Array.isArray(secret) ? secret : [];
    if (!Buffer.isBuffer(parameters) || !Buffer.isBuffer(value)) throw protocolError('the Secret Service sent a secret that is not bytes');
    if (session.key === undefined) return value.toString('utf8');
    try {
      return session.crypto.decrypt(session.key, parameters, value).toString('utf8');
    } catch (error) {
      throw error instanceof session.crypto.SecretSessionError ? protocolError(error.message) : error;
    }
  }

  /** Stores `secret` as the item with these attributes in the default collection, replacing one already there. */
  async store(collection: string, label: string, attributes: Attributes, secret: string, signal: AbortSignal): Promise<void> {
    const session = await this.openSession(signal);
    const properties: [string, Variant][] = [
      ['org.freedesktop.Secret.Item.Label', ['s', label]],
      ['org.freedesktop.Secret.Item.Attributes', ['a{ss}', Object.entries(attributes)]],
    ];
    const plaintext = Buffer.from(secret, 'utf8');
    const { iv, ciphertext } = session.key === undefined ? { iv: Buffer.alloc(0), ciphertext: plaintext } : session.crypto.encrypt(session.key, plaintext);
    const value: DBusValue[] = [session.path, iv, ciphertext, 'text/plain'];
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

function protocolError(message: string): DBusError {
  return new DBusError('crawl.Protocol', message);
}

function objectPath(value: DBusValue | undefined): string {
  if (typeof value !== 'string' || !value.startsWith('/')) throw protocolError('the Secret Service answered OpenSession without a session');
  return value;
}
