// Facts about this process and the processes beside it, for the config lock (who holds it, and
// whether that process still runs) and the config's trust check (whose files these are). With
// src/main.ts and io/system-streams.ts, the only code that reads `process`.
import { homedir } from 'node:os';
import type { Platform } from './platform.js';

/** This process's id, written into the config lock it holds. */
export function processId(): number {
  return process.pid;
}

/** Whether a process with this id runs on this machine (one we may not signal still runs). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The user this process runs as; undefined where Node has none (Windows: mode bits mean nothing there). */
export function currentUid(): number | undefined {
  return process.getuid?.();
}

/**
 * Whether this Node can connect to a socket in Linux's abstract namespace (`unix:abstract=` bus
 * addresses). libuv before 1.48 gives connect() the whole padded `sun_path`, so the name it asks
 * for is the name and a tail of NULs, which no server listens on (libuv #4266, nodejs/node#49656):
 * Node 20 has libuv 1.46, Node 22 has the fix.
 */
export function reachesAbstractSockets(): boolean {
  if (process.platform !== 'linux') return false;
  const [major = 0, minor = 0] = (process.versions.uv ?? '').split('.').map(Number);
  return major > 1 || (major === 1 && minor >= 48);
}

/** This process's current folder; '' when it has none any more (removed since). */
export function currentFolder(): string {
  try {
    return process.cwd();
  } catch {
    return '';
  }
}

/** Whether processes here get POSIX process groups and signals (not Windows). */
export function hasProcessGroups(): boolean {
  return process.platform !== 'win32';
}

/** Sends `signal` to every process of the group `pgid`; false when none is left. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The process's environment and Node's version, for the Node client's defaults. */
export function processFacts(): { env: Readonly<Record<string, string | undefined>>; nodeVersion: string; platform: Platform } {
  return { env: process.env, nodeVersion: process.versions.node, platform: hostPlatform() };
}

/** The system this process runs on: what src/main.ts gives the run (tests make their own). */
export function hostPlatform(): Platform {
  let home = '';
  try {
    home = homedir();
  } catch {
    // No home known (a user without one in the password database): nothing is kept there.
  }
  const uid = currentUid();
  // systemd's per-user runtime folder, where a desktop session's bus is (a Linux fact alone).
  const runtimeDir = process.platform === 'linux' && uid !== undefined ? `/run/user/${uid}` : undefined;
  return { os: process.platform, home, script: process.argv[1], uid, runtimeDir };
}
