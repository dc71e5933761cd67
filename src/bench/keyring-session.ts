// A real Secret Service for a test or a benchmark: a private D-Bus session bus (dbus-daemon, or
// dbus-broker through dbus-broker.ts; with no service activation, so nothing of the developer's
// session can start on it) and GNOME Keyring on it, in a throwaway HOME, its login keyring
// created and unlocked with a test password. Tests give its `env` to the CLI: crawl finds the bus
// through DBUS_SESSION_BUS_ADDRESS, never the developer's own keyring. `secretTool` checks
// independently what was stored.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeAddressValue } from '../platform/dbus/address.js';
import { DBusConnection, isUnowned } from '../platform/dbus/connection.js';
import type { DBusValue } from '../platform/dbus/wire.js';
import { startDbusBroker, type RunningBroker } from './dbus-broker.js';

export const KEYRING_PASSWORD = 'test-keyring-password';
/** The collection `gnome-keyring-daemon --unlock` creates in a new HOME, and the default one. */
const LOGIN_COLLECTION = '/org/freedesktop/secrets/collection/login';

export interface KeyringSession {
  /** What a CLI run needs to reach this bus (and only it). */
  env: Record<string, string>;
  home: string;
  address: string;
  bus: BusKind;
  /** secret-tool on this bus: its stdout. */
  secretTool(args: string[]): Promise<string>;
  /** Locks the login collection, where crawl's entries go (no prompt is needed to lock). */
  lock(): Promise<void>;
  /** Unlocks it again with the password, as a person would, without a prompt (the daemon's own interface). */
  unlock(): Promise<void>;
  /**
   * Resolves once a daemon holds the service's name and says the login collection is unlocked: a
   * daemon that replaced the session's own (`gnome-keyring-daemon --replace`) may take a moment
   * for both, the old one gone before the new one has the name.
   */
  whenUnlocked(): Promise<void>;
  /** Takes the GNOME prompter's bus name and never answers: an unlock then waits for ever. */
  silentPrompter(): Promise<void>;
  /** Kills the keyring daemon (SIGKILL, as a crash): its name leaves the bus. */
  crashKeyring(): void;
  /**
   * Ends the bus and the keyring, and a keyring daemon that replaced the session's own (a test
   * that ran `gnome-keyring-daemon --replace`, which leaves this process's tree).
   */
  close(): Promise<void>;
}

const BUS_CONFIG = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  LISTEN
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;

export interface KeyringSessionOptions {
  /** GNOME Keyring on the bus (the default), or a bus without a Secret Service. */
  keyring?: boolean;
  /**
   * Where the bus listens: a socket of dbus-daemon's naming in the session's folder (the default);
   * `runtime`: `$XDG_RUNTIME_DIR/bus`, where systemd puts each user's; `abstract`: a name in
   * Linux's abstract namespace as well (first in `address`), beside the default one.
   */
  listen?: 'dir' | 'runtime' | 'abstract';
  /** The name of the session's runtime folder ($XDG_RUNTIME_DIR): any a folder may have. */
  runtimeName?: string;
  /** The bus's implementation (dbus-daemon by default); dbus-broker listens on one socket, `listen: 'runtime'`'s or the folder's. */
  bus?: BusKind;
}

/** The two implementations of the bus a keyring runs on: the reference one, and the one of many desktops since. */
export type BusKind = 'dbus-daemon' | 'dbus-broker';
export const BUS_KINDS: readonly BusKind[] = ['dbus-daemon', 'dbus-broker'];

/**
 * Rejects when the bus or gnome-keyring-daemon cannot start: a keyring test then fails (.ci/run
 * installs them).
 */
export async function startKeyringSession(options: KeyringSessionOptions = {}): Promise<KeyringSession> {
  const root = mkdtempSync(join(tmpdir(), 'crawl-keyring-'));
  const home = join(root, 'home');
  const runtime = join(root, options.runtimeName ?? 'run');
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(runtime, { mode: 0o700 });
  const inFolder = `<listen>unix:dir=${escapeAddressValue(root)}</listen>`;
  const listen =
    options.listen === 'runtime'
      ? `<listen>unix:path=${escapeAddressValue(join(runtime, 'bus'))}</listen>`
      : options.listen === 'abstract'
        ? `<listen>unix:abstract=${escapeAddressValue(`${root}/abstract`)}</listen>${inFolder}`
        : inFolder;
  const children: ChildProcess[] = [];
  const bus = options.bus ?? 'dbus-daemon';
  let address: string;
  let broker: RunningBroker | undefined;
  if (bus === 'dbus-broker') {
    const socket = options.listen === 'runtime' ? join(runtime, 'bus') : join(root, 'bus');
    broker = await startDbusBroker(socket);
    address = `unix:path=${escapeAddressValue(socket)}`;
  } else {
    const daemon = await startDbusDaemon(root, listen);
    children.push(daemon.process);
    address = daemon.address;
  }
  const env = { DBUS_SESSION_BUS_ADDRESS: address, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_DATA_HOME: join(home, '.local', 'share') };
  const processEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env };
  const watcher = await DBusConnection.open(address, process.getuid?.() ?? 0, AbortSignal.timeout(10_000));
  let daemon: ChildProcess | undefined;
  if (options.keyring !== false) {
    daemon = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env: processEnv, stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(daemon);
    daemon.stdin?.end(KEYRING_PASSWORD);
    await ownerOf(watcher, 'org.freedesktop.secrets');
  }
  const dbus = (member: string, signature: string, body: unknown[]): Promise<unknown[]> =>
    watcher.call({ destination: 'org.freedesktop.secrets', path: '/org/freedesktop/secrets', interface: 'org.freedesktop.Secret.Service', member, signature, body: body as never }, AbortSignal.timeout(10_000));
  let prompter: DBusConnection | undefined;
  return {
    env,
    home,
    address,
    bus,
    secretTool: (args) =>
      new Promise((resolve, reject) => {
        execFile('secret-tool', args, { env: processEnv, timeout: 10_000 }, (error, stdout) => (error && error.code !== 1 ? reject(error) : resolve(stdout)));
      }),
    lock() {
      // One message, written at once: a test that locks as a request arrives has it in the
      // keyring's queue before crawl, waiting for that request's answer, sends anything.
      return dbus('Lock', 'ao', [[LOGIN_COLLECTION]]).then(() => undefined);
    },
    async unlock() {
      // The password travels in a plain session: this is the test's own bus.
      const [, session] = await dbus('OpenSession', 'sv', ['plain', ['s', '']]);
      const secret: DBusValue[] = [String(session), Buffer.alloc(0), Buffer.from(KEYRING_PASSWORD), 'text/plain'];
      await watcher.call(
        { destination: 'org.freedesktop.secrets', path: '/org/freedesktop/secrets', interface: 'org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface', member: 'UnlockWithMasterPassword', signature: 'o(oayays)', body: [LOGIN_COLLECTION, secret] },
        AbortSignal.timeout(10_000),
      );
    },
    async whenUnlocked() {
      const lockedNow = (): Promise<boolean | undefined> =>
        watcher
          .call(
            { destination: 'org.freedesktop.secrets', path: LOGIN_COLLECTION, interface: 'org.freedesktop.DBus.Properties', member: 'Get', signature: 'ss', body: ['org.freedesktop.Secret.Collection', 'Locked'] },
            AbortSignal.timeout(10_000),
          )
          .then(
            (body) => (body as [[string, unknown]])[0][1] === true,
            (error: unknown) => {
              // No daemon holds the name just now.
              if (isUnowned(error)) return undefined;
              throw error;
            },
          );
      for (let locked = await lockedNow(); locked !== false; locked = await lockedNow()) {
        if (locked === undefined) await ownerOf(watcher, 'org.freedesktop.secrets');
        else await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async silentPrompter() {
      prompter = await DBusConnection.open(address, process.getuid?.() ?? 0, AbortSignal.timeout(10_000));
      prompter.onCall(() => undefined);
      await prompter.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'RequestName', signature: 'su', body: ['org.gnome.keyring.SystemPrompter', 4] }, AbortSignal.timeout(10_000));
    },
    crashKeyring() {
      daemon?.kill('SIGKILL');
    },
    async close() {
      prompter?.close();
      const replacement = await watcher
        .call({ ...DRIVER, member: 'GetConnectionUnixProcessID', signature: 's', body: ['org.freedesktop.secrets'] }, AbortSignal.timeout(10_000))
        .then(([pid]) => Number(pid), () => undefined);
      // Only a daemon (a test's own peer may hold the name, in this very process).
      if (replacement !== undefined && !children.some((child) => child.pid === replacement) && isKeyringDaemon(replacement)) {
        try {
          process.kill(replacement, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      watcher.close();
      for (const child of children.reverse()) child.kill('SIGKILL');
      await broker?.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function startDbusDaemon(root: string, listen: string): Promise<{ process: ChildProcess; address: string }> {
  const configFile = join(root, 'bus.conf');
  writeFileSync(configFile, BUS_CONFIG.replace('LISTEN', listen));
  const bus = spawn('dbus-daemon', [`--config-file=${configFile}`, '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await new Promise<string>((resolve, reject) => {
    let text = '';
    bus.on('error', reject);
    bus.on('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
    bus.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n')[0];
      if (text.includes('\n') && line) resolve(line.trim());
    });
  });
  return { process: bus, address };
}

function isKeyringDaemon(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('gnome-keyring');
  } catch {
    return false;
  }
}

const DRIVER = { destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus' } as const;

/** Resolves once `name` has an owner on the bus: a signal is awaited, not a sleep. */
async function ownerOf(conn: DBusConnection, name: string): Promise<void> {
  const owned = new Promise<void>((resolve) => {
    conn.onSignal((m) => {
      if (m.member === 'NameOwnerChanged' && m.body[0] === name && m.body[2] !== '') resolve();
    });
  });
  await conn.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'AddMatch', signature: 's', body: [`type='signal',member='NameOwnerChanged',arg0='${name}'`] });
  const [has] = await conn.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'NameHasOwner', signature: 's', body: [name] });
  if (has !== true) await owned;
}
