// Contract (spawned): the installed bin and its start-up as behaviour rather than
// timing: that it runs at all, plain and in a terminal; what a command loads (the code cache it
// loads with: test/process/code-cache.test.ts). The times themselves are measured by `npm run
// bench`, never here.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourcesRun } from '../../src/bench/code-cache.js';
import { BUNDLE_DIR, MODULES } from '../../src/build/paths.js';
import { runCli, tempDir } from '../support/harness.js';
import { KEYRING_TOOLS, startKeyringSession } from '../support/keyring-session.js';
import { BIN, cleanEnv } from '../support/spawn.js';
import { listenOnLoopback, relayTunnels } from '../support/loopback.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { needs } from '../support/tools.js';

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
  it('runs the CLI plain and in a terminal', needs('script'), async () => {
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

  it('a status read with stdin a file (a cron job, `< /dev/null`) never opens it as a stream: no fs streams, fs/promises or readline', async () => {
    const out = join(tmp.dir, 'modules-stdin-file.txt');
    const reporter = join(tmp.dir, 'report-modules-stdin.cjs');
    writeFileSync(reporter, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    const input = join(tmp.dir, 'stdin.txt');
    writeFileSync(input, '');
    const fd = openSync(input, 'r');
    try {
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'job', 'demo-small', '--json'], { env: cleanEnv({ ...fx.env, NODE_OPTIONS: `--require ${reporter}` }), stdio: [fd, 'ignore', 'ignore'] });
        child.on('close', resolve);
      });
      expect(code).toBe(0);
    } finally {
      closeSync(fd);
    }
    const modules = readFileSync(out, 'utf8').split('\n');
    for (const name of ['internal/fs/streams', 'internal/fs/promises', 'internal/readline/interface']) expect(modules).not.toContain(`NativeModule ${name}`);
  });

  it('--version loads no stream, network or vm module: nothing but the version is read, and it is written straight to fd 1', async () => {
    const { code, modules } = await builtinsLoaded(['--version']);
    expect(code).toBe(0);
    for (const name of ['stream', 'net', 'tty', 'vm', 'internal/fs/sync_write_stream']) expect(modules).not.toContain(name);
  });

  it('--version to a full disk: one line, exit 1', async () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const full = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, '--version'], { env: cleanEnv({}), stdio: ['ignore', fd, 'pipe'] });
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(full).toEqual({ code: 1, stderr: 'crawl: cannot write to standard output: ENOSPC\n' });
    } finally {
      closeSync(fd);
    }
  });

  it('help loads neither node:http nor node:v8', async () => {
    const { code, modules } = await builtinsLoaded(['job', '--help']);
    expect(code).toBe(0);
    for (const name of ['http', 'v8', 'child_process', 'fs/promises']) expect(modules).not.toContain(name);
  });
});

describe('what a command runs of the bundle: the command it runs, and of the rest only what it uses', () => {
  /** The source files of the modules `crawl <args>` ran, with the environment given (a fresh code cache). */
  const ran = (args: string[], env: Record<string, string>): Promise<string[]> =>
    sourcesRun(args, { PATH: process.env.PATH ?? '', HOME: tmp.dir, XDG_CACHE_HOME: join(tmp.dir, 'xdg-cache'), ...env });
  const http = (sources: readonly string[]): string[] => sources.filter((s) => /^src\/http\/(?!url\.ts)|node_modules\/undici\//.test(s));
  const keyStores = (sources: readonly string[]): string[] => sources.filter((s) => /^src\/config\/key-stores\/(keyring|command|file)-store\.ts$|native-keyring|^src\/platform\/(dbus|shell-command)/.test(s));
  /** Command modules: declarations and their work (not a group's index and hooks, which are the program's). */
  const commandModules = (sources: readonly string[]): string[] =>
    sources.filter((s) => /^src\/commands\/(?!help\/|shared\/)[^/]+\/(?!index\.ts|subcommand-typo\.ts)(lib\/)?[^/]+\.ts$/.test(s)).sort();

  it('help builds the commands it shows, none of their work, no Deps and no HTTP code', async () => {
    const [root, group] = await Promise.all([ran(['--help'], fx.env), ran(['job', '--help'], fx.env)]);
    // Not even the group's default command (`crawl job <id>` runs it): its help lists it from the table.
    expect(commandModules(root)).toEqual([]);
    expect(commandModules(group)).toEqual([]);
    for (const sources of [root, group]) {
      expect(sources).toContain('node_modules/commander/lib/help.js');
      expect(sources.filter((s) => /\/lib\/|^src\/app\/factory\.ts$|^src\/config\//.test(s) && !s.includes('commander'))).toEqual([]);
      expect(http(sources)).toEqual([]);
    }
  });

  it('config and completion run no HTTP code and open no key store', async () => {
    const runs = await Promise.all([['config', 'list'], ['config', 'get', 'base-url'], ['completion', 'bash'], ['__complete', '2', ':job', ':']].map((args) => ran(args, fx.env)));
    for (const sources of runs) {
      expect(sources).toContain('src/app/factory.ts');
      expect(http(sources)).toEqual([]);
      expect(keyStores(sources)).toEqual([]);
    }
  });

  it("Tab's completions run none of the program (commander, the commands' declarations); a line of another form does", async () => {
    const program = (sources: readonly string[]): string[] => sources.filter((s) => s.startsWith('node_modules/commander/') || s === 'src/app/program.ts');
    const [commands, keyIds, flagFirst] = await Promise.all([
      ran(['__complete', '2', ':job', ':'], fx.env),
      ran(['__complete', '3', ':keys', ':revoke', ':'], fx.env),
      ran(['--timeout', '30', '__complete', '2', ':job', ':'], fx.env),
    ]);
    expect(program(commands)).toEqual([]);
    // The tree and the work, not the command's declaration (completion.ts, which is the program's).
    expect(commandModules(commands)).toContain('src/commands/completion/lib/complete.ts');
    expect(commandModules(commands).filter((s) => !/^src\/commands\/completion\/(completion-tree\.ts|lib\/)/.test(s))).toEqual([]);
    // Key ids come from the service: its HTTP layer, still without the program.
    expect(program(keyIds)).toEqual([]);
    expect(http(keyIds).length).toBeGreaterThan(0);
    expect(program(flagFirst)).toContain('src/app/program.ts');
  });

  it('a status read runs its own command and work, the HTTP layer, and no key store when CRAWL_API_KEY is set', async () => {
    const sources = await ran(['job', 'demo-small', '--json'], fx.env);
    expect(sources).toEqual(expect.arrayContaining(['src/commands/job/status.ts', 'src/commands/job/lib/status.ts', 'src/http/client.ts']));
    expect(sources.some((s) => s.startsWith('node_modules/undici/'))).toBe(true);
    expect(commandModules(sources).filter((s) => !s.startsWith('src/commands/job/'))).toEqual([]);
    expect(sources.filter((s) => /^src\/commands\/job\/lib\/(watch|pages|cancel)\.ts$/.test(s))).toEqual([]);
    expect(keyStores(sources)).toEqual([]);
  });

  it('a status read opens the one store its profile names: the config file, or the keyring over D-Bus', needs(...KEYRING_TOOLS), async () => {
    const { CRAWL_API_KEY: key = '', ...withoutKey } = fx.env;
    const fileConfig = join(tmp.dir, 'file-store-config');
    await runCli(['auth', 'login', '--with-key', '--no-verify', '--insecure-storage'], { process: true, env: { ...withoutKey, CRAWL_CONFIG_DIR: fileConfig }, input: key });
    const fromFile = await ran(['job', 'demo-small', '--json'], { ...withoutKey, CRAWL_CONFIG_DIR: fileConfig });
    expect(keyStores(fromFile)).toEqual(['src/config/key-stores/file-store.ts']);
    const session = await startKeyringSession();
    try {
      const keyringConfig = join(tmp.dir, 'keyring-config');
      const env = { ...withoutKey, ...session.env, CRAWL_CONFIG_DIR: keyringConfig };
      const login = await runCli(['auth', 'login', '--with-key', '--no-verify', '--store', 'keyring'], { process: true, env, input: key });
      expect(login.code, login.stderr).toBe(0);
      const fromKeyring = await ran(['job', 'demo-small', '--json'], env);
      expect(keyStores(fromKeyring).filter((s) => !s.startsWith('src/platform/dbus/'))).toEqual(['src/config/key-stores/keyring-store.ts']);
      expect(fromKeyring).toContain('src/platform/dbus/connection.ts');
    } finally {
      await session.close();
    }
  });
});

describe('what the bundle holds', () => {
  it("none of undici's code crawl cannot reach: its HTTP/2 client, fetch's bodies (src/build/defer-requires.ts), llhttp's generator tables (src/build/patch-undici.ts)", () => {
    const sources = Object.values(JSON.parse(readFileSync(join(BUNDLE_DIR, MODULES), 'utf8')) as Record<string, string[]>).flat();
    expect(sources).toContain('node_modules/undici/lib/dispatcher/client-h1.js');
    expect(sources.filter((s) => /^node_modules\/undici\/lib\/(dispatcher\/client-h2|web\/|llhttp\/(constants|utils)\.js)/.test(s))).toEqual([]);
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
