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
  return { os: process.platform, home, script: process.argv[1] };
}
