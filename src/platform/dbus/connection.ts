// A minimal D-Bus client over the session bus's Unix socket: enough for the Secret Service (and
// for a test to play one of its peers). It tries each entry of the bus address in turn, as the
// specification asks; Unix sockets are the one transport it speaks (address.ts). It is plain JavaScript on a socket, so every wait can be
// abandoned: a call that never gets its answer ends when its signal is aborted, and closing the
// socket frees the process, where a native library blocked in the same call would hold it.
import { connect, type Socket } from 'node:net';
import { lstatSync } from 'node:fs';
import { reachesAbstractSockets } from '../host.js';
import { endpointOf, escapeAddressValue, parseAddress } from './address.js';
import { decodeMessage, encodeMessage, MessageType, messageLength, type DBusValue, type Message } from './wire.js';

export class DBusError extends Error {
  /**
   * The error's D-Bus name (org.freedesktop.DBus.Error.ServiceUnknown), or a local one: crawl.NoBus,
   * crawl.Unsupported, crawl.BadAddress (see open), crawl.Connect, crawl.Auth, crawl.Protocol (a
   * message that breaks the specification), crawl.Closed.
   */
  readonly dbusName: string;

  constructor(dbusName: string, message: string) {
    super(message);
    this.name = 'DBusError';
    this.dbusName = dbusName;
  }
}

/**
 * Whether a call failed because no connection owns the name it went to (the bus's ServiceUnknown,
 * NameHasNoOwner from GetNameOwner, or no .service file to start one): nobody there, now.
 */
export function isUnowned(error: unknown): error is DBusError {
  return error instanceof DBusError && /\.(ServiceUnknown|NameHasNoOwner|Spawn\.ServiceNotFound)$/.test(error.dbusName);
}

export interface CallTarget {
  destination: string;
  path: string;
  interface: string;
  member: string;
  signature?: string;
  body?: DBusValue[];
}

/**
 * The session bus's address: DBUS_SESSION_BUS_ADDRESS, else the socket systemd gives each user,
 * `$XDG_RUNTIME_DIR/bus`, as libdbus looks for it: only when it is there, a socket, and this
 * user's (`uid`), and escaped, so that any character of the folder's name reads back as itself.
 * Undefined: no session bus here.
 */
export function sessionBusAddress(env: Readonly<Record<string, string | undefined>>, uid?: number): string | undefined {
  if (env.DBUS_SESSION_BUS_ADDRESS) return env.DBUS_SESSION_BUS_ADDRESS;
  if (!env.XDG_RUNTIME_DIR) return undefined;
  const path = `${env.XDG_RUNTIME_DIR}/bus`;
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!stats.isSocket() || (uid !== undefined && stats.uid !== uid)) return undefined;
  return `unix:path=${escapeAddressValue(path)}`;
}

/** What a connection needs of the system it runs on (a test gives other facts). */
export interface OpenOptions {
  /** Whether this Node can reach an abstract socket (platform/host.ts). */
  abstractSockets?: boolean;
}

/** Why no entry of an address gave a connection: the first bus that failed, else why none was there or usable. */
function noConnection(tried: readonly DBusError[], unusable: readonly string[]): DBusError {
  const failed = tried.find((error) => error.dbusName !== 'crawl.NoBus');
  if (failed) return failed;
  if (unusable.length > 0) {
    const absent = tried.length === 0 ? '' : `; nothing listens at ${tried.length === 1 ? 'its other entry' : `its other ${tried.length} entries`}`;
    return new DBusError('crawl.Unsupported', `the session bus address has no entry crawl can use: ${[...new Set(unusable)].join('; ')}${absent}`);
  }
  if (tried.length === 1) return tried[0] as DBusError;
  return new DBusError('crawl.NoBus', `nothing listens at any of the ${tried.length} entries of the session bus address`);
}

type Pending = { resolve(body: DBusValue[]): void; reject(error: Error): void };

export class DBusConnection {
  readonly #socket: Socket;
  readonly #pending = new Map<number, Pending>();
  readonly #signalHandlers = new Set<(m: Message) => void>();
  #callHandler: ((m: Message) => void) | undefined;
  #serial = 0;
  #buffered: Buffer = Buffer.alloc(0);
  #closed: Error | undefined;
  uniqueName = '';

  /** Where the bus is, for messages: its socket's path (an abstract one's name after "@"). */
  readonly #shown: string;

  private constructor(socket: Socket, shown: string) {
    this.#socket = socket;
    this.#shown = shown;
  }

  /**
   * Connects to the first entry of `address` that connects, authenticates as this process's user
   * (EXTERNAL) and answers Hello, trying each in turn. Rejects with a DBusError: `crawl.BadAddress`
   * (the address cannot be read), `crawl.Unsupported` (no entry is one crawl can use, and nothing
   * listens at those it can), `crawl.NoBus` (nothing listens at any), or the first failure of a
   * bus that is there; or with the signal's reason when it aborts first. A socket that never
   * answers holds nothing after that.
   */
  static async open(address: string, uid: number, signal: AbortSignal, options: OpenOptions = {}): Promise<DBusConnection> {
    let entries;
    try {
      entries = parseAddress(address);
    } catch (error) {
      throw new DBusError('crawl.BadAddress', `the session bus address cannot be read: ${(error as Error).message}`);
    }
    const abstractSockets = options.abstractSockets ?? reachesAbstractSockets();
    const tried: DBusError[] = [];
    const unusable: string[] = [];
    for (const entry of entries) {
      signal.throwIfAborted();
      const endpoint = endpointOf(entry, { abstractSockets });
      if (endpoint.kind === 'unusable') {
        unusable.push(endpoint.reason);
        continue;
      }
      try {
        return await DBusConnection.#openSocket(endpoint.path, endpoint.shown, uid, signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        tried.push(error instanceof DBusError ? error : new DBusError('crawl.Connect', (error as Error).message));
      }
    }
    throw noConnection(tried, unusable);
  }

  static async #openSocket(path: string, shown: string, uid: number, signal: AbortSignal): Promise<DBusConnection> {
    signal.throwIfAborted();
    const socket = connect({ path });
    const conn = new DBusConnection(socket, shown);
    const onAbort = (): void => conn.close(signal.reason instanceof Error ? signal.reason : new DBusError('crawl.Aborted', 'aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // Authentication, BEGIN and Hello go out at once (the bus reads them in order), so the
      // connection costs one round trip after the socket's, not three.
      const authenticated = conn.#authenticate(uid);
      const hello = conn.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'Hello' });
      hello.catch(() => undefined);
      await authenticated;
      const [name] = await hello;
      conn.uniqueName = String(name);
      return conn;
    } catch (error) {
      conn.close();
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  #authenticate(uid: number): Promise<void> {
    const socket = this.#socket;
    return new Promise((resolve, reject) => {
      let text = '';
      const cleanup = (): void => {
        socket.off('data', onData);
        socket.off('error', onError);
        socket.off('close', onClose);
      };
      const fail = (error: Error): void => {
        cleanup();
        reject(error);
      };
      const onError = (error: Error): void => {
        const code = (error as NodeJS.ErrnoException).code;
        // Nothing at the address (no such socket, nobody listening) is no bus; anything else is one that fails.
        const none = code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ENOTDIR';
        fail(new DBusError(none ? 'crawl.NoBus' : 'crawl.Connect', `cannot connect to the session bus at ${this.#shown}: ${code ?? error.message}`));
      };
      const onClose = (): void => fail(this.#closed ?? new DBusError('crawl.Closed', `the session bus at ${this.#shown} closed the connection while authenticating`));
      const onData = (chunk: Buffer): void => {
        text += chunk.toString('latin1');
        if (text.length > 4096) return fail(new DBusError('crawl.Auth', `the session bus at ${this.#shown} sent no end to its authentication answer`));
        const end = text.indexOf('\r\n');
        if (end < 0) return;
        const line = text.slice(0, end);
        if (!line.startsWith('OK ')) return fail(new DBusError('crawl.Auth', `the session bus at ${this.#shown} refused this user (EXTERNAL authentication)`));
        cleanup();
        socket.on('data', (data: Buffer) => this.#receive(data));
        socket.on('error', (error) => this.close(new DBusError('crawl.Closed', `the session bus connection at ${this.#shown} failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`)));
        socket.on('close', () => this.close());
        resolve();
        // Anything after the line is already the first message (Hello's answer may be).
        this.#receive(Buffer.from(text.slice(end + 2), 'latin1'));
      };
      socket.on('data', onData);
      socket.once('error', onError);
      socket.once('close', onClose);
      socket.write(`\0AUTH EXTERNAL ${Buffer.from(String(uid), 'ascii').toString('hex')}\r\nBEGIN\r\n`);
    });
  }

  #receive(data: Buffer): void {
    if (this.#closed) return;
    this.#buffered = this.#buffered.length === 0 ? data : Buffer.concat([this.#buffered, data]);
    try {
      for (;;) {
        const length = messageLength(this.#buffered);
        if (length === undefined || this.#buffered.length < length) return;
        const message = decodeMessage(this.#buffered.subarray(0, length));
        this.#buffered = this.#buffered.subarray(length);
        this.#dispatch(message);
      }
    } catch (error) {
      this.close(new DBusError('crawl.Protocol', `the session bus at ${this.#shown} sent a message crawl cannot read: ${(error as Error).message}`));
    }
  }

  #dispatch(m: Message): void {
    if (m.type === MessageType.reply || m.type === MessageType.error) {
      const pending = m.replySerial === undefined ? undefined : this.#pending.get(m.replySerial);
      if (!pending) return;
      this.#pending.delete(m.replySerial as number);
      if (m.type === MessageType.reply) pending.resolve(m.body);
      else pending.reject(new DBusError(m.errorName ?? 'crawl.Unknown', typeof m.body[0] === 'string' ? m.body[0] : (m.errorName ?? 'D-Bus error')));
    } else if (m.type === MessageType.signal) {
      for (const handler of this.#signalHandlers) handler(m);
    } else if (m.type === MessageType.call) {
      this.#callHandler?.(m);
    }
  }

  /** Calls a method; rejects with a DBusError on an error reply, or when `signal` aborts first. */
  call(target: CallTarget, signal?: AbortSignal): Promise<DBusValue[]> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const serial = ++this.#serial;
    const message: Message = {
      type: MessageType.call,
      flags: 0,
      serial,
      destination: target.destination,
      path: target.path,
      interface: target.interface,
      member: target.member,
      signature: target.signature ?? '',
      body: target.body ?? [],
    };
    const bytes = encodeMessage(message);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#pending.delete(serial);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(serial, {
        resolve: (body) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(body);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.#socket.write(bytes);
    });
  }

  /** Every signal the bus routes here (after an AddMatch); the result unsubscribes. */
  onSignal(handler: (m: Message) => void): () => void {
    this.#signalHandlers.add(handler);
    return () => this.#signalHandlers.delete(handler);
  }

  /** Method calls addressed to this connection (a test playing a service); none is answered unless the handler replies. */
  onCall(handler: (m: Message) => void): void {
    this.#callHandler = handler;
  }

  reply(to: Message, signature = '', body: DBusValue[] = []): void {
    if (this.#closed) return;
    const message: Message = { type: MessageType.reply, flags: 0, serial: ++this.#serial, replySerial: to.serial, signature, body };
    if (to.sender !== undefined) message.destination = to.sender;
    this.#socket.write(encodeMessage(message));
  }

  /** An error reply (a test playing a service that refuses a call). */
  replyError(to: Message, errorName: string, text: string): void {
    if (this.#closed) return;
    const message: Message = { type: MessageType.error, flags: 0, serial: ++this.#serial, replySerial: to.serial, errorName, signature: 's', body: [text] };
    if (to.sender !== undefined) message.destination = to.sender;
    this.#socket.write(encodeMessage(message));
  }

  emit(signal: { path: string; interface: string; member: string; signature?: string; body?: DBusValue[]; destination?: string }): void {
    if (this.#closed) return;
    const message: Message = { type: MessageType.signal, flags: 0, serial: ++this.#serial, path: signal.path, interface: signal.interface, member: signal.member, signature: signal.signature ?? '', body: signal.body ?? [] };
    if (signal.destination !== undefined) message.destination = signal.destination;
    this.#socket.write(encodeMessage(message));
  }

  close(reason?: Error): void {
    if (this.#closed) return;
    this.#closed = reason ?? new DBusError('crawl.Closed', `the session bus connection at ${this.#shown} closed`);
    for (const pending of this.#pending.values()) pending.reject(this.#closed);
    this.#pending.clear();
    this.#socket.destroy();
  }
}
