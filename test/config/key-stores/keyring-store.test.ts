// The keyring store as a run of the CLI sees it, against a Secret Service the test plays on a real
// private bus (test/support/secret-service-peer.ts): what it says when the service refuses the
// encrypted session, sends a secret that does not decrypt, or leaves the bus while its unlock
// prompt waits. Real GNOME Keyring runs are in test/process/keyring*.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../../support/harness.js';
import { startKeyringSession, type KeyringSession } from '../../support/keyring-session.js';
import { needs } from '../../support/tools.js';
import { secretServicePeer, ServiceSession, type Peer } from '../../support/secret-service-peer.js';

const KEY = 'crk_KeyringStoreTest0123456789';
const ITEM = '/org/freedesktop/secrets/collection/login/7';
const COLLECTION = '/org/freedesktop/secrets/collection/login';
const PROMPT = '/org/freedesktop/secrets/prompt/u1';
const DH = 'dh-ietf1024-sha256-aes128-cbc-pkcs7';

let session: KeyringSession;
let peer: Peer | undefined;
const tmp = tempDir();
beforeAll(async () => {
  session = await startKeyringSession({ keyring: false });
});
afterEach(() => {
  peer?.close();
  peer = undefined;
});
afterAll(async () => {
  await session?.close();
  tmp.cleanup();
});

let n = 0;
/** A config folder whose profile keeps its key in the keyring, under these names. */
function keyringProfile(): string {
  const dir = join(tmp.dir, `cfg-${++n}`);
  mkdirSync(dir, { mode: 0o700 });
  const profile = { 'base-url': 'http://127.0.0.1:9/', 'key-store': 'keyring', 'keyring-service': 'crawl:http://127.0.0.1:9', 'keyring-account': 'default:0123456789ab' };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
  return dir;
}

function token(dir: string, flags: string[] = [], options: { tty?: boolean } = {}) {
  return runCli(['auth', 'token', ...flags], { env: { CRAWL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: session.address }, ...options });
}

/** The item search every read starts with: the entry, unlocked or locked. */
function search(none = false, locked = false) {
  return { signature: 'aoao', body: none ? [[], []] : locked ? [[], [ITEM]] : [[ITEM], []] } as const;
}

describe('the keyring store, against a Secret Service the test plays', needs('dbus-daemon'), () => {
  it('a service that refuses the encrypted session: the key goes in plain, and --verbose says so once a run', async () => {
    let stored: Buffer | undefined;
    peer = await secretServicePeer(session.address, (m) => {
      if (m.member === 'OpenSession') return m.body[0] === 'plain' ? { signature: 'vo', body: [['s', ''], '/s/p'] } : { error: 'org.freedesktop.DBus.Error.NotSupported', text: 'not supported' };
      if (m.member === 'ReadAlias') return { signature: 'o', body: [COLLECTION] };
      if (m.member === 'Get') return { signature: 'v', body: [['b', false]] };
      if (m.member === 'CreateItem') {
        stored = (m.body[1] as [string, Buffer, Buffer, string])[2];
        return { signature: 'oo', body: [ITEM, '/'] };
      }
      if (m.member === 'SearchItems') return search(stored === undefined);
      if (m.member === 'GetSecret') return { signature: '(oayays)', body: [['/s/p', Buffer.alloc(0), stored ?? Buffer.alloc(0), 'text/plain']] };
      return { error: 'org.freedesktop.DBus.Error.UnknownMethod' };
    });
    const dir = join(tmp.dir, `cfg-${++n}`);
    const env = { CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: 'http://127.0.0.1:9', DBUS_SESSION_BUS_ADDRESS: session.address };
    // A login writes the key, then reads it back: two sessions, one line.
    const login = await runCli(['auth', 'login', '--with-key', '--no-verify', '--store', 'keyring', '--verbose'], { env, input: KEY });
    expect(login.code, login.stderr).toBe(0);
    expect(stored?.toString()).toBe(KEY);
    const line = `* the Secret Service does not support the encrypted session (${DH}): secrets cross the session bus in plain\n`;
    expect(login.stderr.split(line).length - 1, login.stderr).toBe(1);
    const quiet = await runCli(['auth', 'token'], { env });
    expect(quiet.stdout).toBe(`${KEY}\n`);
    expect(quiet.stderr).toBe('');
  });

  it('a secret that does not decrypt with the session key: one line naming the store, no stack, no key (exit 1)', async () => {
    const crypto = new ServiceSession();
    peer = await secretServicePeer(session.address, (m) => {
      if (m.member === 'SearchItems') return search();
      if (m.member === 'OpenSession') return { signature: 'vo', body: [crypto.open((m.body[1] as [string, Buffer])[1]), '/s/1'] };
      const iv = Buffer.alloc(16, 9);
      if (m.member === 'GetSecret') return { signature: '(oayays)', body: [['/s/1', iv, crypto.encryptRaw(Buffer.from(`${KEY}\0\0`), iv), 'text/plain']] };
      return { error: 'org.freedesktop.DBus.Error.UnknownMethod' };
    });
    const r = await token(keyringProfile());
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^crawl: could not read the key in the system keyring \(Secret Service\): the Secret Service sent a secret that does not decrypt with the session key \(bad padding\)\nhint: [^\n]+\n$/);
    expect(r.stderr).not.toContain('crk_');
  });

  it('the service leaves the bus while its unlock prompt waits: the wait ends at once, saying the keyring stopped (exit 1)', async () => {
    let shown = (): void => undefined;
    const prompted = new Promise<void>((resolve) => (shown = resolve));
    peer = await secretServicePeer(session.address, (m, self) => {
      if (m.member === 'SearchItems') return search(false, true);
      if (m.member === 'OpenSession') return { error: 'org.freedesktop.DBus.Error.NotSupported' };
      if (m.member === 'Unlock') return { signature: 'aoo', body: [[], PROMPT] };
      if (m.member === 'Prompt') {
        self.conn.reply(m);
        shown();
        return undefined;
      }
      return undefined;
    });
    // The unlock bound is the fake clock's, which no one moves: only the service's leaving ends the wait.
    const run = token(keyringProfile(), [], { tty: true });
    await prompted;
    await peer.releaseName();
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('the system keyring (Secret Service) is locked: unlock it in the dialog on your desktop');
    expect(r.stdout).toContain('crawl: the system keyring (Secret Service) stopped while crawl waited for it: the keyring service left the session bus\n');
  });
});
