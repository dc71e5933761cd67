// `auth status`: where the settings came from, the key masked, and whether the service accepts it.
import { describe, expect, it } from 'vitest';
import { maskKey } from '../../../src/text/mask.js';
import { crawl, runCli, TEST_HOME } from '../../support/harness.js';
import { BAD_KEY, envOf, settingsSuite } from '../../support/settings.js';

const suite = settingsSuite();
const folders = suite.folders;

async function authStatus(args: string[], env: Record<string, string | undefined>) {
  const r = await runCli(['auth', 'status', '--json', ...args], { env });
  return { ...r, json: r.stdout ? JSON.parse(r.stdout) : undefined };
}

async function revokedKey(): Promise<string> {
  const created = suite.fx.sandbox.addKey('to-revoke');
  const res = await fetch(`${suite.fx.sandbox.url}/api/keys/${created.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${suite.fx.sandbox.key}` },
  });
  expect(res.status).toBe(200);
  return created.key;
}

describe('auth status', () => {
  it.concurrent('status shows base URL, profile, key source and masked key; accepted → 0', async ({ expect }) => {
    const env = envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: suite.fx.sandbox.url, CRAWL_API_KEY: suite.fx.sandbox.key });
    const [plain, tty] = await Promise.all([runCli(['auth', 'status'], { env }), runCli(['auth', 'status'], { env, tty: true })]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(
      [
        'profile\tdefault',
        `base-url\t${suite.fx.sandbox.url}/`,
        'base-url-source\tenv',
        `api-key\t${maskKey(suite.fx.sandbox.key)}`,
        'api-key-source\tenv',
        'key-location\tCRAWL_API_KEY',
        'accepted\ttrue',
        '',
      ].join('\n'),
    );
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/Base URL\s+\S+ \(from CRAWL_BASE_URL\)/);
    expect(tty.stdout).toMatch(/Key\s+crk_\S+ \(from CRAWL_API_KEY\)/);
    expect(tty.stdout).toContain('the service accepts this key');
    for (const r of [plain, tty]) expect(r.stdout + r.stderr).not.toContain(suite.fx.sandbox.key);
  });

  it.concurrent('a revoked or invalid key → 4', async ({ expect }) => {
    const revoked = await revokedKey();
    const base = { CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: suite.fx.sandbox.url };
    const [a, b] = await Promise.all([
      authStatus([], envOf({ ...base, CRAWL_API_KEY: revoked })),
      authStatus([], envOf({ ...base, CRAWL_API_KEY: BAD_KEY })),
    ]);
    for (const r of [a, b]) {
      expect(r.code).toBe(4);
      expect(r.json).toMatchObject({ accepted: false, httpStatus: 401 });
    }
    expect(a.stdout + a.stderr).not.toContain(revoked);
  });

  it.concurrent('no key at all → 2, as for every command: said on stderr with how to log in, whatever the output mode', async ({ expect }) => {
    const env = envOf({ CRAWL_CONFIG_DIR: folders.fresh(), CRAWL_BASE_URL: suite.fx.sandbox.url });
    const [plain, tty, json, profile] = await Promise.all([
      runCli(['auth', 'status'], { env }),
      runCli(['auth', 'status'], { env, tty: true }),
      authStatus([], env),
      runCli(['--profile', 'ci', 'auth', 'status'], { env: { ...env, CRAWL_PROFILE: undefined } }),
    ]);
    // Off a terminal: no verdict a script could take on stdout, the reason and the fix on stderr.
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toBe('crawl: no API key configured\nhint: run `crawl auth login` or set CRAWL_API_KEY\n');
    // On a terminal: what is known here, then the same lines.
    expect(tty.code).toBe(2);
    expect(tty.stdout).toMatch(/Key\s+none\n/);
    expect(tty.stdout).toMatch(/Status\s+\S*✗ no key \(below\)/);
    expect(tty.stdout).toContain('crawl: no API key configured\nhint: run `crawl auth login` or set CRAWL_API_KEY\n');
    // --json: the document (nothing to accept) on stdout, the error as the usual JSON line on stderr.
    expect(json.code).toBe(2);
    expect(json.json).toMatchObject({ apiKey: null, apiKeySource: null, accepted: false, httpStatus: null });
    expect(JSON.parse(json.stderr)).toEqual({ error: { message: 'no API key configured', httpStatus: null, exitCode: 2 } });
    // An unknown profile is its own usage error, named as such.
    expect(profile.code).toBe(2);
    expect(profile.stderr).toMatch(/^crawl: unknown profile "ci"/);
  });
});

describe('auth status: the advice to move a plaintext key into the keyring', () => {
  const ADVICE = 'note: the key is in plaintext in the config file: move it into the system keyring with `crawl auth login`';
  const plaintext = (): string => folders.with({ default: { 'base-url': suite.fx.sandbox.url, 'api-key': suite.fx.sandbox.key } });
  const empty = folders.fresh();

  it.concurrent('only where a keyring is there to take it: none with no bus, or a bus whose socket is gone (a login would write plaintext again)', async ({ expect }) => {
    for (const bus of [{}, { DBUS_SESSION_BUS_ADDRESS: `unix:path=${empty}/gone` }]) {
      const r = await runCli(['auth', 'status'], { env: envOf({ CRAWL_CONFIG_DIR: plaintext(), ...bus }) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('move it into the system keyring');
    }
  });

  // (Windows paths cannot name this system's config folder: macOS stands for both, the same code.)
  it.concurrent('macOS: advised where the keyring binding loads, not where it cannot', async ({ expect }) => {
    const env = envOf({ CRAWL_CONFIG_DIR: plaintext() });
    const loads = await crawl(['auth', 'status'], { env, platform: { os: 'darwin', home: TEST_HOME } });
    expect(loads.code, loads.stderr).toBe(0);
    expect(loads.stderr).toContain(ADVICE);
    const cannot = await crawl(['auth', 'status'], { env, platform: { os: 'darwin', home: TEST_HOME, keyringBindingFrom: empty } });
    expect(cannot.code, cannot.stderr).toBe(0);
    expect(cannot.stderr).not.toContain('move it into the system keyring');
  });
});
