// Contract (spawned): the installed bin and its start-up (issue 5) as behaviour rather than
// timing: that it runs at all, plain and in a terminal; what a command loads; and the code cache it
// loads with. The times themselves are measured by `npm run bench`, never here.
import { cpSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCodeCache } from '../../src/build/cache-check.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { sandboxFixture, type SandboxFixture } from '../helpers/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-startup-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

/** Node's built-in modules a run of `crawl <args>` loaded, as Node lists them at exit. */
async function builtinsLoaded(args: string[]): Promise<{ code: number | null; modules: string[] }> {
  const out = join(tmp.dir, `modules-${args.join('-')}.txt`);
  const reporter = join(tmp.dir, 'report-modules.cjs');
  writeFileSync(
    reporter,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`,
  );
  const r = await runCli(args, { process: true, env: { ...fx.env, NODE_OPTIONS: `--require ${reporter}` } });
  const modules = readFileSync(out, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('NativeModule '))
    .map((line) => line.slice('NativeModule '.length));
  return { code: r.code, modules };
}

describe('the installed bin', () => {
  it('runs the CLI plain and in a terminal', async () => {
    const [plain, tty] = await Promise.all([
      runCli(['job', 'demo-small'], { process: true, env: fx.env }),
      runCli(['job', 'demo-small'], { process: true, env: fx.env, tty: true }),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('status\tcompleted\n');
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/Progress\s+42\/42 pages \(100%\)/);
  });
});

describe('what a command loads', () => {
  it('a status read loads no HTTP/2, TLS, crypto, child process or promise-based fs', async () => {
    const { code, modules } = await builtinsLoaded(['job', 'demo-small', '--json']);
    expect(code).toBe(0);
    expect(modules).toContain('http');
    for (const name of ['http2', 'tls', 'crypto', 'child_process', 'fs/promises']) expect(modules).not.toContain(name);
  });

  it('help loads neither node:http nor node:v8', async () => {
    const { code, modules } = await builtinsLoaded(['job', '--help']);
    expect(code).toBe(0);
    for (const name of ['http', 'v8', 'child_process', 'fs/promises']) expect(modules).not.toContain(name);
  });
});

describe('the code cache', () => {
  it('V8 takes the cache the build made, for every file that help and a status read load', async () => {
    const env = { PATH: process.env.PATH ?? '', ...fx.env };
    const files = packedFiles();
    // string-width's own code (its emoji pattern) and cli-truncate's: in the bundle, in chunks that
    // neither help nor a script's status read loads (they are for terminals only).
    const terminalOnly = [...files].filter(([, code]) => code.includes('RGI_Emoji') || code.includes('truncationCharacter')).map(([file]) => file);
    expect(terminalOnly.length).toBeGreaterThanOrEqual(1);
    for (const args of [['job', '--help'], ['job', 'demo-small', '--json']]) {
      const report = await checkCodeCache(args, env);
      expect(report.length).toBeGreaterThan(args.includes('--help') ? 0 : 3);
      expect(report.filter((r) => r.rejected !== false)).toEqual([]);
      expect(report.map((r) => r.file).filter((file) => terminalOnly.includes(file))).toEqual([]);
    }
  });

  it('a damaged cache, one from another build, one made for another file, or none: the same output and exit code', async () => {
    const commands = [['job', 'demo-small', '--json'], ['job', 'demo-small'], ['job', '--help'], ['job', 'no-such-job'], ['config', 'list']];
    const expected = await Promise.all(commands.map((args) => runCli(args, { process: true, env: fx.env })));
    expect(expected.map((r) => r.code)).toEqual([0, 0, 0, 3, 0]);

    const damages: Record<string, (cache: Buffer, others: Buffer[]) => Buffer | undefined> = {
      'garbage after the build line': (cache) => Buffer.concat([cache.subarray(0, cache.indexOf(10) + 1), Buffer.alloc(cache.length, 0x5a)]),
      'cut short': (cache) => cache.subarray(0, Math.floor(cache.length / 2)),
      'another build': (cache) => Buffer.concat([Buffer.from('0123456789abcdef\n'), cache.subarray(cache.indexOf(10) + 1)]),
      'made for another file': (cache, others) => others.find((o) => o.length !== cache.length) ?? Buffer.alloc(0),
      'none at all': () => undefined,
    };
    for (const [damage, harm] of Object.entries(damages)) {
      const install = copyInstall(damage.replace(/\W+/g, '-'));
      const caches = cacheFiles(join(install, 'dist', 'bundle'));
      const contents = caches.map((file) => readFileSync(file));
      caches.forEach((file, i) => {
        const harmed = harm(contents[i] as Buffer, contents);
        if (harmed === undefined) unlinkSync(file);
        else writeFileSync(file, harmed);
      });
      const results = await Promise.all(commands.map((args) => runCli(args, { process: true, env: fx.env, bin: join(install, 'bin', 'crawl.js') })));
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
    }
  });
});

/** Every file of the bundle's pack, by name (see src/launch/load-bundle.cts for its layout). */
function packedFiles(): Map<string, string> {
  const pack = readFileSync(join(ROOT, 'dist', 'bundle', 'bundle.pack'));
  const first = pack.indexOf(10);
  const second = pack.indexOf(10, first + 1);
  const index = JSON.parse(pack.toString('utf8', first + 1, second)) as Record<string, [number, number]>;
  const data = pack.subarray(second + 1);
  return new Map(Object.entries(index).map(([file, [offset, length]]) => [file, data.toString('utf8', offset, offset + length)]));
}

/** The installed files (bin, dist, package.json) copied to a folder of their own. */
function copyInstall(name: string): string {
  const install = join(tmp.dir, name);
  cpSync(join(ROOT, 'bin'), join(install, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist', 'launch'), join(install, 'dist', 'launch'), { recursive: true });
  cpSync(join(ROOT, 'dist', 'bundle'), join(install, 'dist', 'bundle'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(install, 'package.json'));
  return install;
}

function cacheFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.cache'))
    .map((name) => join(dir, name));
}
