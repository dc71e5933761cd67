// Contract (spawned): the installed bin and its start-up (issue 5) as behaviour rather than
// timing: that it runs at all, plain and in a terminal; what a command loads; and the code cache it
// loads with. The times themselves are measured by `npm run bench`, never here.
import { chmodSync, cpSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCodeCache } from '../../src/build/cache-check.js';
import { runCli, tempDir } from '../support/harness.js';
import { ROOT } from '../support/spawn.js';
import { listenOnLoopback, relayTunnels } from '../support/loopback.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

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
  it('a status read loads no node:http (undici parses), HTTP/2, TLS, crypto, assert, child process or promise-based fs', async () => {
    const { code, modules } = await builtinsLoaded(['job', 'demo-small', '--json']);
    expect(code).toBe(0);
    expect(modules).toContain('net');
    for (const name of ['http', 'http2', 'tls', 'crypto', 'assert', 'child_process', 'fs/promises']) expect(modules).not.toContain(name);
  });

  it('help loads neither node:http nor node:v8', async () => {
    const { code, modules } = await builtinsLoaded(['job', '--help']);
    expect(code).toBe(0);
    for (const name of ['http', 'v8', 'child_process', 'fs/promises']) expect(modules).not.toContain(name);
  });
});

describe("the bundle's HTTP layer (undici with node:http loaded only when asked for: src/build/patch-undici.ts)", () => {
  it('goes through a proxy, whose clients take Node\'s header limit; refuses response headers past 16 KiB, takes them under it', async () => {
    // A forward proxy (CONNECT tunnels): the clients undici makes for it read the limit from node:http.
    const proxy = http.createServer();
    let tunnels = 0;
    relayTunnels(proxy, () => tunnels++);
    // A service whose job answer carries one header of the size asked for in the path.
    const service = http.createServer((req, res) => {
      const size = Number(/\/api\/crawl\/pad-(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      res.writeHead(200, { 'content-type': 'application/json', 'x-pad': 'p'.repeat(size) });
      res.end(JSON.stringify({ success: true, job: { id: 'pad', status: 'completed', url: 'https://example.com/' } }));
    });
    const [p, svc] = await Promise.all([listenOnLoopback(proxy), listenOnLoopback(service)]);
    try {
      const env = { ...fx.env, CRAWL_BASE_URL: svc.url };
      const [viaProxy, small, large] = await Promise.all([
        runCli(['job', 'demo-small', '--json'], { process: true, env: { ...fx.env, HTTP_PROXY: p.url, NO_PROXY: '' } }),
        runCli(['job', 'pad-15000', '--json'], { process: true, env }),
        runCli(['job', 'pad-17000', '--json'], { process: true, env }),
      ]);
      expect({ code: viaProxy.code, stderr: viaProxy.stderr, tunnels }).toEqual({ code: 0, stderr: '', tunnels: 1 });
      expect(JSON.parse(viaProxy.stdout)).toMatchObject({ job: { id: 'demo-small', status: 'completed' } });
      expect({ code: small.code, stderr: small.stderr }).toEqual({ code: 0, stderr: '' });
      expect(large.code).toBe(5);
      expect(JSON.parse(large.stderr)).toMatchObject({ error: { message: expect.stringMatching(/^the server sent response headers too large to read: GET /) as unknown, exitCode: 5 } });
    } finally {
      await Promise.all([p.close(), svc.close()]);
    }
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

  it("a build whose cache another Node made: each kind of run keeps its own in a private XDG cache folder, taken by later runs; never one others may write", async () => {
    const install = copyInstall('other-node');
    const bundle = join(install, 'dist', 'bundle');
    // The packs as a build on another Node version leaves them: V8 would refuse them here.
    for (const file of cacheFiles(bundle)) {
      const cache = readFileSync(file);
      const key = JSON.parse(cache.toString('utf8', 0, cache.indexOf(10))) as string[];
      writeFileSync(file, Buffer.concat([Buffer.from(JSON.stringify([key[0], key[1], 'v0.0.1', key[3]]) + '\n'), cache.subarray(cache.indexOf(10) + 1)]));
    }
    const xdg = join(tmp.dir, 'xdg-cache');
    const env = { PATH: process.env.PATH ?? '', HOME: tmp.dir, ...fx.env, XDG_CACHE_HOME: xdg };
    const runs = [['job', '--help'], ['job', 'demo-small', '--json']];
    const first = await Promise.all(runs.map((args) => checkCodeCache(args, env, bundle)));
    for (const report of first) expect(report.map((r) => r.rejected)).toEqual(report.map(() => undefined));
    const folder = join(xdg, 'crawl', 'code-cache');
    const kept = readdirSync(folder).sort();
    expect(kept).toEqual([expect.stringMatching(/-help-v[\d.]+-\w+\.cache$/), expect.stringMatching(/-http-v[\d.]+-\w+\.cache$/)]);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of kept) expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
    const later = await Promise.all(runs.map((args) => checkCodeCache(args, env, bundle)));
    for (const report of later) expect(report.map((r) => r.rejected)).toEqual(report.map(() => false));

    // A folder others may write to could hold anyone's code: not read, not written.
    chmodSync(folder, 0o777);
    const written = kept.map((name) => statSync(join(folder, name)).mtimeMs);
    const shared = await checkCodeCache(['job', '--help'], env, bundle);
    expect(shared.map((r) => r.rejected)).toEqual(shared.map(() => undefined));
    expect(kept.map((name) => statSync(join(folder, name)).mtimeMs)).toEqual(written);
    expect(readdirSync(folder).sort()).toEqual(kept);
  });

  it('a damaged cache, one from another build, one made for another file, or none: the same output and exit code', async () => {
    // Help (its own cache), a status read, and a failing one (the other cache, another path).
    const commands = [['job', 'demo-small'], ['job', '--help'], ['job', 'no-such-job']];
    const expected = await Promise.all(commands.map((args) => runCli(args, { process: true, env: fx.env })));
    expect(expected.map((r) => r.code)).toEqual([0, 0, 3]);

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
