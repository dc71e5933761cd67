// Key files on Windows (src/platform/file-acl.ts, src/commands/keys/lib/key-file.ts), with the
// platform given: icacls (a stand-in here, a real process) is asked to leave the file to the user
// alone before the key is written, without a shell and without the key in its arguments; if it
// fails, no key goes into the file. On POSIX nothing is run: the mode (0600) does it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeKeyFile } from '../../src/commands/keys/lib/key-file.js';
import { CrawlError } from '../../src/errors.js';
import { restrictCommand, restrictToUser, windowsAccount, type Spawn } from '../../src/platform/file-acl.js';
import { tempDir } from '../support/harness.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const KEY = 'crawl_live_0123456789abcdef';
const env = { USERNAME: 'ada', USERDOMAIN: 'CORP', SystemRoot: 'D:\\WINNT' };
/** icacls where Windows keeps it (by SystemRoot): never a bare name, which the current folder would answer first. */
const ICACLS = 'D:\\WINNT\\System32\\icacls.exe';

/** A spawn whose icacls is a node process that reports whether the key is in the file yet, then exits with `status`. */
function icacls(status: number, said = ''): { spawn: Spawn; calls: { file: string; args: readonly string[]; shell: unknown; keyThen?: boolean }[] } {
  const calls: { file: string; args: readonly string[]; shell: unknown; keyThen?: boolean }[] = [];
  return {
    calls,
    spawn: (file, args, options): ChildProcess => {
      const path = String(args[0]);
      calls.push({ file, args, shell: options.shell, keyThen: existsSync(path) && readFileSync(path, 'utf8').includes(KEY) });
      return spawn(process.execPath, ['-e', `process.stderr.write(${JSON.stringify(said)}); process.exit(${status})`], { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    },
  };
}

describe('the account and the command', () => {
  it('DOMAIN\\user from the environment, in any case of the names', () => {
    expect(windowsAccount(env, { os: 'win32' })).toBe('CORP\\ada');
    expect(windowsAccount({ username: 'ada' }, { os: 'win32' })).toBe('ada');
    expect(windowsAccount({}, { os: 'win32' })).toBeUndefined();
  });
  it('no inherited entries, full control for the user alone; icacls by its full path', () => {
    expect(restrictCommand('C:\\ci\\key.txt', 'CORP\\ada', env)).toEqual({ file: ICACLS, args: ['C:\\ci\\key.txt', '/inheritance:r', '/grant:r', 'CORP\\ada:F', '/q'] });
    expect(restrictCommand('C:\\ci\\key.txt', 'ada', {}).file).toBe('C:\\Windows\\System32\\icacls.exe');
  });
});

describe('writing a key file', () => {
  it('Windows: icacls runs first, without a shell, the key not in its arguments; then the key goes in', async () => {
    const path = join(tmp.dir, 'win-ok.txt');
    const { spawn: spawnIt, calls } = icacls(0);
    await writeKeyFile(path, KEY, { platform: { os: 'win32' }, env, spawn: spawnIt });
    expect(calls).toEqual([{ file: ICACLS, args: [path, '/inheritance:r', '/grant:r', 'CORP\\ada:F', '/q'], shell: false, keyThen: false }]);
    expect(readFileSync(path, 'utf8')).toBe(KEY + '\n');
  });

  it('Windows: icacls fails: no file, no key written, and the error says why', async () => {
    const path = join(tmp.dir, 'win-fails.txt');
    const { spawn: spawnIt } = icacls(5, 'Access is denied.\r\n');
    const error = await writeKeyFile(path, KEY, { platform: { os: 'win32' }, env, spawn: spawnIt }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrawlError);
    expect((error as Error).message).toBe(`cannot write the key to ${path}: icacls failed (status 5): Access is denied.`);
    expect((error as Error).message).not.toContain(KEY);
    expect(existsSync(path)).toBe(false);
  });

  it('Windows: no USERNAME: refused the same way, nothing run', async () => {
    const path = join(tmp.dir, 'win-nouser.txt');
    const { spawn: spawnIt, calls } = icacls(0);
    await expect(writeKeyFile(path, KEY, { platform: { os: 'win32' }, env: {}, spawn: spawnIt })).rejects.toThrow(/USERNAME is not set/);
    expect(calls).toEqual([]);
    expect(existsSync(path)).toBe(false);
  });

  it.each(['linux', 'darwin'] as const)('%s: nothing is run; the file is 0600', async (os) => {
    const path = join(tmp.dir, `${os}.txt`);
    const { spawn: spawnIt, calls } = icacls(1);
    await writeKeyFile(path, KEY, { platform: { os }, env, spawn: spawnIt });
    expect(calls).toEqual([]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await expect(restrictToUser(path, { platform: { os }, env, spawn: spawnIt })).resolves.toBeUndefined();
  });
});
