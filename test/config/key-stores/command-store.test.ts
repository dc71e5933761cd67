// A key kept by a secret manager: key-command / key-store-command, run for real (small shell
// scripts standing in for `op`, `vault`, `aws`), in this process against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fifoSpool } from '../../support/fifos.js';
import { runCli, tempDir, waitFor, type RunResult } from '../../support/harness.js';
import { fakeClock } from '../../support/fake-clock.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { needs } from '../../support/tools.js';
import { realClock, type Clock } from '../../../src/platform/clock.js';

let fx: SandboxFixture;
const tmp = tempDir();
/** The named pipes of pipe() below, all made before the tests run. */
let mkfifo: (path: string) => void;
beforeAll(async () => {
  mkfifo = fifoSpool(tmp.dir, 4);
  fx = await sandboxFixture();
});
afterAll(async () => {
  await fx.close();
  tmp.cleanup();
});

let n = 0;
function script(body: string): string {
  const path = join(tmp.dir, `cmd-${++n}.sh`);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o700);
  return path;
}

function profileDir(profile: Record<string, string>): string {
  const dir = join(tmp.dir, `cfg-${++n}`);
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { 'base-url': fx.sandbox.url, 'key-store': 'command', ...profile } } }), { mode: 0o600 });
  return dir;
}

/**
 * Whether a process is still running: gone, dead and not yet reaped by whoever inherited it (a
 * zombie), or on its way out (its files already closed, the kernel not yet done with the rest)
 * all count as not running.
 */
function processState(pid: number): string {
  const state = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0] ?? '?' : 'gone';
  const files = existsSync(`/proc/${pid}/fd`) ? readdirSync(`/proc/${pid}/fd`) : [];
  return ['gone', 'Z', 'X'].includes(state) || files.length === 0 ? 'ended' : `running (state ${state}, open files ${files.join(' ')})`;
}

const run = (dir: string, args: string[], env: Record<string, string> = {}, clock: Clock = realClock) =>
  runCli(args, { clock, env: { CRAWL_BASE_URL: undefined, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir, ...env } });

/**
 * A named pipe the command writes to once it is where the test wants it: reading it resolves
 * then (the writer cannot go on before it is read), with what the command wrote. A run that ends
 * first (its command never started) fails the read instead, and lets the waiting reader go.
 */
function pipe(): { path: string; read: (running: Promise<RunResult>) => Promise<string> } {
  const path = join(tmp.dir, `fifo-${++n}`);
  mkfifo(path);
  return {
    path,
    read(running) {
      let read = false;
      const reading = readFile(path, 'utf8').finally(() => (read = true));
      const endedFirst = running.then((r): Promise<never> => {
        if (read) return new Promise<never>(() => undefined);
        try {
          // A writer that opens and closes at once: the waiting reader sees the pipe end.
          closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // No reader yet: nothing waits.
        }
        throw new Error(`crawl ended (exit ${r.code}) before its command wrote to the pipe: ${r.stderr}`);
      });
      return Promise.race([reading, endedFirst]);
    },
  };
}

describe('key-command', () => {
  it('prints the key: crawl uses it, says where it lives, and never shows it', async () => {
    const key = fx.sandbox.addKey('from-command').key;
    const secret = join(tmp.dir, 'vault-secret');
    writeFileSync(secret, key + '\n');
    const dir = profileDir({ 'key-command': `cat ${secret}` });
    const job = await run(dir, ['job', 'status', 'demo-small']);
    expect(job.code, job.stderr).toBe(0);
    const status = await run(dir, ['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ keyStore: 'command', keyLocation: 'command: cat …', accepted: true });
    expect(status.stdout + status.stderr + job.stdout + job.stderr).not.toContain(key);
    expect(job.stderr).not.toContain('holds the key itself');
  });

  it('holds the key itself (a variable the shell expanded at `config set`): the key is used, and each run warns, never showing it', async () => {
    const key = fx.sandbox.addKey('literal-in-command').key;
    const dir = profileDir({ 'key-command': `printf %s ${key}` });
    for (const args of [['job', 'status', 'demo-small'], ['job', 'status', 'demo-small', '--json']]) {
      const r = await run(dir, args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        'crawl: warning: key-command (printf …) holds the key itself: the config file keeps it in plaintext, and `crawl config list` shows it; set a command that fetches the key (in single quotes, so that the shell leaves a variable such as $CRAWL_SECRET for the command to read), or keep the key in the system keyring with `crawl auth login`\n',
      );
      expect(r.stdout + r.stderr).not.toContain(key);
    }
  });

  it('sets the key in a variable before the program (`K=<key> printenv K`): named by the program, no piece of the key anywhere, one warning', async () => {
    const key = fx.sandbox.addKey('assigned-in-command').key;
    const dir = profileDir({ 'key-command': `K=${key} printenv K` });
    const job = await run(dir, ['job', 'status', 'demo-small']);
    expect(job.code, job.stderr).toBe(0);
    expect(job.stderr.match(/holds the key itself/g)).toHaveLength(1);
    expect(job.stderr).toContain('crawl: warning: key-command (printenv …) holds the key itself: ');
    const status = await run(dir, ['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ keyLocation: 'command: printenv …', accepted: true });
    // Not the key, nor its first 12 characters past the scheme (the part a cut name would show).
    for (const text of [job.stdout, job.stderr, status.stdout, status.stderr]) expect(text).not.toContain(key.slice(4, 16));
  });

  it('a quoted or substituted value (`TOKEN="Bearer <key>" sh -c …`, `K=$(cat f) prog`): named by the variable, no piece of the key', async () => {
    const key = fx.sandbox.addKey('quoted-in-command').key;
    for (const [command, shown] of [
      [`TOKEN="Bearer ${key}" sh -c 'printf %s "$TOKEN"'`, 'TOKEN=…'],
      [`K=$(printf %s ${key}) sh -c 'printf "%s\n" "$K" "$K"'`, 'K=…'],
    ] as const) {
      const dir = profileDir({ 'key-command': command });
      const r = await run(dir, ['job', 'status', 'demo-small']);
      // Both print what is not a key (a space in it; two lines): refused, named, never quoted.
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`key-command (${shown} …)`);
      expect(r.stdout + r.stderr).not.toContain(key.slice(4, 16));
    }
  });

  it('is the key itself, set before config set refused it (or by hand): the shell\'s "not found" and the error show it redacted', async () => {
    const key = 'crk_' + 'abcdefghijklmnopqrstuvwxyz0123456789abcd';
    const dir = profileDir({ 'key-command': key });
    const r = await run(dir, ['job', 'status', 'demo-small']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: key-command \(crk_… …\) failed: it exited with status 127/m);
    expect(r.stderr).toContain('[redacted]');
    expect(r.stdout + r.stderr).not.toContain(key.slice(4, 16));
  });

  it('is a variable alone: named by the variable, its value unseen, and its failure says so', async () => {
    const dir = profileDir({ 'key-command': 'SECRET_NAME=crk_not_a_program_value' });
    const r = await run(dir, ['job', 'status', 'demo-small']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: key-command \(SECRET_NAME=… …\) printed no key/);
    expect(r.stderr).not.toContain('crk_not_a_program_value');
  });

  it('what does not look like a key is refused before anything is sent (exit 1), and is not shown', async () => {
    const cases = {
      junk: 'echo "Error: not signed in. Run op signin"',
      empty: 'true',
      'two lines': 'printf "crk_aaaaaaaaaaaa\\ncrk_bbbbbbbbbbbb\\n"',
      flood: 'yes crk_flood_flood_flood_flood',
      'a flood with no line end': 'head -c 2000000 /dev/zero | tr "\\0" a',
    };
    for (const [name, body] of Object.entries(cases)) {
      const dir = profileDir({ 'key-command': script(body) });
      const before = fx.sandbox.requests.length;
      const r = await run(dir, ['job', 'status', 'demo-small']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toMatch(/^crawl: (what )?key-command \(cmd-\d+\.sh …\) (printed|is)/);
      expect(r.stderr, name).not.toContain('not signed in');
      expect(fx.sandbox.requests.length, name).toBe(before);
    }
  });

  it('prints a byte-order mark first (`type` of a file PowerShell 5.1 saved as UTF-8): the key after it is used', async () => {
    const key = fx.sandbox.addKey('from-a-marked-file').key;
    // EF BB BF, the key, CRLF: the bytes `type key.txt` prints.
    const dir = profileDir({ 'key-command': script(`printf '\\357\\273\\277%s\\r\\n' '${key}'`) });
    const before = fx.sandbox.requests.length;
    const r = await run(dir, ['job', 'status', 'demo-small']);
    expect(r.code, r.stderr).toBe(0);
    expect(fx.sandbox.requests.slice(before).map((q) => q.authorized)).toEqual([true]);
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  it('a byte-order mark anywhere but first is refused, named by its code point, before anything is sent', async () => {
    const key = fx.sandbox.addKey('marked-elsewhere').key;
    const bom = '\\357\\273\\277';
    const cases = {
      'after the key': `printf '%s${bom}\\n' '${key}'`,
      'inside the key': `printf '%s${bom}%s\\n' '${key.slice(0, 8)}' '${key.slice(8)}'`,
      'twice at the start': `printf '${bom}${bom}%s\\n' '${key}'`,
      'after a space': `printf ' ${bom}%s\\n' '${key}'`,
    };
    for (const [name, body] of Object.entries(cases)) {
      const dir = profileDir({ 'key-command': script(body) });
      const before = fx.sandbox.requests.length;
      const r = await run(dir, ['job', 'status', 'demo-small']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toMatch(/^crawl: what key-command \(cmd-\d+\.sh …\) printed is not a key: it contains an invisible character \(U\+FEFF\); nothing was sent\n/);
      expect(r.stderr, name).not.toContain(key);
      expect(fx.sandbox.requests.length, name).toBe(before);
    }
  });

  it('exits non-zero: its status and the tail of its stderr are reported (exit 1)', async () => {
    const dir = profileDir({ 'key-command': script('echo "vault: permission denied" >&2; exit 3') });
    const r = await run(dir, ['job', 'status', 'demo-small']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('vault: permission denied\n');
    expect(r.stderr).toMatch(/crawl: key-command \(cmd-\d+\.sh …\) failed: it exited with status 3: vault: permission denied\n/);
  });

  it('hangs: stopped at its bound (CRAWL_KEY_COMMAND_TIMEOUT), exit 1', async () => {
    // The bound is on the run's clock: it passes when the test moves time, once the command runs.
    const started = pipe();
    const dir = profileDir({ 'key-command': script(`echo > ${started.path}; exec sleep 600`) });
    const clock = fakeClock();
    const running = run(dir, ['job', 'status', 'demo-small'], { CRAWL_KEY_COMMAND_TIMEOUT: '0.5' }, clock);
    await started.read(running);
    await clock.advance(500);
    const r = await running;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/crawl: key-command \(cmd-\d+\.sh …\) did not finish within 0\.5 s; it was stopped\n/);
  });

  it('a command that ignores SIGTERM at its bound: its whole process group has ended when crawl reports it', async () => {
    const started = pipe();
    const dir = profileDir({ 'key-command': script(`trap '' TERM; sleep 600 & echo $! > ${started.path}; wait`) });
    const clock = fakeClock();
    const running = run(dir, ['job', 'status', 'demo-small'], { CRAWL_KEY_COMMAND_TIMEOUT: '0.5' }, clock);
    const pid = Number(await started.read(running));
    expect(pid).toBeGreaterThan(0);
    // The bound passes (SIGTERM, ignored), then the wait for SIGKILL, both on the run's clock.
    await clock.advance(500);
    await clock.advance(1_000);
    const r = await running;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/did not finish within 0\.5 s; it was stopped/);
    // Its files already closed is what let crawl see the end of its output.
    expect(processState(pid)).toBe('ended');
  });

  it('a member of its group that ignores SIGTERM and holds no pipe: sent SIGKILL before crawl reports the command stopped', async () => {
    const started = pipe();
    // The shell ends on SIGTERM (its output closes); the member it started outside the pipes stays.
    const dir = profileDir({ 'key-command': script(`(trap '' TERM; exec sleep 600) >/dev/null 2>&1 </dev/null & echo $! > ${started.path}; sleep 600`) });
    const clock = fakeClock();
    const running = run(dir, ['job', 'status', 'demo-small'], { CRAWL_KEY_COMMAND_TIMEOUT: '0.5' }, clock);
    const pid = Number(await started.read(running));
    expect(pid).toBeGreaterThan(0);
    try {
      await clock.advance(500);
      const r = await running;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/did not finish within 0\.5 s; it was stopped/);
      // The kill is sent; the kernel ends it a moment later (left alone, it would run for 600 s).
      await waitFor(() => processState(pid) === 'ended', 10_000, `process ${pid} to end: ${processState(pid)}`);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
  });

  it('a process that left its group and holds the output open: crawl stops waiting once the kill has been sent', needs('setsid'), async () => {
    const started = pipe();
    // setsid: out of the group's reach, and it keeps the shell's stdout open.
    const dir = profileDir({ 'key-command': script(`setsid sleep 600 & echo $! > ${started.path}; sleep 600`) });
    const clock = fakeClock();
    const running = run(dir, ['job', 'status', 'demo-small'], { CRAWL_KEY_COMMAND_TIMEOUT: '0.5' }, clock);
    const pid = Number(await started.read(running));
    try {
      // The bound (SIGTERM), the wait for SIGKILL, and as long again for the pipes to close: then
      // the run ends, whatever still holds them.
      await clock.advance(500);
      await clock.advance(1_000);
      await clock.advance(1_000);
      const r = await running;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/did not finish within 0\.5 s; it was stopped/);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });

  it('keys rotate with no flag stores the new key through key-store-command (stdin only), reads it back, then revokes the old key', async () => {
    const old = fx.sandbox.addKey('rotate-command').key;
    const secret = join(tmp.dir, `secret-${++n}`);
    const seen = join(tmp.dir, `seen-${n}`);
    writeFileSync(secret, old + '\n');
    const store = script(`cat > ${secret}.new && mv ${secret}.new ${secret}; tr '\\0' '\\n' < /proc/$$/cmdline > ${seen}; tr '\\0' '\\n' < /proc/$$/environ >> ${seen}`);
    const dir = profileDir({ 'key-command': `cat ${secret}`, 'key-store-command': store });
    const r = await run(dir, ['keys', 'rotate', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    const next = readFileSync(secret, 'utf8').trim();
    expect(next).toMatch(/^crk_/);
    expect(next).not.toBe(old);
    // Neither key in the store command's arguments or environment.
    const proc = readFileSync(seen, 'utf8');
    expect(proc).not.toContain(next);
    expect(proc).not.toContain(old);
    expect(r.stdout + r.stderr).not.toContain(next);
  });

  it('logout forgets the commands and leaves the secret manager alone, and says so', async () => {
    const dir = profileDir({ 'key-command': 'cat /nonexistent', 'key-store-command': 'cat > /dev/null' });
    const r = await run(dir, ['auth', 'logout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no longer reads its key with key-command; the secret manager \(command: cat …\) still holds it/);
    const profile = (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { default: Record<string, string> } }).profiles.default;
    expect(profile).toEqual({ 'base-url': fx.sandbox.url });
  });

  it('is honoured only from a config file that is yours alone: a group-writable one is refused whole, and the command never runs', async () => {
    const ran = join(tmp.dir, `ran-${++n}`);
    const dir = profileDir({ 'key-command': script(`touch ${ran}; echo crk_never_sent_0123456789`) });
    chmodSync(join(dir, 'config.json'), 0o664);
    const before = fx.sandbox.requests.length;
    const r = await run(dir, ['job', 'status', 'demo-small']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crawl: refusing to use config file .+: it is writable by other users \(mode 0664\)\n/);
    expect(existsSync(ran)).toBe(false);
    expect(fx.sandbox.requests.length).toBe(before);
  });
});

