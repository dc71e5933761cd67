// src/platform/shell-command.ts with the platform given: on "Windows" (run here on Linux, so the
// shell is still /bin/sh) the command starts without a window or a process group (and, from a UNC
// folder, in the profile folder), ending it runs taskkill over the whole tree, and CRAWL_API_KEY is
// left out in any case of its name. The spawn
// is node's own, wrapped to see what it was asked; taskkill, which this system lacks, is a stand-in
// that does what it would to the one process the command is.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runShellCommand, treeKill, type Spawn } from '../../src/platform/shell-command.js';

interface Call {
  file: string;
  args: readonly string[];
  options: SpawnOptions;
}

/** Where taskkill is, by the environment these tests give the command (SystemRoot). */
const TASKKILL = 'D:\\WINNT\\System32\\taskkill.exe';

/** Node's spawn for the command; for taskkill, `taskkill` (what it does, or that it is missing). */
function recording(taskkill: (pid: number) => ChildProcess): { spawn: Spawn; calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    spawn: (file, args, options) => {
      calls.push({ file, args, options });
      if (file === TASKKILL) return taskkill(Number(args[1]));
      return spawn(file, [...args], options);
    },
  };
}

/** A stand-in process that has already done its work and exits 0. */
function done(): ChildProcess {
  const fake = new EventEmitter() as ChildProcess;
  queueMicrotask(() => fake.emit('close', 0, null));
  return fake;
}

const NODE = JSON.stringify(process.execPath);
/** One process (exec), that says it is ready and then waits forever on its input. */
const WAITS = `exec ${NODE} -e "console.log('ready'); setInterval(() => {}, 1000)"`;

/** Runs WAITS on `os` through `spawnIt`, with `input` on its stdin, and stops it once it says it is ready. */
function stopOnceReady(os: NodeJS.Platform, spawnIt: Spawn, input = ''): ReturnType<typeof runShellCommand> {
  const stop = new AbortController();
  return runShellCommand({
    command: WAITS,
    input,
    env: { PATH: process.env.PATH, SystemRoot: 'D:\\WINNT' },
    onStdout: (text) => void (text.includes('ready') && stop.abort()),
    onStderr: () => undefined,
    signal: stop.signal,
    platform: { os },
    spawn: spawnIt,
  });
}

describe('ending a command', () => {
  it('Windows: taskkill /T /F over its tree, by its full path in %SystemRoot%\\System32, no window, no process group; the key never in argv', async () => {
    const { spawn: spawnIt, calls } = recording((pid) => {
      process.kill(pid, 'SIGKILL');
      return done();
    });
    const outcome = await stopOnceReady('win32', spawnIt, 'crawl_live_secret\n');
    expect(outcome).toEqual({ kind: 'signalled', signal: 'SIGKILL' });
    const [command, killer] = calls;
    expect(command?.options).toMatchObject({ shell: true, detached: false, windowsHide: true });
    // Never the bare name: the current folder (a repository the command runs in) would be looked in first.
    expect(killer?.file).toBe(TASKKILL);
    expect(killer?.args).toEqual(treeKill(Number(killer?.args[1]), {}).args);
    expect(killer?.args).toEqual(['/PID', killer?.args[1], '/T', '/F']);
    expect(killer?.options).toMatchObject({ shell: false, windowsHide: true });
    expect(JSON.stringify(calls.map((c) => [c.file, c.args]))).not.toContain('crawl_live_secret');
  });

  it('Windows without taskkill: cmd.exe itself is ended at least', async () => {
    const { spawn: spawnIt, calls } = recording(() => {
      const missing = new EventEmitter() as ChildProcess;
      queueMicrotask(() => missing.emit('error', Object.assign(new Error(`spawn ${TASKKILL} ENOENT`), { code: 'ENOENT' })));
      return missing;
    });
    const outcome = await stopOnceReady('win32', spawnIt);
    expect(calls.map((c) => c.file)).toEqual([WAITS, TASKKILL]);
    expect(outcome).toEqual({ kind: 'signalled', signal: 'SIGTERM' });
  });

  it('Linux and macOS: the process group gets SIGTERM; no taskkill', async () => {
    for (const os of ['linux', 'darwin'] as const) {
      const { spawn: spawnIt, calls } = recording(() => done());
      const outcome = await stopOnceReady(os, spawnIt);
      expect(outcome).toEqual({ kind: 'signalled', signal: 'SIGTERM' });
      expect(calls).toHaveLength(1);
      expect(calls[0]?.options).toMatchObject({ shell: true, detached: true, windowsHide: true });
    }
  });
});

describe('the key in use is not in the command\'s environment', () => {
  const names = async (os: NodeJS.Platform, env: Record<string, string>): Promise<string[]> => {
    let out = '';
    const outcome = await runShellCommand({
      command: 'env',
      input: '',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      onStdout: (text) => void (out += text),
      onStderr: () => undefined,
      signal: new AbortController().signal,
      platform: { os },
    });
    expect(outcome).toEqual({ kind: 'exited', code: 0 });
    return out.split('\n').map((line) => line.split('=')[0] ?? '');
  };

  it('Windows: in no case of its name (crawl uses crawl_api_key there, so it must not leak)', async () => {
    const seen = await names('win32', { crawl_api_key: 'k1', Crawl_Api_Key: 'k2', CRAWL_API_KEY: 'k3', KEEP: 'x' });
    expect(seen).toContain('KEEP');
    expect(seen.filter((n) => n.toUpperCase() === 'CRAWL_API_KEY')).toEqual([]);
  });

  it('Linux and macOS: CRAWL_API_KEY by default; other cases are other variables there, and stay', async () => {
    for (const os of ['linux', 'darwin'] as const) {
      const seen = await names(os, { crawl_api_key: 'k1', CRAWL_API_KEY: 'k3' });
      expect(seen).toContain('crawl_api_key');
      expect(seen).not.toContain('CRAWL_API_KEY');
    }
  });
});

describe('the folder the command starts in', () => {
  const started = async (os: NodeJS.Platform, cwd: string): Promise<SpawnOptions> => {
    const { spawn: spawnIt, calls } = recording(() => done());
    await runShellCommand({
      command: 'exit 0',
      input: '',
      env: { PATH: process.env.PATH, SystemRoot: 'C:\\Windows' },
      onStdout: () => undefined,
      onStderr: () => undefined,
      signal: new AbortController().signal,
      platform: { os, home: 'C:\\Users\\ada' },
      cwd,
      spawn: spawnIt,
    });
    return calls[0]?.options ?? {};
  };

  it('Windows, crawl in a UNC folder (\\\\wsl$\\…), where cmd.exe would warn and run in C:\\Windows: the profile folder', async () => {
    // That folder is not on this system: the spawn fails here, having been asked for it.
    expect((await started('win32', '\\\\wsl$\\Ubuntu\\home\\ada')).cwd).toBe('C:\\Users\\ada');
  });

  it("Windows from a local folder, and Linux from any: crawl's own current folder", async () => {
    expect(await started('win32', 'C:\\work')).not.toHaveProperty('cwd');
    expect(await started('linux', '//server/share')).not.toHaveProperty('cwd');
  });
});
