// Contract (spawned): docs/ci.md's recipes for pass, the standard Unix password manager, run with
// the real pass and gpg (a key of the test's own, without a passphrase, in a GNUPGHOME of its own)
// and the built crawl, against the sandbox: the nightly rotation (examples/rotate-pass-nightly.sh),
// due and not due, going on in the same script with the key read again; and pass as a profile's
// key-command / key-store-command. `pass insert -m -f` is what stores a key read from stdin.
// gpg and several spawned crawl runs a test: the bounds are hang guards for a loaded machine.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { ROOT, spawnProcess, type ProcessResult } from '../support/spawn.js';
import { needs } from '../support/tools.js';
import { keyStatus } from '../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { standIns } from '../support/stand-ins.js';

const DAY = 86_400_000;

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let env: Record<string, string>;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-pass-');
  const gnupg = join(tmp.dir, 'g');
  mkdirSync(gnupg, { mode: 0o700 });
  env = {
    GNUPGHOME: gnupg,
    PASSWORD_STORE_DIR: join(tmp.dir, 'store'),
    CRAWL_BASE_URL: fx.sandbox.url,
    CRAWL_CONFIG_DIR: join(tmp.dir, 'config'),
    PATH: `${standIns(tmp.dir).bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  };
  // A key that needs no passphrase, so that gpg-agent never asks (as a CI runner's key would be set up).
  await sh(`gpg --batch --pinentry-mode loopback --passphrase '' --quick-gen-key 'crawl test <crawl-test@example.invalid>' future-default default never`);
  await sh('pass init crawl-test@example.invalid');
}, 60_000);
afterAll(async () => {
  // The agent gpg started for this GNUPGHOME.
  await sh('gpgconf --kill all');
  tmp.cleanup();
  await fx.close();
});

/** A shell command line with the test's environment (pass, gpg, the built crawl on PATH); stdin is /dev/null. */
function sh(line: string, extra: Record<string, string> = {}): Promise<ProcessResult> {
  return spawnProcess('sh', ['-c', line], { env: { ...env, ...extra }, cwd: tmp.dir, stdin: 'ignore', timeoutMs: 60_000 });
}

const inPass = async (): Promise<string> => (await sh('pass show ci/crawl')).stdout.trim();
async function putInPass(key: string): Promise<void> {
  const r = await sh('printf "%s\\n" "$KEY" | pass insert -m -f ci/crawl', { KEY: key });
  expect(r.code, r.stderr).toBe(0);
}

describe('examples/rotate-pass-nightly.sh', needs('pass', 'gpg'), () => {
  const script = join(ROOT, 'examples', 'rotate-pass-nightly.sh');

  it('due: the key is rotated into pass, the old one revoked, and the script goes on with the new key', async () => {
    const old = fx.sandbox.addKey('ci-nightly', { createdAt: new Date(Date.now() - 40 * DAY).toISOString() });
    await putInPass(old.key);
    fx.sandbox.addJob({ id: 'nightly-due', status: 'running', pagesTotal: 4, advance: { perPoll: 4, endStatus: 'completed' } });
    const r = await sh(`sh '${script}'`, { JOB_ID: 'nightly-due' });
    expect(r.code, r.stderr).toBe(0);
    // pass insert's own words come first (crawl passes a store's output on).
    expect(r.stdout.endsWith('crawl nightly-due completed\n')).toBe(true);
    expect(r.stderr).toContain('Revoked the old key "ci-nightly"');
    const fresh = await inPass();
    expect(fresh).toMatch(/^crk_/);
    expect(fresh).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    // The watch ran after the rotation, with the key read again: the old one was revoked by then.
    const watched = fx.sandbox.requests.filter((q) => q.url === '/api/crawl/nightly-due');
    expect(watched.length).toBeGreaterThan(0);
    expect(watched.every((q) => q.authorized)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(fresh);
  }, 60_000);

  it('not due: one line says so and how old the key is; pass keeps the key, which still works, and the script goes on', async () => {
    const young = fx.sandbox.addKey('ci-young', { createdAt: new Date(Date.now() - 2 * DAY).toISOString() });
    await putInPass(young.key);
    fx.sandbox.addJob({ id: 'nightly-not-due', status: 'completed', pagesTotal: 1 });
    const r = await sh(`sh '${script}'`, { JOB_ID: 'nightly-not-due' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toMatch(/^Not due: the key in use "ci-young" \(.*\) is 2 days old \(created .*\), not older than 30d; nothing was changed\.$/);
    expect(r.stdout).toBe('crawl nightly-not-due completed\n');
    expect(await inPass()).toBe(young.key);
    expect(await keyStatus(fx.sandbox, young.key)).toBe(200);
  }, 60_000);

  it('without -m, pass insert wants a terminal: as a --to-command it fails, and the rotation is rolled back', async () => {
    const old = fx.sandbox.addKey('ci-no-m');
    await putInPass(old.key);
    const r = await sh("CRAWL_API_KEY=$(pass show ci/crawl) crawl keys rotate --yes --to-command 'pass insert -f ci/crawl'");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the --to-command command did not store the key');
    expect(await inPass()).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  }, 60_000);
});

describe('pass as the profile\'s key store (docs/ci.md, A secret manager as the key\'s home)', needs('pass', 'gpg'), () => {
  it('key-command `pass show`, key-store-command `pass insert -m -f`: crawl reads the key from pass and rotates it there', async () => {
    const old = fx.sandbox.addKey('pass-home');
    await putInPass(old.key);
    const config = { CRAWL_CONFIG_DIR: join(tmp.dir, 'config-home') };
    for (const line of ["crawl config set key-command 'pass show ci/crawl'", "crawl config set key-store-command 'pass insert -m -f ci/crawl'"]) {
      const set = await sh(line, config);
      expect(set.code, set.stderr).toBe(0);
    }
    const r = await sh('crawl keys rotate --yes', config);
    expect(r.code, r.stderr).toBe(0);
    const fresh = await inPass();
    expect(fresh).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    const status = await sh('crawl auth status', config);
    expect(status.stdout).toContain('accepted\ttrue\n');
    expect(readFileSync(join(tmp.dir, 'config-home', 'config.json'), 'utf8')).not.toContain(fresh);
  }, 60_000);
});
