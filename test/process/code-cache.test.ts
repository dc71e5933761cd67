// The code cache the bundle loads with (src/launch/load-bundle.cts, src/launch/user-cache.cts), as
// a checkout and an installed package both use it: the first run of each kind compiles as usual and
// leaves its cache in the user's XDG cache folder, later runs take it. Checked by V8's own answer
// (src/bench/code-cache.ts), never by timing: `npm run bench` measures the times.
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCodeCache } from '../../src/bench/code-cache.js';
import { runCli, tempDir } from '../support/harness.js';
import { packedFiles } from '../support/pack.js';
import { ROOT } from '../support/spawn.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-code-cache-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const HELP = ['job', '--help'];
const STATUS = ['job', 'demo-small', '--json'];

/** An environment whose user cache folder is a fresh one of the test's own. */
function freshCache(name: string): { env: NodeJS.ProcessEnv; folder: string } {
  const xdg = join(tmp.dir, name);
  return { env: { PATH: process.env.PATH ?? '', HOME: tmp.dir, ...fx.env, XDG_CACHE_HOME: xdg }, folder: join(xdg, 'crawl', 'code-cache') };
}

describe('the code cache', () => {
  it('after the first run of each kind, V8 takes the cache for every file that help and a status read load (and none for terminals only)', async () => {
    const files = packedFiles();
    // string-width's own code (its emoji pattern) and cli-truncate's: in the bundle, in chunks that
    // neither help nor a script's status read loads (they are for terminals only).
    const terminalOnly = [...files].filter(([, code]) => code.includes('RGI_Emoji') || code.includes('truncationCharacter')).map(([file]) => file);
    expect(terminalOnly.length).toBeGreaterThanOrEqual(1);
    const { env } = freshCache('every-file');
    for (const args of [HELP, STATUS]) {
      const first = await checkCodeCache(args, env);
      expect(first.map((r) => r.rejected)).toEqual(first.map(() => undefined));
      const report = await checkCodeCache(args, env);
      expect(report.length).toBeGreaterThan(args.includes('--help') ? 0 : 3);
      expect(report.filter((r) => r.rejected !== false)).toEqual([]);
      expect(report.map((r) => r.file).filter((file) => terminalOnly.includes(file))).toEqual([]);
    }
  });

  it('every file of the pack is a function the loader runs as it is, in ASCII (read as latin1, a copy rather than a decoding; one character beyond it and V8 would hold the whole file as two bytes a character)', () => {
    const code = [...packedFiles()].filter(([file]) => file.endsWith('.cjs'));
    expect(code.length).toBeGreaterThan(10);
    for (const [file, text] of code) {
      expect(text.startsWith('(function (define) {'), file).toBe(true);
      expect(text.endsWith('\n})'), file).toBe(true);
      expect(text.search(/[^\x00-\x7f]/u), file).toBe(-1);
    }
  });

  it('the build ships no cache: a checkout and an installed package start alike', () => {
    expect(readdirSync(join(ROOT, 'dist', 'bundle')).filter((name) => name.endsWith('.cache'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; scripts: Record<string, string> };
    expect(pkg.files.filter((f) => f.includes('.cache'))).toEqual([]);
  });

  it('each kind of run keeps its own in a private folder, taken by later runs; never one others may write; one made for another Node or system is not offered; other builds\' are removed', async () => {
    const { env, folder } = freshCache('private');
    // What an older build left: removed once this build writes its own.
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(join(folder, `0123456789abcdef-http-${process.version}-${process.arch}.cache`), 'old', { mode: 0o600 });
    const runs = [HELP, STATUS];
    const first = await Promise.all(runs.map((args) => checkCodeCache(args, env)));
    for (const report of first) expect(report.map((r) => r.rejected)).toEqual(report.map(() => undefined));
    const kept = readdirSync(folder).sort();
    expect(kept).toEqual([expect.stringMatching(/-help-v[\d.]+-\w+\.cache$/), expect.stringMatching(/-http-v[\d.]+-\w+\.cache$/)]);
    expect(kept.some((name) => name.startsWith('0123456789abcdef-'))).toBe(false);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of kept) expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
    const later = await Promise.all(runs.map((args) => checkCodeCache(args, env)));
    for (const report of later) expect(report.map((r) => r.rejected)).toEqual(report.map(() => false));

    // A cache whose first line names another Node (its V8 would be another): not offered to V8.
    const help = join(folder, kept[0] as string);
    const cache = readFileSync(help);
    const key = JSON.parse(cache.toString('utf8', 0, cache.indexOf(10))) as string[];
    writeFileSync(help, Buffer.concat([Buffer.from(JSON.stringify([key[0], key[1], 'v0.0.1', key[3]]) + '\n'), cache.subarray(cache.indexOf(10) + 1)]));
    const otherNode = await checkCodeCache(HELP, env);
    expect(otherNode.map((r) => r.rejected)).toEqual(otherNode.map(() => undefined));
    // The cache later runs took, with its first line naming another system (one cache folder for
    // WSL's Linux and Windows, say): not offered either. Were the system not in the key, this
    // would be that very cache, and taken.
    const elsewhere = process.platform === 'win32' ? 'linux' : 'win32';
    writeFileSync(help, Buffer.concat([Buffer.from(JSON.stringify(key.map((part) => (part === process.platform ? elsewhere : part))) + '\n'), cache.subarray(cache.indexOf(10) + 1)]));
    const otherSystem = await checkCodeCache(HELP, env);
    expect(otherSystem.map((r) => r.rejected)).toEqual(otherSystem.map(() => undefined));

    // A folder others may write to could hold anyone's code: not read, not written.
    chmodSync(folder, 0o777);
    const written = kept.map((name) => statSync(join(folder, name)).mtimeMs);
    const shared = await checkCodeCache(STATUS, env);
    expect(shared.map((r) => r.rejected)).toEqual(shared.map(() => undefined));
    expect(kept.map((name) => statSync(join(folder, name)).mtimeMs)).toEqual(written);
    expect(readdirSync(folder).sort()).toEqual(kept);
  });

  it("a run that talks to the service loads the built-ins it needs before the loader sets its V8 flag: after it, V8 would refuse Node's own code cache for each", async () => {
    const { env } = freshCache('built-ins');
    // What Node loaded, in order, written as the run exits.
    const preload = join(tmp.dir, 'module-list.cjs');
    writeFileSync(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.CRAWL_TEST_MODULE_LIST, process.moduleLoadList.join('\\n')));\n");
    // A port nothing listens on, for an https:// service: the run loads Node's TLS to connect.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const runs: [string[], NodeJS.ProcessEnv, number][] = [
      [STATUS, {}, 0],
      [['keys', 'list', '--json'], {}, 0],
      // jq's runtime: node:fs/promises and Web Crypto's random numbers.
      [['job', 'demo-small', '--jq', '.job.status'], {}, 0],
      // gh's short form of it.
      [['job', 'demo-small', '-q', '.job.status'], {}, 0],
      [STATUS, { CRAWL_BASE_URL: `https://127.0.0.1:${closed}/` }, 5],
    ];
    for (const [i, [args, more, exitCode]] of runs.entries()) {
      const list = join(tmp.dir, `modules-${i}.txt`);
      const child = spawn(process.execPath, ['-r', preload, join(ROOT, 'bin', 'crawl.js'), ...args], { env: { ...env, ...more, CRAWL_TEST_MODULE_LIST: list }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stdout.resume();
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(exitCode);
      const loaded = readFileSync(list, 'utf8').split('\n');
      const flagSet = loaded.indexOf('NativeModule v8');
      expect(flagSet).toBeGreaterThan(0);
      expect(loaded.slice(flagSet + 1).filter((line) => line.startsWith('NativeModule ')), args.join(' ')).toEqual([]);
    }
  });

  it('runs side by side keep what each added: one ending after another merges the cache as it is then, not as it was when it started', async () => {
    const { env, folder } = freshCache('side-by-side');
    // A long run (the sandbox, until SIGINT) starts with no cache; a status read runs whole meanwhile
    // and writes its files' caches; the sandbox, ending after it, must keep them.
    const sandbox = spawn(process.execPath, [join(ROOT, 'bin', 'crawl.js'), 'sandbox', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => sandbox.on('close', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        sandbox.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('Sandbox listening on')) resolve();
        });
        sandbox.on('close', (code) => reject(new Error(`the sandbox ended first (${code})`)));
      });
      const status = await checkCodeCache(STATUS, env);
      expect(status.map((r) => r.rejected)).toEqual(status.map(() => undefined));
    } finally {
      sandbox.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(readdirSync(folder).filter((name) => name.includes('-http-'))).toHaveLength(1);
    const later = await checkCodeCache(STATUS, env);
    expect(later.filter((r) => r.rejected !== false)).toEqual([]);
  });

  it('a damaged cache, one from another build, one made for another file, or none: the same output and exit code', async () => {
    // Help (its own cache: `crawl help job`, which the launcher leaves to the bundle, where
    // `--help` off a terminal is a page it packed), a status read, and a failing one (the other
    // cache, another path).
    const commands = [['job', 'demo-small'], ['help', 'job'], ['job', 'no-such-job']];
    // The first runs give the output to expect, and leave the caches each damage then harms a copy of.
    const made = freshCache('made');
    const expected = await Promise.all(commands.map((args) => runCli(args, { process: true, env: made.env })));
    expect(expected.map((r) => r.code)).toEqual([0, 0, 3]);
    expect(readdirSync(made.folder).length).toBe(2);

    const damages: Record<string, (cache: Buffer, others: Buffer[]) => Buffer | undefined> = {
      'garbage after the build line': (cache) => Buffer.concat([cache.subarray(0, cache.indexOf(10) + 1), Buffer.alloc(cache.length, 0x5a)]),
      'cut short': (cache) => cache.subarray(0, Math.floor(cache.length / 2)),
      'another build': (cache) => Buffer.concat([Buffer.from('0123456789abcdef\n'), cache.subarray(cache.indexOf(10) + 1)]),
      'made for another file': (cache, others) => others.find((o) => o.length !== cache.length) ?? Buffer.alloc(0),
      'none at all': () => undefined,
    };
    // Each damage in a cache folder of its own: all of them side by side.
    await Promise.all(
      Object.entries(damages).map(async ([damage, harm]) => {
        const { env, folder } = freshCache(damage.replace(/\W+/g, '-'));
        // A folder that cpSync finds already there keeps its own mode: made private here, as the
        // loader makes its own, so that the loader reads it (else no damage would be tested).
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        chmodSync(folder, 0o700);
        cpSync(made.folder, folder, { recursive: true });
        expect(statSync(folder).mode & 0o777).toBe(0o700);
        const caches = readdirSync(folder).map((name) => join(folder, name));
        expect(caches.length).toBe(2);
        const contents = caches.map((file) => readFileSync(file));
        caches.forEach((file, i) => {
          const harmed = harm(contents[i] as Buffer, contents);
          if (harmed === undefined) unlinkSync(file);
          else writeFileSync(file, harmed);
        });
        const results = await Promise.all(commands.map((args) => runCli(args, { process: true, env })));
        for (const [i, args] of commands.entries()) {
          const r = results[i];
          const want = expected[i];
          expect({ damage, args, code: r?.code, stdout: r?.stdout, stderr: r?.stderr }).toEqual({
            damage,
            args,
            code: want?.code,
            stdout: want?.stdout,
            stderr: want?.stderr,
          });
        }
        expect(existsSync(folder)).toBe(true);
      }),
    );
    // Eighteen runs of the CLI: more than the default bound on a loaded machine.
  }, 60_000);
});
