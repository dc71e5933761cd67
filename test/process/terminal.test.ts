// Contract (spawned): a real terminal (a pty from util-linux `script`). One case per live display
// (job watch's line, job pages --output's progress) with ^C typed at the keyboard, which the
// terminal turns into SIGINT; and the hidden key prompt, whose echo only a real terminal shows
// (and gives back after a signal). The same displays and the prompt on memory terminals, with
// the interrupt as src/main.ts makes it, run in this process (test/app/interrupt.test.ts,
// test/commands/job/watch.test.ts, test/config/settings.test.ts).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli, tempDir, waitFor } from '../support/harness.js';
import { BIN, cleanEnv, ROOT } from '../support/spawn.js';
import { calls } from '../support/keys.js';
import { cliPid, everyLineJson } from '../support/local-faults.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { liveRows, screenOf } from '../support/screen.js';
import { needs } from '../support/tools.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-contract-terminal-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const HIDE = '\u001b[?25l';
const SHOW = '\u001b[?25h';
const CTRL_C = '\u0003';
const DRAW = '\r\u001b[2K';

/** The cursor is shown again after the last time it was hidden (and it was hidden at all). */
function cursorRestored(screen: string): boolean {
  return screen.includes(HIDE) && screen.lastIndexOf(SHOW) > screen.lastIndexOf(HIDE);
}

/** Only what a test names: no CRAWL_* from the fixture unless given. */
function envOf(vars: Record<string, string | undefined>): Record<string, string | undefined> {
  return { CRAWL_BASE_URL: undefined, CRAWL_API_KEY: undefined, CRAWL_PROFILE: undefined, XDG_CONFIG_HOME: undefined, ...vars };
}

describe('live displays, ^C typed', needs('script'), () => {
  it.concurrent('job watch: exit 130, cursor shown again, job not cancelled', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-ctrlc', status: 'running', pagesTotal: 100, pagesFinished: 1 });
    const r = await runCli(['job', 'watch', 'w-ctrlc', '--interval', '0.5'], {
      process: true,
      env: fx.env,
      tty: true,
      onSpawn: (child, out) => {
        void waitFor(() => out.stdout().includes('1/100 pages'), 10_000, 'the live line').then(() => child.stdin?.write(CTRL_C));
      },
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toContain(HIDE);
    expect(r.stdout.lastIndexOf(SHOW)).toBeGreaterThan(r.stdout.lastIndexOf(HIDE));
    // The process's cleanup on the signal and the watch's own end both finish the line: once.
    const screen = await screenOf(r.stdout, 120);
    expect(liveRows(screen.rows)).toHaveLength(1);
    expect(screen.rows.at(-1)).toMatch(/running [█░]{24} 1\/100 pages \(1%\) {2}\d:\d\d$/);
    const requests = fx.sandbox.requests.filter((q) => q.url.startsWith('/api/crawl/w-ctrlc'));
    expect(requests.some((q) => q.method !== 'GET')).toBe(false);
    expect(fx.sandbox.getJob('w-ctrlc')?.status).toBe('running');
  });

  it.concurrent('job pages --output: exit 130, the progress line ends and the cursor comes back, the file whole', async ({ expect }) => {
    const id = 'slow-out-tty';
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 20_000 });
    // The first batch comes at once, the later ones never: only the ^C ends the run.
    fx.sandbox.inject({ path: `^/api/crawl/${id}/pages`, kind: 'hang', skip: 1 });
    const file = join(tmp.dir, `${id}.ndjson`);
    const mark = fx.sandbox.requests.length;
    const r = await runCli(['job', 'pages', id, '--output', file], {
      process: true,
      env: fx.env,
      tty: true,
      onSpawn: (child, out) => {
        const writing = (): boolean => out.stdout().includes('Writing') && calls(fx.sandbox, mark).filter((c) => c.startsWith(`GET /api/crawl/${id}/pages`)).length >= 2;
        void waitFor(writing, 10_000, 'the progress line').then(() => child.stdin?.write(CTRL_C));
      },
    });
    expect(r.code).toBe(130);
    expect(cursorRestored(r.stdout)).toBe(true);
    expect((statSync(file).size)).toBeGreaterThan(0);
    const records = everyLineJson(readFileSync(file, 'utf8')).length;
    // The last line says what the file holds, on a line of its own (after the terminal's ^C).
    const lastLine = r.stdout.replaceAll(SHOW, '').trimEnd().split('\n').at(-1);
    expect(lastLine).toBe(`crawl: interrupted: ${file} holds the first ${records.toLocaleString('en-US')} records, each line whole`);
  });

  it.concurrent('job watch, the terminal narrowed (SIGWINCH): the line is refitted, and the screen keeps one line', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'w-winch', status: 'running', pagesTotal: 100, pagesFinished: 1 });
    const fifo = join(tmp.dir, 'winch.fifo');
    execFileSync('mkfifo', [fifo]);
    // `stty cols` on the pty is a resize: the kernel sends SIGWINCH to crawl (the shell has no job
    // control, so crawl shares its foreground group). The shell waits on the FIFO for the cue.
    const line = `stty cols 100 rows 30; '${process.execPath}' '${BIN}' job watch w-winch --interval 0.5 --max-wait 60 & read cue < '${fifo}'; stty cols 45; wait $!`;
    const child = spawn('script', ['-qefc', line, '/dev/null'], { env: cleanEnv(fx.env), cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // A failed wait below must not leave the terminal (and crawl in it, by SIGHUP) running.
    const hangUp = (): void => void (child.exitCode === null && child.kill('SIGKILL'));
    await waitFor(() => out.includes('1/100 pages'), 10_000, 'the live line').catch((error: unknown) => (hangUp(), Promise.reject(error)));
    const at = out.length;
    await writeFile(fifo, 'go\n');
    // The draws since the cue, each as [where it starts, its text without colour or cursor moves].
    const drawsSince = (): Array<[number, string]> => {
      const found: Array<[number, string]> = [];
      for (let i = out.indexOf(DRAW, at); i !== -1; i = out.indexOf(DRAW, i + 1)) {
        const end = out.indexOf(DRAW, i + 1);
        const draw = out.slice(i + DRAW.length, end === -1 ? undefined : end);
        found.push([i, draw.replace(/\r$/, '').replace(/\r?\n[\s\S]*$/, '').replace(/\u001b\[[0-9;?]*[a-zA-Z]/g, '')]);
      }
      return found;
    };
    // The shell runs stty when it wakes, a draw or more after the cue: the first draw that fits 45
    // columns is the first after the resize, and every draw from there on fits too.
    const firstNarrow = (): number => drawsSince().findIndex(([, draw]) => draw.includes('pages') && draw.length < 45);
    await waitFor(() => firstNarrow() !== -1, 10_000, 'a draw fitted to 45 columns').catch((error: unknown) => (hangUp(), Promise.reject(error)));
    Object.assign(fx.sandbox.getJob('w-winch') ?? {}, { status: 'completed', pagesFinished: 100 });
    expect(await closed).toBe(0);
    const after = drawsSince().slice(firstNarrow());
    for (const [, draw] of after) expect(draw.length, draw).toBeLessThan(45);
    const resizedAt = after[0]?.[0] ?? at;
    const text = out.replace(/\r\n/g, '\n');
    const screen = await screenOf(text, 100, [{ at: out.slice(0, resizedAt).replace(/\r\n/g, '\n').length, columns: 45 }]);
    // At 45 columns the bar is left out: the line as the job ended, once.
    expect(liveRows(screen.rows)).toHaveLength(1);
    expect(liveRows(screen.rows)[0]).toMatch(/^ {2}completed 100\/100 pages \(100%\) {2}\d+:\d\d$/);
    expect(screen.rows.some((row) => row.includes('running'))).toBe(false);
  });

  it.concurrent('keys revoke at its confirmation: exit 130, the prompt line ended, nothing revoked', async ({ expect }) => {
    const victim = fx.sandbox.addKey('pty-victim');
    const r = await runCli(['keys', 'revoke', victim.id], {
      process: true,
      env: fx.env,
      tty: true,
      onSpawn: (child, out) => {
        void waitFor(() => out.stdout().includes('[y/N] '), 10_000, 'the prompt').then(() => child.stdin?.write(CTRL_C));
      },
    });
    expect(r.code).toBe(130);
    // The terminal echoes ^C; the line ends there, not at whatever the shell prints next.
    expect(r.stdout).toMatch(/\[y\/N\] (\^C)?\n$/);
    expect(fx.sandbox.requests.some((q) => q.method === 'DELETE' && q.url.endsWith(victim.id))).toBe(false);
  });
});

describe('auth login: the hidden prompt', needs('script'), () => {
  it.concurrent('the key typed is never echoed, and is saved', async ({ expect }) => {
    const dir = join(tmp.dir, 'login-typed');
    const key = fx.sandbox.addKey('typed').key;
    const r = await runCli(['auth', 'login'], {
      process: true,
      env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url }),
      tty: true,
      // Typed once the prompt is up, as a person would: the terminal echoes nothing by then.
      onSpawn: (child, out) => {
        void waitFor(() => out.stdout().includes('Paste your API key'), 10_000, 'the prompt').then(() => child.stdin?.write(key + '\r'));
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('? Paste your API key:');
    expect(r.stdout).toContain(`Logged in to ${fx.sandbox.url}/`);
    expect(r.stdout).not.toContain(key);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default['api-key']).toBe(key);
  });

  it.concurrent('SIGTERM from outside at the prompt, half a key typed: exit 143, nothing echoed, echo and line mode back on the terminal, nothing saved', async ({ expect }) => {
    const dir = join(tmp.dir, 'login-sigterm');
    // `stty -a` after crawl shows the terminal as crawl left it.
    const line = `'${process.execPath}' '${BIN}' auth login; echo "crawl-exit=$?"; stty -a`;
    const child = spawn('script', ['-qefc', line, '/dev/null'], {
      env: { ...cleanEnv(envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url })), COLUMNS: '120', LINES: '40' },
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
    const closed = new Promise((resolve) => child.on('close', resolve));
    await waitFor(() => screen.includes('Paste your API key'), 10_000, 'the prompt');
    let pid: number | undefined;
    await waitFor(() => (pid ??= cliPid(child.pid ?? 0)) !== undefined, 10_000, 'crawl in the terminal');
    // What is typed is read by crawl (raw mode: no echo), and only then does the signal go to crawl
    // itself: text that reached the terminal after crawl had put echo back would be the kernel's echo.
    const before = bytesRead(pid as number);
    child.stdin.write('crk_half');
    await waitFor(() => bytesRead(pid as number) >= before + 'crk_half'.length, 10_000, 'crawl reading what was typed');
    process.kill(pid as number, 'SIGTERM');
    await closed;
    expect(screen).toContain('crawl-exit=143');
    expect(screen).not.toContain('crk_half');
    const modes = screen.slice(screen.indexOf('crawl-exit='));
    expect(modes).toMatch(/(^|\s)echo(\s|$)/);
    expect(modes).toMatch(/(^|\s)icanon(\s|$)/);
    expect(modes).not.toMatch(/(^|\s)-echo(\s|$)/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });
});

/** What a process has read so far (/proc/<pid>/io's rchar): at a prompt, only what is typed. */
function bytesRead(pid: number): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}
