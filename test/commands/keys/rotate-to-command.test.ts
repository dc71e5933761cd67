// `keys rotate --to-command`: the new key goes to a secret store's CLI on its stdin, and the old key
// is revoked only once that command exits 0; otherwise the new key is revoked again (rolled back),
// and when even that fails it is kept in a 0600 file. `--keep-old` leaves the old key active.
// The CLI runs in this process; the store is a real shell script on PATH that records what it got.
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findKey } from '../../support/key-forms.js';
import { calls, configKeySetup, fullKeysIn, keyStatus, storedKey, type ConfigKeySetup } from '../../support/keys.js';
import { fakeClock } from '../../support/fake-clock.js';
import { crawl, interrupt, tempDir, waitFor } from '../../support/harness.js';
import { processAlive } from '../../support/spawn.js';

let setup: ConfigKeySetup;
let tmp: { dir: string; cleanup: () => void };
let bin: string;
let ciEnv: Record<string, string | undefined>;
beforeEach(async () => {
  setup = await configKeySetup();
  tmp = tempDir('crawl-rotate-command-');
  bin = join(tmp.dir, 'bin');
  mkdirSync(bin);
  // A stand-in for `gh secret set`: keeps its stdin, its arguments and its environment, then exits
  // with STORE_EXIT (default 0), or waits for a signal when STORE_HANG is set (one that ignores
  // SIGTERM when it is \`deaf\`).
  const script = join(bin, 'secret-store');
  writeFileSync(
    script,
    `#!/bin/sh
cat > "$STORE_DIR/stdin"
printf '%s\\n' "$@" > "$STORE_DIR/args"
env > "$STORE_DIR/env"
echo "stored the secret"
echo "a warning from the store" >&2
if [ "$STORE_HANG" = deaf ]; then trap '' TERM; echo $$ > "$STORE_DIR/pid"; exec sleep 60; fi
if [ -n "$STORE_HANG" ]; then exec sleep 60; fi
exit "\${STORE_EXIT:-0}"
`,
  );
  chmodSync(script, 0o755);
  // The key in use comes from CRAWL_API_KEY, as in CI: no config file holds it.
  ciEnv = { ...setup.fx.env, CRAWL_API_KEY: setup.old.key, CRAWL_CONFIG_DIR: join(tmp.dir, 'config'), PATH: `${bin}:${process.env.PATH ?? ''}`, STORE_DIR: tmp.dir };
});
afterEach(async () => {
  tmp.cleanup();
  await setup.close();
});

const stored = (): string => readFileSync(join(tmp.dir, 'stdin'), 'utf8').trim();

describe('keys rotate --to-command', () => {
  it('the new key on the command stdin only (not in its arguments or environment, nor the old key); the old key revoked after it exits 0', async () => {
    const r = await crawl(['keys', 'rotate', '--yes', '--to-command', 'secret-store CRAWL_API_KEY --repo o/r'], { env: ciEnv });
    expect(r.code).toBe(0);
    const fresh = stored();
    expect(fresh).toMatch(/^crk_/);
    expect(await keyStatus(setup.fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(401);
    const argsAndEnv = readFileSync(join(tmp.dir, 'args'), 'utf8') + readFileSync(join(tmp.dir, 'env'), 'utf8');
    expect(readFileSync(join(tmp.dir, 'args'), 'utf8')).toBe('CRAWL_API_KEY\n--repo\no/r\n');
    expect(findKey(argsAndEnv, fresh)).toBeUndefined();
    expect(findKey(argsAndEnv, setup.old.key)).toBeUndefined();
    // The command's output passed on; the steps in order; no key anywhere in what crawl printed.
    expect(r.stdout).toBe('stored the secret\n');
    expect(r.stderr).toContain('a warning from the store\n');
    expect(r.stderr).toContain('✓ Stored the new key in the --to-command destination\n');
    expect(r.stderr.indexOf('Stored the new key')).toBeLessThan(r.stderr.indexOf('Revoked the old key'));
    expect(fullKeysIn(r.output)).toEqual([]);
    // The same script goes on with the old key in its environment: it is told to read the store again.
    expect(r.stderr.split('\n').at(-2)).toBe(
      'note: CRAWL_API_KEY still holds the old key, which no longer works: later steps of the job get the new one from the store, but later commands of this script must read it from the store again first',
    );
  });

  it('--json: one document on stdout (no key in it), the command output on stderr', async () => {
    const r = await crawl(['keys', 'rotate', '--yes', '--json', '--to-command', 'secret-store'], { env: ciEnv });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ steps: { create: true, verify: true, store: true, revoke: true }, storedIn: 'command' });
    expect(findKey(r.stdout, stored())).toBeUndefined();
    expect(r.stderr).toContain('stored the secret\n');
  });

  it.each([
    ['exits 3', { STORE_EXIT: '3' }, 'it exited with status 3'],
    ['is killed', { STORE_EXIT: '0' }, 'it was killed by SIGKILL'],
    ['cannot be found', {}, 'it exited with status 127'],
  ] as const)('the command %s: rolled back (the new key revoked, the old one still works), exit 1, no key printed', async (_what, extra, says) => {
    const command = says.includes('SIGKILL') ? 'secret-store; kill -9 $$' : says.includes('127') ? 'no-such-store-cli' : 'secret-store';
    const before = setup.fx.sandbox.requests.length;
    const r = await crawl(['keys', 'rotate', '--yes', '--to-command', command], { env: { ...ciEnv, ...extra } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the --to-command command did not store the key: ${says}`);
    expect(r.stderr).toContain('then revoked the new key again (rolled back)');
    expect(r.stderr).toContain(`The old key "ci" (${setup.old.id}) is still active.`);
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(200);
    if (existsSync(join(tmp.dir, 'stdin'))) expect(await keyStatus(setup.fx.sandbox, stored())).toBe(401);
    const deletes = calls(setup.fx.sandbox, before).filter((c) => c.startsWith('DELETE'));
    expect(deletes).toHaveLength(1);
    expect(deletes[0]).not.toBe(`DELETE /api/keys/${setup.old.id}`);
    expect(r.stdout).not.toMatch(/crk_/);
    expect(fullKeysIn(r.output)).toEqual([]);
  });

  it('the rollback fails too: the new key is kept in a 0600 file whose path is printed, never on stdout', async () => {
    setup.fx.sandbox.inject({ method: 'DELETE', path: '^/api/keys/', kind: 'status', status: 500 });
    const r = await crawl(['keys', 'rotate', '--yes', '--to-command', 'secret-store'], { env: { ...ciEnv, STORE_EXIT: '1' } });
    expect(r.code).toBe(1);
    const folder = join(tmp.dir, 'config');
    const files = readdirSync(folder).filter((f) => f.startsWith('unrevoked-key-'));
    expect(files).toHaveLength(1);
    const file = join(folder, files[0] ?? '');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(stored());
    expect(r.stderr).toContain(`could not be revoked again`);
    expect(r.stderr).toContain(`it is in ${file} (mode 0600), its only copy`);
    expect(r.stderr).toMatch(/hint: the old key still works where it was: revoke the new key with `crawl keys revoke '?key_/);
    expect(r.stdout).toBe('stored the secret\n');
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(200);
  });

  it('Ctrl-C while the command runs: the command is stopped, the rotation rolled back, exit 130', async () => {
    const controller = new AbortController();
    const run = crawl(['keys', 'rotate', '--yes', '--to-command', 'secret-store'], { env: { ...ciEnv, STORE_HANG: '1' }, signal: controller.signal });
    await waitFor(() => existsSync(join(tmp.dir, 'env')), 10_000, 'the command to have the key');
    interrupt(controller);
    const r = await run;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/stopped at step 4 of 5 \(store the new key in the --to-command destination\): interrupted/);
    expect(r.stderr).toContain('rolled back');
    expect(await keyStatus(setup.fx.sandbox, stored())).toBe(401);
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(200);
  });

  it('Ctrl-C while a command that ignores SIGTERM runs: SIGKILL once the grace has passed on the run\'s clock, then rolled back', async () => {
    const controller = new AbortController();
    const clock = fakeClock();
    const run = crawl(['keys', 'rotate', '--yes', '--to-command', 'secret-store'], { env: { ...ciEnv, STORE_HANG: 'deaf' }, signal: controller.signal, clock });
    await waitFor(() => existsSync(join(tmp.dir, 'pid')), 10_000, 'the command to have the key');
    const pid = Number(readFileSync(join(tmp.dir, 'pid'), 'utf8'));
    interrupt(controller);
    await waitFor(() => clock.pendingDeadlines() > 0, 10_000, 'the grace before SIGKILL, on the run\'s clock');
    // SIGTERM went to the command's group, which ignores it: the command still runs.
    expect(processAlive(pid)).toBe(true);
    await clock.advance(5_000);
    const r = await run;
    expect(r.code).toBe(130);
    // Killed: dead, whether or not anyone has reaped it yet.
    await waitFor(() => !processAlive(pid), 10_000, 'the command to be gone');
    expect(r.stderr).toContain('rolled back');
    expect(await keyStatus(setup.fx.sandbox, stored())).toBe(401);
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(200);
  });

  it('a key from the config file: the command stores it, then the profile does, then the old key goes', async () => {
    const r = await crawl(['keys', 'rotate', '--yes', '--to-command', 'secret-store'], { env: { ...setup.env, PATH: ciEnv.PATH, STORE_DIR: tmp.dir } });
    expect(r.code).toBe(0);
    expect(storedKey(setup.profile.file)).toBe(stored());
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(401);
    expect(r.stderr).toContain(`✓ Stored the new key in the --to-command destination, then the config file ${setup.profile.file} (profile "default")`);
  });

  it('--to-command with --output-file, or an empty command: a usage error, nothing created', async () => {
    const before = setup.fx.sandbox.requests.length;
    const both = await crawl(['keys', 'rotate', '--yes', '--to-command', 'secret-store', '--output-file', join(tmp.dir, 'k')], { env: ciEnv });
    const empty = await crawl(['keys', 'rotate', '--yes', '--to-command', ' '], { env: ciEnv });
    expect([both.code, empty.code]).toEqual([2, 2]);
    expect(both.stderr).toMatch(/^crawl: --to-command and --output-file both say where the new key goes: give one\n/);
    expect(empty.stderr).toMatch(/^crawl: --to-command needs a command\n/);
    expect(calls(setup.fx.sandbox, before)).toEqual([]);
  });

  it('without a place for the new key, the usage error names --to-command first', async () => {
    const r = await crawl(['keys', 'rotate', '--yes'], { env: ciEnv });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/hint: pass --to-command '<command>'/);
  });
});

describe('keys rotate --keep-old', () => {
  it('creates, checks and stores the new key; the old one stays active and is named with the command that retires it', async () => {
    const before = setup.fx.sandbox.requests.length;
    const r = await crawl(['keys', 'rotate', '--yes', '--keep-old', '--to-command', 'secret-store'], { env: ciEnv });
    expect(r.code).toBe(0);
    expect(calls(setup.fx.sandbox, before).some((c) => c.startsWith('DELETE'))).toBe(false);
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(200);
    expect(await keyStatus(setup.fx.sandbox, stored())).toBe(200);
    expect(r.stderr).toContain(`✓ Left the old key "ci" (${setup.old.id}, ${setup.old.keyPrefix}) active (--keep-old)`);
    expect(r.stderr).toContain(`note: retire it when its window ends: \`crawl keys revoke ${setup.old.id} --yes\``);
    const json = await crawl(['keys', 'rotate', '--yes', '--keep-old', '--json', '--to-command', 'secret-store'], { env: { ...ciEnv, CRAWL_API_KEY: stored() } });
    expect(JSON.parse(json.stdout)).toMatchObject({ steps: { store: true, revoke: false }, oldKeptActive: true, storedIn: 'command' });
  });
});

describe('keys rotate --to-command, other steps failing', () => {
  it('step 3 (the service refuses the new key): the command is never run, the new key is revoked, found by its prefix', async () => {
    setup.fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 401, skip: 1, times: 1 });
    const before = setup.fx.sandbox.requests.length;
    const r = await crawl(['keys', 'rotate', '--yes', '--to-command', 'secret-store'], { env: ciEnv });
    expect(r.code).toBe(4);
    expect(existsSync(join(tmp.dir, 'stdin'))).toBe(false);
    expect(r.stderr).toContain('stopped at step 3 of 5');
    expect(r.stderr).toContain('then revoked the new key again (rolled back)');
    const deletes = calls(setup.fx.sandbox, before).filter((c) => c.startsWith('DELETE'));
    expect(deletes).toHaveLength(1);
    expect(deletes[0]).not.toBe(`DELETE /api/keys/${setup.old.id}`);
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(200);
    expect(fullKeysIn(r.output)).toEqual([]);
  });

  it('step 5 (the old key cannot be revoked): the store keeps the new key, and the message says the old one is still active', async () => {
    setup.fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${setup.old.id}`, kind: 'status', status: 500, times: 1 });
    const r = await crawl(['keys', 'rotate', '--yes', '--to-command', 'secret-store'], { env: ciEnv });
    expect(r.code).toBe(1);
    expect(await keyStatus(setup.fx.sandbox, stored())).toBe(200);
    expect(r.stderr).toContain('stopped at step 5 of 5 (revoke the old key)');
    expect(r.stderr).toContain(`The old key "ci" (${setup.old.id}) is still active.`);
    expect(r.stderr).toContain(`crawl keys revoke ${setup.old.id} --yes`);
  });
});

describe('keys rotate --to-command with a key from the config file', () => {
  it('the command stored it but the profile changed meanwhile: the key is not printed, the old one stays active, the message says where the new one is', async () => {
    const env = { ...setup.env, PATH: ciEnv.PATH ?? '', STORE_DIR: tmp.dir };
    // Another process stores its own key in the profile while the command runs: the profile is then not overwritten.
    const other = 'crk_' + 'z'.repeat(40);
    const edit = `node -e 'const fs=require("fs");const f=process.argv[1];const d=JSON.parse(fs.readFileSync(f,"utf8"));d.profiles.default["api-key"]="${other}";fs.writeFileSync(f,JSON.stringify(d))' '${setup.profile.file}'`;
    const r = await crawl(['keys', 'rotate', '--yes', '--to-command', `secret-store && ${edit}`], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('stored the secret\n');
    expect(fullKeysIn(r.output)).toEqual([]);
    expect(r.stderr).toContain('the --to-command command stored it');
    expect(await keyStatus(setup.fx.sandbox, stored())).toBe(200);
    expect(await keyStatus(setup.fx.sandbox, setup.old.key)).toBe(200);
    expect(storedKey(setup.profile.file)).toBe(other);
  });
});
