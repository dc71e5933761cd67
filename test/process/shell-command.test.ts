// src/platform/shell-command.ts with the platform given: on "Windows" (run here on Linux, so the
// shell is still /bin/sh) the command starts without a window or a process group (and, from a UNC
// folder, in the profile folder), ending it runs taskkill over the whole tree, a process out of the
// kill's reach that holds the output open keeps crawl waiting no longer than the grace after the
// kill (as on Linux, on the run's clock), and CRAWL_API_KEY is left out in any case of its name.
// The spawn is node's own, wrapped to see what it was asked; taskkill, which this system lacks, is
// a stand-in that does what it would to the one process the command is.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runShellCommand, treeKill, type Spawn } from '../../src/platform/shell-command.js';
import { fakeClock } from '../support/fake-clock.js';
import { processRunning } from '../support/spawn.js';
import { needs } from '../support/tools.js';

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

describe('a process out of the kill\'s reach that holds the output open', () => {
  const GRACE = 1_000;

  /**
   * Runs `command` on `os` (it prints the pid of the process that will hold its output, then
   * waits) and stops it once that pid is out: the outcome (and whether it has come), the shell,
   * the holder's pid and the clock the stop's waits are on.
   */
  async function stopped(os: NodeJS.Platform, command: string) {
    const clock = fakeClock();
    const stop = new AbortController();
    let shell: ChildProcess | undefined;
    let settled = false;
    const spawnIt: Spawn = (file, args, options) => {
      // taskkill over the tree from the shell: the holder, whose parent has already exited, is no
      // longer in it, so what taskkill ends is the shell alone.
      if (file === TASKKILL) {
        process.kill(Number(args[1]), 'SIGKILL');
        return done();
      }
      return (shell = spawn(file, [...args], options));
    };
    let seen: (pid: number) => void = () => undefined;
    const holder = new Promise<number>((resolve) => (seen = resolve));
    const outcome = runShellCommand({
      command,
      input: '',
      env: { PATH: process.env.PATH, SystemRoot: 'D:\\WINNT' },
      onStdout: (text) => {
        seen(Number(text.trim()));
        stop.abort();
      },
      onStderr: () => undefined,
      signal: stop.signal,
      platform: { os },
      spawn: spawnIt,
      clock,
      killAfterMs: GRACE,
    });
    void outcome.finally(() => (settled = true));
    const ended = outcome.then((o): never => {
      throw new Error(`the command ended before it printed the holder's pid: ${JSON.stringify(o)}`);
    });
    return { clock, outcome, holder: await Promise.race([holder, ended]), settled: () => settled, shell };
  }

  const exited = (child: ChildProcess | undefined): Promise<void> =>
    new Promise((resolve) => (child === undefined || child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

  /** The holder, left running by the code under test as it must be, ended by the test. */
  const end = (pid: number): void => {
    if (processRunning(pid)) process.kill(pid, 'SIGKILL');
  };

  it('Windows: the grace after taskkill, on the run\'s clock, and crawl stops waiting for the pipes', async () => {
    // The holder is started by a shell that exits at once: taskkill's tree from the command no longer leads to it.
    const run = await stopped('win32', `sh -c 'sleep 600 & echo $!'; exec sleep 600`);
    try {
      // taskkill has ended the shell; the holder keeps the output open, and nothing else could end the wait.
      await exited(run.shell);
      expect(processRunning(run.holder)).toBe(true);
      expect(run.clock.pendingDeadlines()).toBe(1);
      await run.clock.advance(GRACE - 1);
      expect(run.settled()).toBe(false);
      await run.clock.advance(1);
      expect(await run.outcome).toEqual({ kind: 'signalled', signal: 'SIGKILL' });
      expect(processRunning(run.holder)).toBe(true);
    } finally {
      end(run.holder);
    }
  });

  it('Linux: the same wait after SIGKILL, which comes a grace after SIGTERM', needs('setsid'), async () => {
    // setsid: out of the process group the signals go to (its pid printed once it is out).
    const run = await stopped('linux', `setsid sh -c 'echo $$; exec sleep 600' & exec sleep 600`);
    try {
      await exited(run.shell);
      expect(processRunning(run.holder)).toBe(true);
      await run.clock.advance(GRACE);
      await run.clock.advance(GRACE - 1);
      expect(run.settled()).toBe(false);
      await run.clock.advance(1);
      expect(await run.outcome).toEqual({ kind: 'signalled', signal: 'SIGTERM' });
    } finally {
      end(run.holder);
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
