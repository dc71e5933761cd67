// `crawl keys rotate`: create, check, store, revoke, in that order; with a fault at each step
// (whatever fails, the new key is stored or printed once, and the old key stays active unless its
// revocation was the step that succeeded); and interrupted (Ctrl-C or SIGTERM) midway, which goes
// through the same "nothing lost" path as a failure: the interrupt is what src/main.ts makes of
// the signal. `--to-command` is in rotate-to-command.test.ts.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crawl, runCli, waitFor } from '../../support/harness.js';
import { activeKeys, calls, configKeySetup, type ConfigKeySetup, fullKeysIn, keyStatus, storedKey } from '../../support/keys.js';
import { onArrival, type SandboxFixture } from '../../support/sandbox.js';

let setup: ConfigKeySetup;
let fx: SandboxFixture;
let old: ConfigKeySetup['old'];
let profile: ConfigKeySetup['profile'];
let env: ConfigKeySetup['env'];
beforeEach(async () => {
  setup = await configKeySetup();
  ({ fx, old, profile, env } = setup);
});
afterEach(() => setup.close());

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;
const today = (): string => new Date().toISOString().slice(0, 10);
const posts = (from: number): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith('POST'));

describe('crawl keys rotate', () => {
  it('from the config: creates, checks, stores, then revokes, in that order; no key in any output', async () => {
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys', 'POST /api/keys', 'GET /api/keys', `DELETE /api/keys/${old.id}`]);
    const fresh = storedKey(profile.file);
    expect(fresh).not.toBe(old.key);
    expect(statSync(profile.file).mode & 0o777).toBe(0o600);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    const listed = (await activeKeys(fx.sandbox, fx.sandbox.key)).find((k) => fresh.startsWith(k.keyPrefix));
    expect(listed?.name).toBe(`ci (rotated ${today()})`);
    const steps = r.stderr.split('\n').filter((l) => l.startsWith('✓'));
    expect(steps).toEqual([
      `✓ Created key "ci (rotated ${today()})" (${listed?.keyPrefix})`,
      '✓ The service accepts the new key',
      `✓ Stored the new key in the config file ${profile.file} (profile "default")`,
      `✓ Revoked the old key "ci" (${old.id}, ${old.keyPrefix})`,
    ]);
    expect(r.stdout).toBe('');
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    // The profile goes on working with the new key, shown as the key in use.
    const list = await runCli(['keys', 'list'], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${listed?.id}\tci (rotated ${today()})\t${listed?.keyPrefix}`);
    expect(list.stdout).toMatch(/\ttrue\n/);
  });

  it('from CRAWL_API_KEY: the new key goes to a new --output-file (0600); --json reports old, new and the steps', async () => {
    const out = join(profile.dir, 'new.key');
    const r = await runCli(['keys', 'rotate', '--yes', '--json', '--output-file', out], { env: { ...env, CRAWL_API_KEY: old.key } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const fresh = readFileSync(out, 'utf8').trim();
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const doc = JSON.parse(r.stdout);
    const listed = (await activeKeys(fx.sandbox, fx.sandbox.key)).find((k) => fresh.startsWith(k.keyPrefix));
    expect(doc).toEqual({
      rotated: true,
      old: { id: old.id, name: 'ci', prefix: old.keyPrefix },
      new: { id: listed?.id, name: `ci (rotated ${today()})`, prefix: listed?.keyPrefix },
      steps: { create: true, verify: true, store: true, revoke: true },
      storedIn: out,
    });
    expect(fullKeysIn(r.stdout)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    // The config file was not touched: it is not where that key came from.
    expect(storedKey(profile.file)).toBe(old.key);
  });

  it('a key rotated before gets a fresh date, not a second suffix; plain output tells to update CRAWL_API_KEY', async () => {
    const again = fx.sandbox.addKey('ci (rotated 2020-01-01)');
    const out = join(profile.dir, 'again.key');
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], { env: { ...env, CRAWL_API_KEY: again.key } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Created key "ci (rotated ${today()})"`);
    expect(r.stderr).toMatch(/CRAWL_API_KEY still holds the old key/);
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });

  it('checks where the new key goes before anything is created', async () => {
    const before = fx.sandbox.requests.length;
    const fromEnv = { ...env, CRAWL_API_KEY: old.key };
    const noFile = await runCli(['keys', 'rotate', '--yes'], { env: fromEnv });
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/CRAWL_API_KEY/);
    expect(noFile.stderr).toContain('--output-file');
    const existing = join(profile.dir, 'exists.key');
    writeFileSync(existing, 'keep\n');
    const taken = await runCli(['keys', 'rotate', '--yes', '--output-file', existing], { env: fromEnv });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/already exists/);
    expect(readFileSync(existing, 'utf8')).toBe('keep\n');
    const both = await runCli(['keys', 'rotate', '--yes', '--output-file', join(profile.dir, 'x.key')], { env });
    expect(both.code).toBe(2);
    expect(existsSync(join(profile.dir, 'x.key'))).toBe(false);
    const blank = await runCli(['keys', 'rotate', '--yes', '--name', ' '], { env });
    expect(blank.code).toBe(2);
    expect(calls(fx.sandbox, before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('off a terminal --yes is required; on a terminal it asks, naming the key', async () => {
    const before = fx.sandbox.requests.length;
    const plain = await runCli(['keys', 'rotate'], { env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/needs confirmation: nothing was changed/);
    expect(plain.stderr).toContain('--yes');
    const no = await runCli(['keys', 'rotate'], { env, tty: true, input: 'n\n' });
    expect(no.code).toBe(2);
    expect(no.stdout).toContain(`Rotate key "ci" (${old.id}, ${old.keyPrefix})?`);
    expect(posts(before)).toEqual([]);
    expect(storedKey(profile.file)).toBe(old.key);

    const yes = await runCli(['keys', 'rotate', '--name', 'ci-2'], { env, tty: true, input: 'y\n' });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain('Created key "ci-2"');
    expect(fullKeysIn(yes.stdout)).toEqual([]);
    expect(storedKey(profile.file)).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
  });
});

const keyCount = async (): Promise<number> => (await activeKeys(fx.sandbox, fx.sandbox.key)).length;
const deletes = (from: number): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith('DELETE'));

describe('crawl keys rotate, step 2 (create) fails', () => {
  it('on an error answer: nothing changed, the old key stays stored and active', async () => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'status', status: 500 });
    const count = await keyCount();
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/step 2 of 5 \(create the new key\): POST \/api\/keys failed: HTTP 500/);
    expect(r.stderr).toMatch(/Nothing was changed/);
    expect(storedKey(profile.file)).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(await keyCount()).toBe(count);
  });

  it('when the connection drops after sending: a key may exist, check the list (exit 5)', async () => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'drop' });
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/a key "ci \(rotated [\d-]+\)" may have been created/);
    expect(r.stderr).toContain('crawl keys list');
    expect(r.stderr).toMatch(/The old key "ci" \(key_\w+\) is still active and still stored/);
    expect(storedKey(profile.file)).toBe(old.key);
  });
});

describe('crawl keys rotate, step 3 (verify) fails', () => {
  it('config: the unchecked key does not replace the stored one; it is printed once; the old key stays', async () => {
    // The first GET /api/keys is step 1 (with the old key); the second is the check of the new key.
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 401, skip: 1, times: 1 });
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(KEY_LINE);
    const fresh = r.stdout.trim();
    expect(r.stderr).toMatch(/step 3 of 5 \(check that the service accepts the new key\).*HTTP 401/);
    expect(r.stderr).toMatch(/printed on stdout: it is its only copy/);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(storedKey(profile.file)).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(deletes(before)).toEqual([]);
    // The hint names the new key by its prefix (the create answer has no id), and it works.
    const hint = /`(crawl keys revoke (crk_\w+) --yes)`/.exec(r.stderr);
    expect(fresh.startsWith(hint?.[2] ?? '-')).toBe(true);
    const cleanup = await runCli((hint?.[1] ?? '').split(' ').slice(1), { env });
    expect(cleanup.code).toBe(0);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(401);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('output file: the key goes to the new file all the same; --json shows the steps done', async () => {
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 401, skip: 1, times: 1 });
    const out = join(profile.dir, 'new.key');
    const r = await runCli(['keys', 'rotate', '--yes', '--json', '--output-file', out], { env: { ...env, CRAWL_API_KEY: old.key } });
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout);
    expect(doc.steps).toEqual({ create: true, verify: false, store: true, revoke: false });
    expect(doc.storedIn).toBe(out);
    expect(doc.new.key).toBeUndefined();
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { exitCode: 4, httpStatus: 401 } });
    const fresh = readFileSync(out, 'utf8').trim();
    expect(fresh.startsWith(doc.new.prefix)).toBe(true);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });
});

describe('crawl keys rotate, step 4 (store) fails', () => {
  it('the config folder cannot be written: the key is printed once, the old key stays, and the hint finishes the job', async () => {
    // chmod cannot stop root, so the folder is replaced by a file once step 1 has read the config
    // (as the POST arrives, before it is answered): every later write fails, for root too.
    const before = fx.sandbox.requests.length;
    const moved = profile.dir + '.moved';
    onArrival(fx.sandbox, (q) => q.method === 'POST' && q.url === '/api/keys', () => {
      renameSync(profile.dir, moved);
      writeFileSync(profile.dir, '');
    });
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(KEY_LINE);
    const fresh = r.stdout.trim();
    expect(r.stderr).toMatch(/step 4 of 5 \(store the new key in the config file .*\): cannot write config file/);
    expect(r.stderr).toMatch(/Done: created the new key .*, the service accepts it\./);
    expect(r.stderr).toMatch(/printed on stdout: it is its only copy/);
    expect(r.stderr).toMatch(/The old key "ci" \(key_\w+\) is still active and still stored/);
    expect(r.stderr).toContain(`store the printed key with \`crawl auth login --with-key\` (it checks the key), then run \`crawl keys revoke ${old.id} --yes\``);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);

    // Doing what the hint says completes the rotation.
    rmSync(profile.dir);
    renameSync(moved, profile.dir);
    const login = await runCli(['auth', 'login', '--with-key'], { env, input: r.stdout });
    expect(login.code).toBe(0);
    expect(storedKey(profile.file)).toBe(fresh);
    const finish = await runCli(['keys', 'revoke', old.id, '--yes'], { env });
    expect(finish.code).toBe(0);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
  });
});

describe('crawl keys rotate, step 5 (revoke) fails', () => {
  it('the new key is stored, the old one still active, and the hint finishes the job', async () => {
    fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${old.id}`, kind: 'status', status: 500, times: 1 });
    const r = await runCli(['keys', 'rotate', '--yes', '--json'], { env });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.steps).toEqual({ create: true, verify: true, store: true, revoke: false });
    expect(doc.storedIn).toBe('config');
    expect(doc.new.key).toBeUndefined();
    const error = JSON.parse(r.stderr).error;
    expect(error).toMatchObject({ exitCode: 1, httpStatus: 500 });
    expect(error.message).toMatch(/step 5 of 5 \(revoke the old key\)/);
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    const fresh = storedKey(profile.file);
    expect(fresh).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);

    const plain = await runCli(['keys', 'revoke', old.id, '--yes'], { env });
    expect(plain.code).toBe(0);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
  });

  it('plain output names the command that finishes', async () => {
    fx.sandbox.inject({ method: 'DELETE', path: '^/api/keys/', kind: 'status', status: 503 });
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`hint: finish with \`crawl keys revoke ${old.id} --yes\``);
    expect(r.stderr).toMatch(/The old key "ci" \(key_\w+\) is still active\./);
    // Sent once: a DELETE is never retried.
    expect(deletes(before)).toEqual([`DELETE /api/keys/${old.id}`]);
  });
});

/** Interrupts (Ctrl-C, or `signal`) once the check of the new key has reached the sandbox. */
const interruptAtCheck = (from: number, signal: NodeJS.Signals = 'SIGINT') => (child: ChildProcess): void => {
  const checking = (): boolean => calls(fx.sandbox, from).filter((c) => c === 'GET /api/keys').length >= 2;
  void waitFor(checking, 10_000, 'the check').then(() => child.kill(signal));
};

describe('crawl keys rotate, interrupted', () => {
  beforeEach(() => {
    // The check of the new key (the second GET /api/keys) is held until the test interrupts it.
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'latency', ms: 5_000, skip: 1, times: 1 });
  });

  it.for([
    ['Ctrl-C', 'SIGINT', 130],
    ['SIGTERM', 'SIGTERM', 143],
  ] as const)('%s while the new key is being checked: it is printed once, the old key stays (exit as documented)', async ([, signal, code]) => {
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], {
      env,
      onSpawn: interruptAtCheck(before, signal),
    });
    expect(r.code).toBe(code);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toMatch(/step 3 of 5 .*: interrupted\./);
    expect(r.stderr).toMatch(/only copy/);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(storedKey(profile.file)).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
  });

  it('Ctrl-C with an output file: the key is written there', async () => {
    const out = join(profile.dir, 'int.key');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], {
      env: { ...env, CRAWL_API_KEY: old.key },
      onSpawn: interruptAtCheck(before),
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Stored the new key in ${out}`);
    expect(await keyStatus(fx.sandbox, readFileSync(out, 'utf8').trim())).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });
});

describe('crawl keys rotate --help', () => {
  it('keys rotate --help shows the CI form first', async () => {
    const r = await crawl(['keys', 'rotate', '--help'], { env: {} });
    const examples = r.stdout.slice(r.stdout.indexOf('Examples:'));
    expect(examples.split('\n').find((row) => row.startsWith('  $ '))).toBe("  $ crawl keys rotate --yes --to-command 'gh secret set CRAWL_API_KEY'");
  });
});
