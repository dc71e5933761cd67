// Contract (spawned): permission faults as a user without root's powers (`nobody` through
// setpriv, when the tests run as root: chmod does not stop root). One case for each path the
// file-system can refuse: a config file the user may not read, a config folder it may not write
// or enter, an --output file and an --output-file folder it may not write, and a config file that
// another user owns. Faults a root user can cause (a corrupt file, a folder in the file's place,
// FIFOs, symlinks, modes the trust check refuses, a file root gave away) run in this process:
// test/config/store-faults.test.ts, test/config/file-trust.test.ts, test/io/output-faults.test.ts.
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { keyStatus } from '../support/keys.js';
import { removeUserInstall, runCliAsUser, unprivileged, UNPRIVILEGED_TOOLS } from '../support/local-faults.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { needs } from '../support/tools.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let n = 0;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-contract-permissions-');
  // Passable for `nobody`.
  chmodSync(tmp.dir, 0o755);
});
afterAll(async () => {
  removeUserInstall();
  tmp.cleanup();
  await fx.close();
});

const asUser = unprivileged();
const isRoot = process.getuid?.() === 0;
const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;
const READ_HINT = 'hint: check the permissions of the file and its folder, or point CRAWL_CONFIG_DIR elsewhere\n';
const WRITE_HINT = 'hint: nothing was changed; check the permissions of the config folder or set CRAWL_CONFIG_DIR\n';
const doc = { profiles: { default: { 'base-url': 'https://a.example/' } } };

/** A folder `nobody` may enter (or not: `mode`), owned by root, holding what the test puts there. */
function rootFolder(mode: number): string {
  const dir = join(tmp.dir, `perm-${++n}`);
  mkdirSync(dir);
  chmodSync(dir, mode);
  return dir;
}

describe('the config', needs(...UNPRIVILEGED_TOOLS), () => {
  it.concurrent('a config file the user may not read: exit 1, "permission denied", for reads and writes', async ({ expect }) => {
    const dir = rootFolder(0o755);
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(doc), { mode: 0o600 });
    if (asUser.length === 0) chmodSync(file, 0o000);
    const before = readFileSync(file);
    const env = { CRAWL_CONFIG_DIR: dir };
    const [list, set] = await Promise.all([runCliAsUser(['config', 'list'], env), runCliAsUser(['config', 'set', 'base-url', 'https://b.example'], env)]);
    for (const r of [list, set]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`crawl: cannot read config file ${file}: permission denied (EACCES)\n${READ_HINT}`);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it.concurrent('a config folder the user may not write: reads work, a write exits 1 and changes nothing', async ({ expect }) => {
    const dir = rootFolder(0o755);
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(doc), { mode: 0o644 });
    if (asUser.length === 0) chmodSync(dir, 0o555);
    const before = readFileSync(file);
    const env = { CRAWL_CONFIG_DIR: dir };
    const [get, set, fresh] = await Promise.all([
      runCliAsUser(['config', 'get', 'base-url'], env),
      runCliAsUser(['config', 'set', 'base-url', 'https://b.example'], env),
      // No folder yet, and its parent may not be written either.
      runCliAsUser(['config', 'set', 'base-url', 'https://b.example'], { CRAWL_CONFIG_DIR: join(dir, 'sub', 'crawl') }),
    ]);
    expect(get.code).toBe(0);
    expect(get.stdout).toBe('https://a.example/\n');
    expect(set.code).toBe(1);
    expect(set.stderr).toBe(`crawl: cannot write config file ${file}: permission denied (EACCES)\n${WRITE_HINT}`);
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toBe(`crawl: cannot write config file ${join(dir, 'sub', 'crawl', 'config.json')}: permission denied (EACCES)\n${WRITE_HINT}`);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it.concurrent('a config folder the user may not enter: exit 1, "permission denied"', async ({ expect }) => {
    const dir = rootFolder(0o700);
    writeFileSync(join(dir, 'config.json'), '{}');
    if (asUser.length === 0) chmodSync(dir, 0o000);
    const r = await runCliAsUser(['config', 'list'], { CRAWL_CONFIG_DIR: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: cannot read config file ${join(dir, 'config.json')}: permission denied (EACCES)\n${READ_HINT}`);
  });

  // Needs root to give a file away: as `nobody`, a file of another user (uid 1) is refused, one of
  // root's (0644, in a 0755 folder) is read. (As root, a file given to another user: test/config/file-trust.test.ts.)
  // Not root, the next case cannot run (it is reported as skipped): a file of root's is what
  // stays to check.
  it.runIf(!isRoot).concurrent('not root: a config folder of root\'s (/etc) is not refused', async ({ expect }) => {
    const r = await runCliAsUser(['config', 'get', 'base-url'], { CRAWL_CONFIG_DIR: '/etc' });
    expect(r.stderr).not.toContain('refusing to use config file');
  });

  it.runIf(isRoot).concurrent('a config file owned by another user: refused, exit 1, the chown to run; one owned by root is fine', async ({ expect }) => {
    expect(asUser.length).toBeGreaterThan(0);
    const other = rootFolder(0o755);
    const otherFile = join(other, 'config.json');
    writeFileSync(otherFile, JSON.stringify(doc), { mode: 0o644 });
    chownSync(otherFile, 1, 1);
    const rootDir = rootFolder(0o755);
    writeFileSync(join(rootDir, 'config.json'), JSON.stringify(doc), { mode: 0o644 });
    const [refused, accepted] = await Promise.all([
      runCliAsUser(['config', 'get', 'base-url'], { CRAWL_CONFIG_DIR: other }),
      runCliAsUser(['config', 'get', 'base-url'], { CRAWL_CONFIG_DIR: rootDir }),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `crawl: refusing to use config file ${otherFile}: it is owned by another user (uid 1, mode 0644)\n` +
        `hint: make it yours with \`sudo chown 65534 ${otherFile}\`, or set CRAWL_CONFIG_DIR to a folder of your own\n`,
    );
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toBe('https://a.example/\n');
  });
});

describe('the output', needs(...UNPRIVILEGED_TOOLS), () => {
  it.concurrent('job pages --output to a file the user may not write: one line, exit 1, the file as it was, no request', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'not-mine', status: 'completed', pagesTotal: 10 });
    const file = join(tmp.dir, `not-mine-${++n}.ndjson`);
    writeFileSync(file, 'earlier export\n', { mode: 0o644 });
    if (asUser.length === 0) chmodSync(file, 0o444);
    const r = await runCliAsUser(['job', 'pages', 'not-mine', '--output', file], fx.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: cannot write to ${file}: permission denied (EACCES)\n`);
    expect(readFileSync(file, 'utf8')).toBe('earlier export\n');
    expect(fx.sandbox.requests.some((q) => q.url.startsWith('/api/crawl/not-mine'))).toBe(false);
  });

  it.concurrent('keys create --output-file in a folder the user may not write: the key is printed (its only copy), exit 1', async ({ expect }) => {
    const dir = join(tmp.dir, `ro-${++n}`);
    mkdirSync(dir, { mode: 0o755 });
    if (asUser.length === 0) chmodSync(dir, 0o555);
    const r = await runCliAsUser(['keys', 'create', 'ro-folder', '--output-file', join(dir, 'ci.key')], fx.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toContain(`cannot write the key to ${join(dir, 'ci.key')}: permission denied (EACCES); the key on stdout is its only copy`);
    expect(readdirSync(dir)).toEqual([]);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
  });
});
