// Which owners and modes make a config file or folder untrustworthy (as ssh judges its own), as a
// pure rule; then the commands refusing such files, for reads and writes, at once: one line naming
// the file or folder and the command that fixes it, no request made, the file as it was.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distrust } from '../../src/config/file-trust.js';
import { shellQuote } from '../../src/text/shell.js';
import { runCli } from '../support/harness.js';
import { BROKEN_HEAD, BROKEN_TAIL, expectNoBrokenKeyIn } from '../support/key-forms.js';
import { withOwnSandbox } from '../support/sandbox.js';
import { configFolders, envOf } from '../support/settings.js';
import { needs } from '../support/tools.js';

const folders = configFolders('crawl-file-trust-');
afterAll(() => folders.cleanup());
const isRoot = process.getuid?.() === 0;

describe('distrust (ssh-style ownership and mode rules)', () => {
  const ME = 1000;
  it('trusts what is mine or root\'s and not writable by group or others', () => {
    for (const uid of [ME, 0]) {
      for (const mode of [0o600, 0o644, 0o400, 0o700, 0o755, 0o711]) {
        expect(distrust({ uid, mode }, 'file', ME)).toBeUndefined();
        expect(distrust({ uid, mode }, 'folder', ME)).toBeUndefined();
      }
    }
  });

  it('refuses a file writable by group or others, whatever else its mode says', () => {
    for (const mode of [0o666, 0o620, 0o602, 0o660, 0o622, 0o1666, 0o4620]) {
      expect(distrust({ uid: ME, mode: 0o100000 | mode }, 'file', ME)).toEqual({ reason: 'writable', mode });
    }
  });

  it('refuses a folder writable by group or others unless it is sticky', () => {
    for (const mode of [0o777, 0o770, 0o775, 0o757, 0o730, 0o720]) {
      expect(distrust({ uid: ME, mode: 0o40000 | mode }, 'folder', ME)).toEqual({ reason: 'writable', mode });
      expect(distrust({ uid: 0, mode: 0o40000 | 0o1000 | mode }, 'folder', ME)).toBeUndefined();
    }
    // The sticky bit means nothing on a file.
    expect(distrust({ uid: ME, mode: 0o1666 }, 'file', ME)).toEqual({ reason: 'writable', mode: 0o1666 });
  });

  it('refuses what another user owns (root excepted), even with a private mode; root itself trusts only its own', () => {
    expect(distrust({ uid: 1001, mode: 0o600 }, 'file', ME)).toEqual({ reason: 'owner', mode: 0o600, uid: 1001 });
    expect(distrust({ uid: 1001, mode: 0o1777 }, 'folder', ME)).toEqual({ reason: 'owner', mode: 0o1777, uid: 1001 });
    expect(distrust({ uid: ME, mode: 0o600 }, 'file', 0)).toEqual({ reason: 'owner', mode: 0o600, uid: ME });
    expect(distrust({ uid: 0, mode: 0o600 }, 'file', 0)).toBeUndefined();
  });
});

describe('a config file that other users could change (as ssh refuses its own)', () => {
  const fileHint = (file: string): string => `hint: only you should be able to change it: \`chmod 600 ${file}\`\n`;
  const folderHint = (dir: string): string => `hint: only you should be able to change it: \`chmod go-w ${dir}\`\n`;

  /** Reads (with and without the key) and a write: each refused the same way, the file untouched. */
  async function expectRefused(dir: string, file: string, line: string, hint: string): Promise<void> {
    const before = readFileSync(file);
    const modeBefore = statSync(file).mode;
    await withOwnSandbox(async (own) => {
      const env = envOf({ CRAWL_CONFIG_DIR: dir });
      const results = await Promise.all([
        runCli(['config', 'get', 'base-url'], { env }),
        runCli(['job', 'status', 'x'], { env: { ...env, CRAWL_BASE_URL: own.sandbox.url } }),
        runCli(['auth', 'token'], { env }),
        runCli(['config', 'set', 'base-url', 'https://other.example'], { env }),
        runCli(['auth', 'logout'], { env }),
      ]);
      for (const r of results) {
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(`crawl: refusing to use config file ${file}: ${line}\n${hint}`);
        expectNoBrokenKeyIn(r.stderr);
      }
      expect(own.sandbox.requests).toEqual([]);
    });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(statSync(file).mode).toBe(modeBefore);
    expect(readdirSync(dir)).toEqual(['config.json']);
  }

  const doc = { profiles: { default: { 'base-url': 'https://a.example', 'api-key': BROKEN_HEAD + BROKEN_TAIL } } };

  it.concurrent.for(['0666', '0620', '0602', '0660', '0622'])('the file with mode %s: refused for reads and writes, exit 1, the chmod to run', async (octal, { expect }) => {
    const mode = parseInt(octal, 8);
    const { dir, file } = folders.holding(doc);
    chmodSync(file, mode);
    await expectRefused(dir, file, `it is writable by other users (mode ${octal})`, fileHint(file));
    expect(statSync(file).mode & 0o7777).toBe(mode);
  });

  it.concurrent.for(['0777', '0770', '0775', '0757', '0730'])('its folder with mode %s: refused for reads and writes, exit 1, the chmod to run', async (octal, { expect }) => {
    const mode = parseInt(octal, 8);
    const { dir, file } = folders.holding(doc, mode);
    await expectRefused(dir, file, `its folder ${dir} is writable by other users (mode ${octal})`, folderHint(dir));
    expect(statSync(dir).mode & 0o7777).toBe(mode);
  });

  it.concurrent('a folder others could write, no config.json yet: a write is refused and creates nothing', async ({ expect }) => {
    const dir = join(folders.fresh(), 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const file = join(dir, 'config.json');
    const r = await runCli(['config', 'set', 'base-url', 'https://a.example'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: refusing to use config file ${file}: its folder ${dir} is writable by other users (mode 0777)\n${folderHint(dir)}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.concurrent('a config.json linked into a folder others could write (the target\'s folder): refused, naming that folder', async ({ expect }) => {
    const { dir: targetDir, file: target } = folders.holding(doc, 0o777);
    const dir = join(folders.fresh(), 'linked');
    mkdirSync(dir, { mode: 0o700 });
    const file = join(dir, 'config.json');
    symlinkSync(target, file);
    const r = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: refusing to use config file ${file}: its folder ${targetDir} is writable by other users (mode 0777)\n${folderHint(targetDir)}`);
  });

  it.concurrent('a sticky world-writable folder (like /tmp) holding a 0600 file of ours, or a 0644 file: accepted, read and written', async ({ expect }) => {
    const { dir, file } = folders.holding(doc, 0o1777);
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const get = await runCli(['config', 'get', 'base-url'], { env });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toBe('https://a.example\n');
    const set = await runCli(['config', 'set', 'base-url', 'https://b.example'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe('https://b.example');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const { dir: readable, file: shared } = folders.holding(doc, 0o755);
    chmodSync(shared, 0o644);
    const read = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: readable }) });
    expect(read.code, read.stderr).toBe(0);
  });

  // Needs root to give a file away (reported as skipped when not root). As another user
  // (`nobody`): test/process/permissions.test.ts.
  it.runIf(isRoot).concurrent('a file or folder owned by another user: refused, exit 1, the chown to run', async () => {
    const { dir, file } = folders.holding(doc);
    chownSync(file, 65534, 65534);
    await expectRefused(dir, file, 'it is owned by another user (uid 65534, mode 0600)', `hint: make it yours with \`chown 0 ${file}\`, or set CRAWL_CONFIG_DIR to a folder of your own\n`);

    const { dir: theirs, file: inside } = folders.holding(doc);
    chownSync(theirs, 65534, 65534);
    await expectRefused(theirs, inside, `its folder ${theirs} is owned by another user (uid 65534, mode 0700)`, `hint: make it yours with \`chown 0 ${theirs}\`, or set CRAWL_CONFIG_DIR to a folder of your own\n`);
  });

  // What stays to check when not root (reported as skipped as root).
  it.runIf(!isRoot).concurrent('not root: a folder of root\'s (/etc) is not refused', async ({ expect }) => {
    const r = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: '/etc' }) });
    expect(r.stderr).not.toContain('refusing to use config file');
  });

  it.concurrent('a path that needs quoting is quoted in the hint, so it pastes as itself', needs('bash'), async ({ expect }) => {
    const dir = join(folders.fresh(), "it's $(here)");
    mkdirSync(dir, { mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(doc), { mode: 0o600 });
    chmodSync(file, 0o666);
    const r = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(1);
    const quoted = shellQuote(file);
    expect(r.stderr.split('\n')[1]).toBe(`hint: only you should be able to change it: \`chmod 600 ${quoted}\``);
    // The suggested command, run by a shell, fixes exactly that file.
    execFileSync('bash', ['-c', `chmod 600 ${quoted}`]);
    const again = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(again.code, again.stderr).toBe(0);
  });
});
