// Ctrl-C (SIGINT) and SIGTERM during every long-running command: exit 130 / 143 in bounded time,
// the cursor and the terminal given back, partial output still valid (whole JSON lines), and a key
// the service has made never lost, even when storing it outlasts the 2 s forced exit.
// (job watch's plain and ^C cases are in foundation-job-watch, keys rotate's Ctrl-C at the check
// in keys-rotate-interrupt, login's ^C at the prompt in foundation-settings.)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, runCli, tempDir, waitFor } from './helpers/cli.js';
import { calls, configProfile, fullKeysIn, keyStatus, storedKey } from './helpers/keys.js';
import { cliPid, everyLineJson, holdConfigLock } from './helpers/local-faults.js';
import { sandboxFixture, type SandboxFixture } from './helpers/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };

beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-local-signals-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const HIDE = '\u001b[?25l';
const SHOW = '\u001b[?25h';
const FAST = ['--interval', '0.05'];
const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;

/** The cursor is shown again after the last time it was hidden (and it was hidden at all). */
function cursorRestored(screen: string): boolean {
  return screen.includes(HIDE) && screen.lastIndexOf(SHOW) > screen.lastIndexOf(HIDE);
}

/** Sends `signal` to the CLI itself (inside `script` when in a pty) once `ready` holds. */
function signalWhen(signal: NodeJS.Signals, ready: (out: { stdout: () => string; stderr: () => string }) => boolean, tty = false) {
  return (child: ChildProcess, out: { stdout: () => string; stderr: () => string }): void => {
    void waitFor(() => ready(out), 10_000, `the moment to send ${signal}`).then(() => {
      const pid = tty ? cliPid(child.pid ?? 0) : child.pid;
      if (pid !== undefined) process.kill(pid, signal);
    });
  };
}

const pageNumbers = (records: unknown[]): number[] => records.map((r) => Number(/\/page\/(\d+)$/.exec((r as { url: string }).url)?.[1]));

describe('job pages --output, slowed down, interrupted midway', () => {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it.concurrent(`${signal}: exit ${code}, the file holds whole records, in order`, async ({ expect }) => {
      const id = `slow-out-${signal}`;
      fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 20_000 });
      // The first batch comes at once, every later one takes a while.
      fx.sandbox.inject({ path: `^/api/crawl/${id}/pages`, kind: 'latency', ms: 400, skip: 1 });
      const file = join(tmp.dir, `${id}.ndjson`);
      const r = await runCli(['job', 'pages', id, '--output', file], {
        env: fx.env,
        onSpawn: signalWhen(signal, () => (statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0),
      });
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.ms).toBeLessThan(5000);
      const records = everyLineJson(readFileSync(file, 'utf8'));
      expect(records.length).toBeGreaterThan(0);
      expect(records.length).toBeLessThan(20_000);
      expect(pageNumbers(records)).toEqual(Array.from({ length: records.length }, (_, i) => i + 1));
    });
  }

  it.concurrent('on a terminal (^C typed): exit 130, the progress line ends and the cursor comes back', async ({ expect }) => {
    const id = 'slow-out-tty';
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 20_000 });
    fx.sandbox.inject({ path: `^/api/crawl/${id}/pages`, kind: 'latency', ms: 400, skip: 1 });
    const file = join(tmp.dir, `${id}.ndjson`);
    const r = await runCli(['job', 'pages', id, '--output', file], {
      env: fx.env,
      tty: true,
      onSpawn: (child, out) => {
        void waitFor(() => out.stdout().includes('Writing'), 10_000, 'the progress line').then(() => child.stdin?.write('\u0003'));
      },
    });
    expect(r.code).toBe(130);
    expect(cursorRestored(r.stdout)).toBe(true);
    everyLineJson(readFileSync(file, 'utf8'));
  });

  it.concurrent('stdout, not a file: SIGINT leaves only whole JSON lines on stdout', async ({ expect }) => {
    const id = 'slow-stdout';
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 20_000 });
    fx.sandbox.inject({ path: `^/api/crawl/${id}/pages`, kind: 'latency', ms: 400, skip: 1 });
    const r = await runCli(['job', 'pages', id], { env: fx.env, onSpawn: signalWhen('SIGINT', (out) => out.stdout().length > 0) });
    expect(r.code).toBe(130);
    expect(everyLineJson(r.stdout).length).toBeGreaterThan(0);
  });
});

describe('job pages to a reader that is slow to read', () => {
  it('SIGTERM while stdout is backed up: exit 143 without waiting for the reader, which later finds only whole lines', async () => {
    // (A URL whose records do not happen to end exactly at the pipe's 64 KiB.)
    fx.sandbox.addJob({ id: 'slow-reader', url: 'https://reader.example.net/', status: 'completed', pagesTotal: 5000 });
    const go = join(tmp.dir, 'reader-may-read');
    const out = join(tmp.dir, 'slow-reader.ndjson');
    // A real pipe (64 KiB) whose reader waits for a go: the first batch (~140 KB) cannot all get in.
    // crawl is gone before the go (it ends at once on the signal); the pipe holds whole lines only.
    const script = `(crawl job pages slow-reader; echo "crawl-exit=$?" >&2) | { while [ ! -e '${go}' ]; do sleep 0.02; done; cat > '${out}'; }`;
    let signalled = 0;
    const shell = spawn('bash', ['-c', `set -o pipefail; crawl() { '${process.execPath}' '${BIN}' "$@"; }\n${script}`], {
      env: cleanEnv(fx.env),
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    shell.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const closed = new Promise((resolve) => shell.on('close', resolve));
    const written = (pid: number): number => Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
    let pid: number | undefined;
    // Whole-line pieces leave part of each 4 KiB page of the pipe unused: "full" is most of 64 KiB, then no progress.
    let last = { bytes: -1, at: 0 };
    const stuck = (): boolean => {
      if ((pid ??= cliPid(shell.pid ?? 0)) === undefined) return false;
      const bytes = written(pid);
      if (bytes !== last.bytes) last = { bytes, at: Date.now() };
      return bytes >= 60_000 && Date.now() - last.at >= 300;
    };
    await waitFor(stuck, 10_000, 'a full pipe');
    process.kill(pid as number, 'SIGTERM');
    signalled = Date.now();
    // crawl ends while its reader still stalls: it no longer waits for it.
    await waitFor(() => stderr.includes('crawl-exit='), 5000, 'crawl to end');
    expect(Date.now() - signalled).toBeLessThan(5000);
    writeFileSync(go, '');
    await closed;
    expect(stderr).toBe('crawl-exit=143\n');
    const records = everyLineJson(readFileSync(out, 'utf8'));
    expect(records.length).toBeGreaterThan(400);
    expect(pageNumbers(records)).toEqual(Array.from({ length: records.length }, (_, i) => i + 1));
  });
});

describe('watching commands on a terminal', () => {
  const cases: Array<[string, string[], NodeJS.Signals | '^C', number]> = [
    ['job pages --wait, ^C', ['job', 'pages', 'sig-pages-int', '--wait', ...FAST], '^C', 130],
    ['job pages --wait, SIGTERM', ['job', 'pages', 'sig-pages-term', '--wait', ...FAST], 'SIGTERM', 143],
    ['job cancel --wait, ^C', ['job', 'cancel', 'sig-cancel-int', '--wait', ...FAST], '^C', 130],
    ['job cancel --wait, SIGTERM', ['job', 'cancel', 'sig-cancel-term', '--wait', ...FAST], 'SIGTERM', 143],
    ['job watch, SIGTERM', ['job', 'watch', 'sig-watch-term', ...FAST], 'SIGTERM', 143],
  ];
  it.concurrent.for(cases)('%s: exit as documented, the cursor shown again, nothing on stdout', async ([, args, signal, code], { expect }) => {
    const id = args[2] as string;
    // A job that stays running; a cancel that the service takes its time to apply.
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 100, pagesFinished: 1, cancel: { lagPolls: 1_000_000 } });
    const live = (out: { stdout: () => string }): boolean => out.stdout().includes('1/100 pages');
    const r = await runCli(args, {
      env: fx.env,
      tty: true,
      onSpawn:
        signal === '^C'
          ? (child, out) => void waitFor(() => live(out), 10_000, 'the live line').then(() => child.stdin?.write('\u0003'))
          : signalWhen(signal, live, true),
    });
    expect(r.code).toBe(code);
    expect(cursorRestored(r.stdout)).toBe(true);
    expect(r.stdout).not.toContain('"url"');
    // Stopping the wait never cancels (or re-cancels) anything.
    const deletes = fx.sandbox.requests.filter((q) => q.method === 'DELETE' && q.url === `/api/crawl/${id}`);
    expect(deletes).toHaveLength(args[1] === 'cancel' ? 1 : 0);
  });
});

describe('auth login at the hidden prompt', () => {
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    it.concurrent(`${signal} from outside: exit ${code}, echo and line mode back on the terminal, nothing saved`, async ({ expect }) => {
      const dir = join(tmp.dir, `login-${signal}`);
      // `stty -a` after crawl shows the terminal as crawl left it.
      const line = `'${process.execPath}' '${BIN}' auth login; echo "crawl-exit=$?"; stty -a`;
      const child = spawn('script', ['-qefc', line, '/dev/null'], {
        env: { ...cleanEnv({ ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir }), COLUMNS: '120', LINES: '40' },
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let screen = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
      signalWhen(signal, () => screen.includes('Paste your API key'), true)(child, { stdout: () => screen, stderr: () => '' });
      await new Promise((resolve) => child.on('close', resolve));
      expect(screen).toContain(`crawl-exit=${code}`);
      const modes = screen.slice(screen.indexOf('crawl-exit='));
      expect(modes).toMatch(/(^|\s)echo(\s|$)/);
      expect(modes).toMatch(/(^|\s)icanon(\s|$)/);
      expect(modes).not.toMatch(/(^|\s)-echo(\s|$)/);
      expect(statSync(join(dir, 'config.json'), { throwIfNoEntry: false })).toBeUndefined();
    });
  }
});

describe('keys: a key the service has made survives the signal', () => {
  it('keys create, SIGINT while the POST is out: its answer is read, the key handed over on stdout, exit 130', async () => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'latency', ms: 3000, times: 1 });
    const mark = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'interrupted'], {
      env: fx.env,
      onSpawn: signalWhen('SIGINT', () => calls(fx.sandbox, mark).includes('POST /api/keys')),
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
    expect(r.stderr).toMatch(/crawl: interrupted after the key was created: it was handed over first \(on stdout\)\n$/);
    expect(fullKeysIn(r.stderr)).toEqual([]);
  });

  it('keys create --json, SIGINT while the POST is out: the body on stdout, and one JSON error line with exit code 130', async () => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'latency', ms: 3000, times: 1 });
    const mark = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'interrupted-json', '--json'], {
      env: fx.env,
      onSpawn: signalWhen('SIGINT', () => calls(fx.sandbox, mark).includes('POST /api/keys')),
    });
    expect(r.code).toBe(130);
    expect(await keyStatus(fx.sandbox, (JSON.parse(r.stdout) as { key: string }).key)).toBe(200);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { message: 'interrupted after the key was created: it was handed over first (on stdout)', httpStatus: null, exitCode: 130 },
    });
  });

  it('keys rotate, SIGTERM while the new key is checked: exit 143, the key printed once, the old one kept', async () => {
    const old = fx.sandbox.addKey('term-at-check');
    const profile = configProfile(fx.sandbox, old.key);
    try {
      fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'latency', ms: 3000, skip: 1, times: 1 });
      const mark = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes'], {
        env: { ...fx.env, ...profile.env },
        onSpawn: signalWhen('SIGTERM', () => calls(fx.sandbox, mark).filter((c) => c === 'GET /api/keys').length >= 2),
      });
      expect(r.code).toBe(143);
      expect(r.stdout).toMatch(KEY_LINE);
      expect(r.stderr).toMatch(/step 3 of 5 .*: interrupted\./);
      expect(fullKeysIn(r.stderr)).toEqual([]);
      expect(storedKey(profile.file)).toBe(old.key);
      expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
    } finally {
      profile.cleanup();
    }
  });

  it('keys rotate, Ctrl-C (twice) while storing waits on another writer past the 2 s forced exit: the key is stored, exit 130', async () => {
    const old = fx.sandbox.addKey('slow-store');
    const profile = configProfile(fx.sandbox, old.key);
    // Another crawl process is writing the config: the rotation has to wait for it at step 4.
    const release = holdConfigLock(profile.file);
    try {
      let interruptedAt = 0;
      const r = await runCli(['keys', 'rotate', '--yes'], {
        env: { ...fx.env, ...profile.env },
        onSpawn: (child, out) => {
          void (async () => {
            await waitFor(() => out.stderr().includes('waiting for another crawl process'), 10_000, 'the wait for the lock');
            child.kill('SIGINT');
            interruptedAt = Date.now();
            await waitFor(() => Date.now() - interruptedAt > 1000, 5000, 'a second');
            child.kill('SIGINT');
            // Past the forced exit of a plain interrupt (2 s): the process must still be there.
            await waitFor(() => Date.now() - interruptedAt > 2500, 5000, 'the forced exit time');
            release();
          })();
        },
      });
      expect(Date.now() - interruptedAt).toBeGreaterThan(2500);
      expect(r.code).toBe(130);
      expect(r.stdout).toBe('');
      const stored = storedKey(profile.file);
      expect(stored).not.toBe(old.key);
      expect(await keyStatus(fx.sandbox, stored)).toBe(200);
      // Stopped before revoking: the old key still works too, and the message says what is left.
      expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
      expect(r.stderr).toMatch(/step 5 of 5 \(revoke the old key\): interrupted\. Done: created the new key .*, the service accepts it, stored it in the config file/);
      expect(fullKeysIn(r.stderr)).toEqual([]);
    } finally {
      release();
      profile.cleanup();
    }
  });
});


