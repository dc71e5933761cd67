// Which bus address means "no keyring at all" and which "a keyring this crawl cannot reach": only
// the first lets a login that named no store keep the key in the config file. No bus is needed to
// tell them apart, so these run in this process (the real keyring on a real bus: test/process/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { reachesAbstractSockets } from '../../../src/platform/host.js';

let fx: SandboxFixture;
let n = 0;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterAll(() => fx.close());

function configDir(): string {
  const dir = join(fx.configDir, `bus-${n++}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

const login = (dir: string, address: string, ...flags: string[]) =>
  runCli(['auth', 'login', '--with-key', ...flags], { env: { ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: address }, input: fx.sandbox.addKey('bus').key });

const HINT = "hint: point DBUS_SESSION_BUS_ADDRESS at the session bus's Unix socket (`unix:path=…`); or set CRAWL_API_KEY for this shell; or keep the key in the config file instead (plaintext): `crawl auth login --insecure-storage`\n";

describe('a bus address crawl cannot use: a keyring it cannot reach, never the config file', () => {
  it('only transports crawl does not speak: login exits 1 naming them and --insecure-storage; no key is written', async () => {
    const dir = configDir();
    const r = await login(dir, 'tcp:host=127.0.0.1,port=4242;nonce-tcp:host=127.0.0.1,port=4243,noncefile=/tmp/n;autolaunch:');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'crawl: the system keyring cannot be reached by crawl: the session bus address has no entry crawl can use: the tcp: transport, which crawl does not speak; the nonce-tcp: transport, which crawl does not speak; the autolaunch: transport, which crawl does not speak\n' +
        HINT,
    );
    expect(existsSync(join(dir, 'config.json')) ? readFileSync(join(dir, 'config.json'), 'utf8') : '').not.toContain('api-key');
  });

  it('such entries beside sockets that are gone, or a listen-only unix: address: the same', async () => {
    for (const address of ['unix:path=/gone/bus;launchd:env=DBUS_LAUNCHD_SESSION_BUS_SOCKET', 'unix:tmpdir=/tmp', 'systemd:;unix:path=/gone/bus']) {
      const dir = configDir();
      const r = await login(dir, address);
      expect(r.code, address).toBe(1);
      expect(r.stderr, address).toMatch(/^crawl: the system keyring cannot be reached by crawl: the session bus address has no entry crawl can use: /);
      expect(existsSync(join(dir, 'config.json')), address).toBe(false);
    }
  });

  it('an abstract socket: unreachable where this Node cannot connect to one; where it can, nothing listening there is no bus', async () => {
    const dir = configDir();
    const r = await login(dir, `unix:abstract=/tmp/crawl-no-such-bus-${process.pid}`);
    if (reachesAbstractSockets()) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^crawl: no system keyring is available \(no session bus: cannot connect to the session bus at @\/tmp\/crawl-no-such-bus-\d+: ECONNREFUSED\): the key is stored in plaintext/);
    } else {
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('crawl: the system keyring cannot be reached by crawl: the session bus address has no entry crawl can use: unix:abstract=, which this Node cannot reach (Node 22 and later can)\n' + HINT);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    }
  });

  it('an address that cannot be read: unreachable too, saying where it breaks', async () => {
    const dir = configDir();
    const r = await login(dir, 'unix:path=/run/user/1000/my bus');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('crawl: the system keyring cannot be reached by crawl: the session bus address cannot be read: the address (unix:), its "path": the character U+0020 should have been %-escaped\n' + HINT);
  });

  it('--insecure-storage is the way around it', async () => {
    const dir = configDir();
    const r = await login(dir, 'tcp:host=127.0.0.1,port=4242', '--insecure-storage');
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain('"api-key"');
  });
});

describe('no keyring at all: a first login keeps the key in the config file, and says so', () => {
  it('every entry a socket that is not there', async () => {
    const dir = configDir();
    const r = await login(dir, 'unix:path=/gone/bus;unix:path=/also/gone/bus');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^crawl: no system keyring is available \(no session bus: nothing listens at any of the 2 entries of the session bus address\): the key is stored in plaintext in /);
  });
});
