// A file that holds a key, made readable by its owner alone. On POSIX the mode does it (0600,
// given when the file is created). On Windows modes mean nothing and a new file takes the ACL of
// its folder (C:\ci\ may let every user read), so, as Windows OpenSSH requires of key files, its
// inherited entries are removed and the user alone is granted access, by icacls run without a
// shell; its arguments hold the path and the user's name, never the key (which is written after).
// Types only: node:child_process loads when icacls runs (Windows), not in every command's start-up.
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { Env } from './env.js';
import { envValue, isWindows, windowsProgram, type Platform } from './platform.js';

export type Spawn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** The account icacls grants access to: DOMAIN\user as Windows gives them; undefined if unknown. */
export function windowsAccount(env: Env, platform: Pick<Platform, 'os'>): string | undefined {
  const user = envValue(env, 'USERNAME', platform);
  if (!user) return undefined;
  const domain = envValue(env, 'USERDOMAIN', platform);
  return domain ? `${domain}\\${user}` : user;
}

/**
 * The icacls command that leaves `path` to `account` alone: no inherited entries, full control
 * for the user; icacls by its full path (`env`'s SystemRoot), never an icacls.exe of the current folder.
 */
export function restrictCommand(path: string, account: string, env: Env): { file: string; args: string[] } {
  return { file: windowsProgram('icacls', env), args: [path, '/inheritance:r', '/grant:r', `${account}:F`, '/q'] };
}

/**
 * Leaves `path` readable by the user alone. Resolves at once on POSIX (the mode is given at
 * creation); on Windows runs icacls and rejects with what went wrong, so that the caller writes
 * no key into a file others could read.
 */
export async function restrictToUser(path: string, options: { platform: Pick<Platform, 'os'>; env: Env; spawn?: Spawn }): Promise<void> {
  if (!isWindows(options.platform)) return;
  const account = windowsAccount(options.env, options.platform);
  if (account === undefined) throw new Error('USERNAME is not set, so the file cannot be given to you alone');
  const { file, args } = restrictCommand(path, account, options.env);
  const spawn: Spawn = options.spawn ?? (await import('node:child_process').then(({ spawn: nodeSpawn }) => (f: string, a: readonly string[], o: SpawnOptions) => nodeSpawn(f, [...a], o)));
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { shell: false, windowsHide: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => (said += text));
    child.on('error', (error: NodeJS.ErrnoException) => reject(new Error(`icacls could not be started (${error.code ?? error.message})`)));
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`icacls failed (status ${code ?? 'none'})${said.trim() ? `: ${said.trim().split(/\r?\n/)[0]}` : ''}`));
    });
  });
}
