// Contract (spawned): the CI recipes of docs/ci.md, run as the shell scripts they are (examples/),
// with the built crawl on PATH, against the sandbox. gh, glab and vault are stand-ins that keep
// what they were given (stdin, arguments, environment) and exit as told; jq is the system's.
// The failure paths too: a store that fails leaves the old key working and the new one revoked.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { cleanEnv, ROOT } from '../support/spawn.js';
import { findKey } from '../support/key-forms.js';
import { keyStatus } from '../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { standIns } from '../support/stand-ins.js';
import { needs } from '../support/tools.js';

const EXAMPLES = join(ROOT, 'examples');

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let bin: string;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-ci-recipes-');
  const made = standIns(tmp.dir);
  bin = made.bin;
  const tool = made.tool;
  // gh secret set NAME / glab variable update NAME: the value on stdin.
  for (const name of ['gh', 'glab']) {
    tool(name, `cat > "$STORE/${name}.stdin"; printf '%s\\n' "$@" > "$STORE/${name}.args"; env > "$STORE/${name}.env"; exit "\${STORE_EXIT:-0}"`);
  }
  // vault kv get -field=api-key secret/crawl prints the value; vault kv put secret/crawl api-key=- reads it.
  tool(
    'vault',
    `case "$2" in
  get) cat "$STORE/vault.value" ;;
  put) value=$(cat); printf '%s\\n' "$@" > "$STORE/vault.args"; env > "$STORE/vault.env"
       [ "\${STORE_EXIT:-0}" = 0 ] || exit "$STORE_EXIT"; printf '%s\\n' "$value" > "$STORE/vault.value" ;;
esac`,
  );
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs examples/<script> with sh, the stand-ins and crawl first on PATH, in a store folder: a new
 * one unless given, holding `files` first (what a store already has).
 */
function recipe(script: string, env: Record<string, string>, options: { store?: string; files?: Record<string, string> } = {}): Promise<Run & { store: string }> {
  const store = options.store ?? join(tmp.dir, `${script}-${readdirSync(tmp.dir).length}`);
  mkdirSync(store, { recursive: true });
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(store, name), text);
  const vars = cleanEnv({ ...env, STORE: store, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` });
  return new Promise((resolve) => {
    execFile('sh', [join(EXAMPLES, script)], { env: vars, cwd: store, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, store });
    });
  });
}

/** A key of its own for each rotation, so that the runs do not revoke each other's keys. */
function ciEnv(name: string): { env: Record<string, string>; old: { id: string; key: string } } {
  const old = fx.sandbox.addKey(name);
  return { env: { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: old.key, CRAWL_CONFIG_DIR: join(tmp.dir, `config-${name}`), GH_TOKEN: 'gh-token' }, old };
}

const read = (store: string, file: string): string => readFileSync(join(store, file), 'utf8');

describe('rotating into a secret store', () => {
  it.concurrent.each([
    ['rotate-github-actions.sh', 'gh', 'secret\nset\nCRAWL_API_KEY\n'],
    ['rotate-gitlab-ci.sh', 'glab', 'variable\nupdate\nCRAWL_API_KEY\n--masked\n'],
  ])('%s: the store gets the new key on stdin only; the old key is revoked', async (script, tool, args) => {
    const { env, old } = ciEnv(`ok-${tool}`);
    const r = await recipe(script, env);
    expect(r.stderr).toContain('Revoked the old key');
    expect(r.code).toBe(0);
    const fresh = read(r.store, `${tool}.stdin`).trim();
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(read(r.store, `${tool}.args`)).toBe(args);
    const seen = read(r.store, `${tool}.args`) + read(r.store, `${tool}.env`);
    expect(findKey(seen, fresh)).toBeUndefined();
    expect(findKey(seen, old.key)).toBeUndefined();
    expect(findKey(r.stdout + r.stderr, fresh)).toBeUndefined();
  });

  it.concurrent.each([
    ['rotate-github-actions.sh', 'gh'],
    ['rotate-gitlab-ci.sh', 'glab'],
  ])('%s, the store fails: the script fails, the old key still works, the new one is revoked', async (script, tool) => {
    const { env, old } = ciEnv(`fail-${tool}`);
    const r = await recipe(script, { ...env, STORE_EXIT: '4' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the --to-command command did not store the key: it exited with status 4');
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, read(r.store, `${tool}.stdin`).trim())).toBe(401);
  });

  it.concurrent('rotate-vault-cron.sh: the key read from Vault is rotated, and the new one written back; a failed put leaves the old one', async () => {
    const { env, old } = ciEnv('vault');
    const { CRAWL_API_KEY: _fromVault, ...rest } = env;
    const ok = await recipe('rotate-vault-cron.sh', rest, { files: { 'vault.value': `${old.key}\n` } });
    expect(ok.code).toBe(0);
    const fresh = read(ok.store, 'vault.value').trim();
    expect(fresh).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(read(ok.store, 'vault.args')).toBe('kv\nput\nsecret/crawl\napi-key=-\n');
    expect(findKey(read(ok.store, 'vault.env'), fresh)).toBeUndefined();

    const failed = await recipe('rotate-vault-cron.sh', { ...rest, STORE_EXIT: '2' }, { store: ok.store });
    expect(failed.code).toBe(1);
    expect(read(ok.store, 'vault.value').trim()).toBe(fresh);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(failed.stderr).toContain('it exited with status 2');
  });
});

describe('pruning and gating', needs('jq'), () => {
  it.concurrent('prune-ci-keys.sh: the idle ci-* keys revoked and printed; the key in use, a recent one and other names kept', async () => {
    const days = (n: number): string => new Date(Date.now() - n * 86_400_000).toISOString();
    const idle = fx.sandbox.addKey('ci-idle', { createdAt: days(90), lastUsedAt: days(45) });
    const recent = fx.sandbox.addKey('ci-recent', { createdAt: days(90), lastUsedAt: days(1) });
    const human = fx.sandbox.addKey('alice laptop', { createdAt: days(90), lastUsedAt: days(45) });
    const inUse = fx.sandbox.addKey('ci-in-use', { createdAt: days(90), lastUsedAt: days(45) });
    const r = await recipe('prune-ci-keys.sh', { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: inUse.key, CRAWL_CONFIG_DIR: join(tmp.dir, 'config-prune') });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toContain(`revoked ${idle.id} ci-idle`);
    expect(r.stdout).not.toContain(recent.id);
    expect(await keyStatus(fx.sandbox, idle.key)).toBe(401);
    for (const kept of [recent, human, inUse]) expect(await keyStatus(fx.sandbox, kept.key)).toBe(200);
  });

  it.concurrent.each([
    ['completed', 0, /^crawl gate-completed completed with 7 pages\n$/],
    ['errored', 10, /^$/],
  ] as const)('job-gate.sh, a job %s: exit %i', async (status, code, stdout) => {
    const id = `gate-${status}`;
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 7, advance: { perPoll: 7, endStatus: status } });
    const r = await recipe('job-gate.sh', { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key, CRAWL_CONFIG_DIR: join(tmp.dir, 'config-gate'), JOB_ID: id });
    expect(r.code).toBe(code);
    expect(r.stdout).toMatch(stdout);
  });
});

describe('a secret manager as the profile key store', () => {
  it('vault-key-command.sh: crawl reads the key from Vault and rotates it there; no key on any argv or env', async () => {
    const old = fx.sandbox.addKey('vault-store');
    const env = { CRAWL_BASE_URL: fx.sandbox.url, CRAWL_CONFIG_DIR: join(tmp.dir, 'config-vault-store') };
    const r = await recipe('vault-key-command.sh', env, { files: { 'vault.value': old.key + '\n' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/key-location\tcommand: vault …/);
    const fresh = read(r.store, 'vault.value').trim();
    expect(fresh).not.toBe(old.key);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    const seen = read(r.store, 'vault.args') + read(r.store, 'vault.env');
    expect(findKey(seen, fresh)).toBeUndefined();
    expect(findKey(seen, old.key)).toBeUndefined();
    expect(findKey(r.stdout + r.stderr, fresh)).toBeUndefined();
  });
});

describe('docs/ci.md', () => {
  it('holds each recipe exactly as the tests run it', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
    const scripts = readdirSync(EXAMPLES).filter((f) => f.endsWith('.sh'));
    expect(scripts.length).toBe(7);
    for (const script of scripts) expect(doc, script).toContain('```sh\n' + readFileSync(join(EXAMPLES, script), 'utf8') + '```');
  });
});
