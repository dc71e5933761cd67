// The system keyring on macOS and Windows (src/config/key-stores/keyring-store.ts's native path),
// with the platform given, where the native binding cannot load (installed without its optional
// build for this system, an architecture filter, x64 Node under Rosetta): the binding is
// required from an empty folder (Platform.keyringBindingFrom), a real failed load, not a stand-in.
// Those systems always have a keystore: crawl cannot reach it, an error, never the plaintext file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawl, TEST_HOME } from '../../support/harness.js';
import { calls } from '../../support/keys.js';
import { settingsSuite } from '../../support/settings.js';

const suite = settingsSuite();
/** Where no @napi-rs/keyring can be found. */
const empty = suite.folders.fresh();
const configDir = (): string => suite.folders.fresh();
const envFor = (dir: string): Record<string, string | undefined> => ({ CRAWL_BASE_URL: suite.fx.sandbox.url, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir });

describe.each(['darwin', 'win32'] as const)('%s, the keyring binding cannot load', (os) => {
  const platform = { os, home: TEST_HOME, keyringBindingFrom: empty };

  it('auth login (no store named, a first login): exit 1 naming the cause and --insecure-storage, before the key is read; nothing written', async () => {
    const key = suite.fx.sandbox.addKey(`no-binding-${os}`).key;
    const dir = configDir();
    const before = suite.fx.sandbox.requests.length;
    const r = await crawl(['auth', 'login', '--with-key'], { env: envFor(dir), input: key, platform });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: the system keyring cannot be reached by crawl: its binding \(@napi-rs\/keyring\) cannot load: Cannot find module '@napi-rs\/keyring'/);
    expect(r.stderr).toContain('hint: reinstall crawl with its optional dependencies (not `--omit=optional`;');
    expect(r.stderr).toContain('or keep the key in the config file instead (plaintext): `crawl auth login --insecure-storage`');
    expect(calls(suite.fx.sandbox, before)).toEqual([]);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  it('--store keyring named: the same error', async () => {
    const r = await crawl(['auth', 'login', '--with-key', '--store', 'keyring'], { env: envFor(configDir()), input: suite.fx.sandbox.addKey(`named-${os}`).key, platform });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: the system keyring cannot be reached by crawl: its binding/);
  });
});

describe('macOS, the keyring binding cannot load', () => {
  const platform = { os: 'darwin' as const, home: TEST_HOME, keyringBindingFrom: empty };

  it('--insecure-storage keeps the key in the config file, as asked', async () => {
    const key = suite.fx.sandbox.addKey('asked-mac').key;
    const dir = configDir();
    const r = await crawl(['auth', 'login', '--with-key', '--insecure-storage'], { env: envFor(dir), input: key, platform });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { default: Record<string, string> } }).profiles.default['api-key']).toBe(key);
  });

  it('a profile already on the Keychain: reading it says the same, with the ways forward', async () => {
    const dir = configDir();
    const profile = { 'base-url': `${suite.fx.sandbox.url}/`, 'key-store': 'keyring', 'keyring-service': 'crawl:x', 'keyring-account': 'default:0123456789ab' };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
    const r = await crawl(['auth', 'token'], { env: envFor(dir), platform });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: the system keyring cannot be reached by crawl: its binding \(@napi-rs\/keyring\) cannot load: .*\nhint: reinstall crawl with its optional dependencies/);
  });
});
