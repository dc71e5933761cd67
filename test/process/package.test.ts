// The package as its users get it: `npm pack`, installed into an empty project with --omit=dev
// and no network, then its bin, the Node client from ESM and CommonJS (the examples of docs/client.md,
// run as they are), the sandbox in a node:test file, and the shipped declarations under tsc.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient } from '../../src/client/client.js';
import { tempDir } from '../support/harness.js';
import { linkTargets } from '../support/markdown.js';
import { ROOT } from '../support/spawn.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { fakeClock } from '../support/fake-clock.js';
import { KEYRING_TOOLS, startKeyringSession } from '../support/keyring-session.js';
import { needs } from '../support/tools.js';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const EXAMPLES = join(ROOT, 'examples', 'node');

let project: { dir: string; cleanup: () => void };
let fx: SandboxFixture;
let packed: { files: { path: string; size: number }[]; unpackedSize: number };
let manifestBeforePack = '';
let globalInstallStderr = '';

/** Runs `file` with node in the project, the sandbox's settings in its environment (no npm, no PATH lookups). */
function node(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number }> {
  return run(process.execPath, args, { cwd: project.dir, env: { PATH: process.env.PATH ?? '', HOME: project.dir, CRAWL_CONFIG_DIR: fx.configDir, ...env }, encoding: 'utf8' }).then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => ({ stdout: error.stdout, stderr: error.stderr, code: error.code }),
  );
}

beforeAll(async () => {
  fx = await sandboxFixture();
  project = tempDir('crawl-package-');
  const npmEnv = { ...process.env, npm_config_cache: join(project.dir, '.npm-cache'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  // dist/ is what `npm test` has just built; packing must not build it again (the prepack step
  // removes `prepare` from the manifest npm packs, and npm then runs none).
  manifestBeforePack = readFileSync(join(ROOT, 'package.json'), 'utf8');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', project.dir], { cwd: ROOT, env: npmEnv, encoding: 'utf8' });
  const [info] = JSON.parse(stdout) as [{ filename: string; files: { path: string; size: number }[]; unpackedSize: number }];
  packed = info;
  writeFileSync(join(project.dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  const tarball = join(project.dir, info.filename);
  await Promise.all([
    run('npm', ['install', '--omit=dev', '--prefer-offline', '--ignore-scripts', tarball], { cwd: project.dir, env: npmEnv, encoding: 'utf8' }),
    // `npm install -g`, into a prefix of its own: where the bin and the man pages land. Scripts
    // allowed, as a user's install has them: npm 11 warns of any the manifest carries.
    run('npm', ['install', '--global', '--prefix', join(project.dir, 'global'), '--prefer-offline', tarball], { cwd: project.dir, env: npmEnv, encoding: 'utf8' }).then(({ stderr }) => {
      globalInstallStderr = stderr;
    }),
  ]);
  for (const example of readdirSync(EXAMPLES)) copyFileSync(join(EXAMPLES, example), join(project.dir, example));
}, 120_000);

afterAll(async () => {
  await fx?.close();
  project?.cleanup();
});

describe('the tarball', () => {
  it('holds what runs and what users read, nothing else: no sources, tests, or build-machine code caches', () => {
    const paths = packed.files.map((f) => f.path).sort();
    const allowed = /^(bin\/crawl\.js|bin\/package\.json|dist\/launch\/[\w-]+\.cjs|dist\/bundle\/bundle\.pack|dist\/lib\/(client|sandbox)\.(cjs|mjs)|dist\/types(-cjs)?\/[\w/-]+\.d\.ts|dist\/types-cjs\/package\.json|dist\/man\/[\w-]+\.1|docs\/[\w-]+\.md|README\.md|LICENSE|CHANGELOG\.md|package\.json)$/;
    expect(paths.filter((p) => !allowed.test(p))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['bin/crawl.js', 'dist/bundle/bundle.pack', 'dist/lib/client.cjs', 'dist/types/client/index.d.ts', 'dist/types-cjs/client/index.d.ts', 'dist/types-cjs/package.json', 'dist/man/crawl.1', 'docs/commands.md', 'CHANGELOG.md']));
  });

  it('every relative link of a document it ships leads to a file it holds (the rest name the repository)', () => {
    const installed = join(project.dir, 'node_modules', ...pkg.name.split('/'));
    const shipped = packed.files.map((f) => f.path).filter((p) => p.endsWith('.md'));
    expect(shipped).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/ci.md']));
    let checked = 0;
    for (const page of shipped) {
      for (const target of linkTargets(readFileSync(join(installed, page), 'utf8'))) {
        const path = target.split('#')[0] ?? '';
        if (/^[a-z]+:/.test(target) || path === '') continue;
        expect(existsSync(resolve(dirname(join(installed, page)), path)), `${page}: ${target}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('a global install puts every man page where man looks (share/man/man1 of the prefix)', () => {
    const pages = readdirSync(join(ROOT, 'dist', 'man')).sort();
    expect(pages.length).toBeGreaterThan(20);
    expect(readdirSync(join(project.dir, 'global', 'share', 'man', 'man1')).sort()).toEqual(pages);
    expect(statSync(join(project.dir, 'global', 'bin', 'crawl')).isFile()).toBe(true);
  });

  it('installs one dependency: the native keyring binding (with its prebuilt part for this system), nothing else', () => {
    const top = readdirSync(join(project.dir, 'node_modules')).filter((name) => !name.startsWith('.')).sort();
    expect(top).toEqual(['@napi-rs', pkg.name.split('/')[0]].sort());
    expect(readdirSync(join(project.dir, 'node_modules', pkg.name))).not.toContain('node_modules');
    const lock = JSON.parse(readFileSync(join(project.dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const installed = Object.keys(lock.packages).filter((p) => p !== '' && p !== `node_modules/${pkg.name}`);
    expect(installed.length).toBeGreaterThan(0);
    for (const p of installed) expect(p).toMatch(/^node_modules\/@napi-rs\/keyring(-[\w-]+)?$/);
    expect(installed).toContain('node_modules/@napi-rs/keyring');
  });
});

describe('the installed package and the system keyring', needs(...KEYRING_TOOLS), () => {
  it('the bin logs in to a real Secret Service, and openClient() reads the key from it; the binding resolves from the install', async () => {
    const session = await startKeyringSession();
    try {
      const bin = join(project.dir, 'node_modules', '.bin', 'crawl');
      const config = join(project.dir, 'keyring-config');
      const env = { ...session.env, CRAWL_CONFIG_DIR: config, CRAWL_BASE_URL: fx.sandbox.url };
      const login = await new Promise<{ code: number; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, [bin, 'auth', 'login', '--with-key'], { cwd: project.dir, env: { PATH: process.env.PATH ?? '', ...env } }, (error, _stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
        );
        child.stdin?.end(fx.sandbox.key);
      });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain('The key is stored in the system keyring (Secret Service)');
      writeFileSync(join(project.dir, 'open-client.mjs'), `import { openClient } from '${pkg.name}';\nconst c = await openClient();\nconst job = await c.jobs.get('demo-small');\nawait c.close();\nconsole.log(job.id);\n`);
      const opened = await node(['open-client.mjs'], { ...env, HOME: session.home });
      expect(opened.stdout.trim(), opened.stderr).toBe('demo-small');
      const binding = await node(['-e', "require('@napi-rs/keyring'); console.log('loaded')"]);
      expect(binding.stdout.trim(), binding.stderr).toBe('loaded');
    } finally {
      await session.close();
    }
  });
});

describe('the packed manifest', () => {
  it('carries no script that only a clone uses: a global install asks nothing, and the clone keeps its prepare', () => {
    const installed = JSON.parse(readFileSync(join(project.dir, 'node_modules', pkg.name, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const name of ['prepare', 'prepack', 'postpack', 'preinstall', 'install', 'postinstall']) expect(installed.scripts?.[name], name).toBeUndefined();
    expect(installed.scripts?.build).toBeDefined();
    expect(globalInstallStderr).not.toMatch(/install-scripts|allow-scripts/);
    // The repository's own manifest is back as it was, byte for byte: `npm ci` in a clone still builds.
    expect(readFileSync(join(ROOT, 'package.json'), 'utf8')).toBe(manifestBeforePack);
    expect((JSON.parse(manifestBeforePack) as { scripts: Record<string, string> }).scripts.prepare).toBe('npm run build');
    expect(readdirSync(ROOT).filter((name) => name.startsWith('package.json.'))).toEqual([]);
  });
});

describe('the installed bin', () => {
  it('crawl --version, help (a page of the pack, and one it keeps), and a status read against the sandbox', async () => {
    const bin = join(project.dir, 'node_modules', '.bin', 'crawl');
    const version = await node([bin, '--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    expect(await node([bin, 'job', '--help'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: crawl job /) });
    const help = await node([bin, 'job', 'demo-small', '--help']);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: crawl job /) });
    expect(readdirSync(join(project.dir, '.cache', 'crawl', 'help'))).toHaveLength(1);
    expect(await node([bin, 'job', 'demo-small', '--help'])).toEqual(help);
    const status = await node([bin, 'job', 'demo-small', '--json'], fx.env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ job: { id: 'demo-small', status: 'completed' } });
  });
});

describe('the power-user parts, from the installed package', () => {
  it('--jq (its wasm in the pack), crawl api, the completion script and the man pages', async () => {
    const bin = join(project.dir, 'node_modules', '.bin', 'crawl');
    expect(await node([bin, 'job', 'demo-small', '--jq', '.job | [.id, .pagesTotal] | @tsv'], fx.env)).toMatchObject({ code: 0, stdout: 'demo-small\t42\n' });
    expect(await node([bin, 'api', 'api/crawl/demo-errored', '--jq', '.job.status'], fx.env)).toMatchObject({ code: 0, stdout: 'errored\n' });
    const completion = await node([bin, 'completion', 'bash']);
    expect(completion.code).toBe(0);
    expect(completion.stdout).toMatch(/^complete .*crawl$/m);
    const man = readdirSync(join(project.dir, 'node_modules', pkg.name, 'dist', 'man'));
    expect(man).toEqual(expect.arrayContaining(['crawl.1', 'crawl-job-watch.1', 'crawl-api.1', 'crawl-completion.1']));
  });
});

describe('the Node client, as docs/client.md shows it', () => {
  it('ESM: watch-then-export.mjs writes every record of a finished job, as sent', async () => {
    const result = await node(['watch-then-export.mjs', 'demo-small'], fx.env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(42);
    for (const line of lines) expect(JSON.parse(line)).toEqual(expect.any(Object));
    expect(result.stderr).toMatch(/^completed: 42\/42 pages$/m);
  });

  it('ESM: a job that does not exist ends with the CLI exit code 3', async () => {
    const result = await node(['watch-then-export.mjs', 'no-such-job'], fx.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: GET \/api\/crawl\/no-such-job failed: HTTP 404/m);
  });

  it('CommonJS: rotate-into-file.cjs stores the new key (0600) before the old one is revoked', async () => {
    const old = fx.sandbox.addKey('ci-rotated');
    const file = join(project.dir, 'new-key.txt');
    const result = await node(['rotate-into-file.cjs', file], { ...fx.env, CRAWL_API_KEY: old.key });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^rotated ${old.id} → \\S+ \\(crk_`));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const newKey = readFileSync(file, 'utf8').trim();
    expect(result.stdout).not.toContain(newKey);
    const client = makeClient({ baseUrl: fx.sandbox.url, apiKey: newKey }, { env: {}, clock: fakeClock(), nodeVersion: '20' });
    try {
      const keys = await client.keys.list();
      expect(keys.some((k) => k.id === old.id)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('CommonJS: a store that fails leaves the old key active, with the exit code said', async () => {
    const old = fx.sandbox.addKey('ci-kept');
    // The file exists already: the example's `wx` write refuses it.
    const file = join(project.dir, 'taken.txt');
    writeFileSync(file, 'someone else\n');
    const result = await node(['rotate-into-file.cjs', file], { ...fx.env, CRAWL_API_KEY: old.key });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rotation stopped at store: store\(\) did not keep the new key \(EEXIST.*the new key was revoked again; the old key is still active$/m);
    expect(readFileSync(file, 'utf8')).toBe('someone else\n');
    expect(fx.sandbox.requests.some((r) => r.method === 'DELETE' && r.url === `/api/keys/${old.id}`)).toBe(false);
  });

  it('one implementation for import and require: the same classes', async () => {
    writeFileSync(
      join(project.dir, 'same.mjs'),
      `import { createRequire } from 'node:module';\nimport * as esm from '${pkg.name}';\nimport * as sandbox from '${pkg.name}/sandbox';\nconst cjs = createRequire(import.meta.url)('${pkg.name}');\nconsole.log(esm.CrawlError === cjs.CrawlError, esm.createClient === cjs.createClient, typeof sandbox.startSandbox);\n`,
    );
    expect(await node(['same.mjs'])).toMatchObject({ code: 0, stdout: 'true true function\n' });
  });

  it('an error left uncaught prints its own line of the library, not the whole library', async () => {
    // No base URL anywhere: createClient throws a UsageError, and Node prints the line it came from.
    const result = await node(['-e', `require('${pkg.name}').createClient({ env: {} })`], { CRAWL_CONFIG_DIR: join(project.dir, 'no-config') });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^UsageError: /m);
    expect(result.stderr).toMatch(/client\.cjs:\d+/);
    // Node shows the source line above the error; a library of one minified line made that line
    // the whole library (tens of kilobytes).
    expect(result.stderr.length).toBeLessThan(4_000);
  });

  it('the sandbox in a node:test file (the example test of docs/client.md) passes', async () => {
    // TAP on every Node: newer ones default to the spec reporter even in a pipe.
    const result = await node(['--test', '--test-reporter=tap', 'sandbox.test.mjs']);
    expect(result.stdout).toMatch(/^# pass 2$/m);
    expect(result.code).toBe(0);
  });
});

describe('the shipped declarations', () => {
  /**
   * TypeScript's checker over `files` (in the project) with the given module options, @types/node,
   * strict, no emit: the errors as tsc prints them to a pipe. One compiler for both checks: a file
   * that both read with the same parse options (TypeScript's libs, @types/node) is parsed once.
   */
  const parsed = new Map<string, ts.SourceFile | undefined>();
  const tsc = (files: string[], module: ts.ModuleKind, moduleResolution: ts.ModuleResolutionKind): string => {
    // exactOptionalPropertyTypes: a consumer that passes `undefined` for an option left out (as
    // `process.env.X` gives) must check too.
    const options: ts.CompilerOptions = { noEmit: true, strict: true, exactOptionalPropertyTypes: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], skipLibCheck: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')], module, moduleResolution };
    const host = ts.createCompilerHost(options);
    const parse = host.getSourceFile.bind(host);
    host.getSourceFile = (file, language, ...rest) => {
      const key = `${file}\0${JSON.stringify(language)}`;
      if (!parsed.has(key)) parsed.set(key, parse(file, language, ...rest));
      return parsed.get(key);
    };
    const program = ts.createProgram(files.map((file) => join(project.dir, file)), options, host);
    return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), { getCurrentDirectory: () => project.dir, getCanonicalFileName: (file) => file, getNewLine: () => '\n' });
  };

  it('type-check a consumer from ESM and from CommonJS, and catch a mistake in one', async () => {
    writeFileSync(
      join(project.dir, 'consumer.mts'),
      `import { createClient, CrawlError, RotationError, type Job } from '${pkg.name}';
import { startSandbox, type EmbeddedSandbox } from '${pkg.name}/sandbox';
const sandbox: EmbeddedSandbox = await startSandbox({ seed: false });
const client = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.bootstrapKey, timeoutMs: 5000, profile: process.env.CRAWL_PROFILE });
const job: Job = await client.jobs.get('x').catch((e: unknown) => { if (e instanceof CrawlError) return { id: 'x', status: String(e.exitCode) }; throw e; });
for await (const state of client.jobs.watch(job.id, { intervalMs: 10, maxWaitMs: 100 })) console.log(state.status);
for await (const line of client.jobs.pages(job.id, { raw: true })) console.log(line.length);
const raw: boolean = process.argv.length > 2;
for await (const record of client.jobs.pages(job.id, { raw, limit: undefined })) console.log(record);
const r = await client.keys.rotate({ store: async (key: string) => void key }).catch((e: unknown) => (e instanceof RotationError ? e.secret() : undefined));
console.log(r, (await client.keys.list()).map((k) => k.keyPrefix));
await client.close();
`,
    );
    writeFileSync(
      join(project.dir, 'consumer.cts'),
      `import crawl = require('${pkg.name}');
const client = crawl.createClient();
client.jobs.cancel('x', { wait: true }).then((job) => console.log(job.status, crawl.ExitCode.waitElapsed));
`,
    );
    writeFileSync(join(project.dir, 'mistake.mts'), `import { createClient } from '${pkg.name}';\nawait createClient().jobs.get(42);\n`);
    // One check of the three (it is most of this file's time): the consumers check clean, the mistake does not.
    // --skipLibCheck spares checking @types/node; a declaration of ours that did not resolve would
    // turn the client into `any`, and the mistake below would then pass unnoticed: it is the guard.
    // A CommonJS project on the older resolution (node10, the default of `module: commonjs`),
    // which reads no `exports`: the sandbox's types through `typesVersions`.
    writeFileSync(
      join(project.dir, 'legacy.ts'),
      `import { createClient, type JobStatus } from '${pkg.name}';
import { startSandbox } from '${pkg.name}/sandbox';
const done: JobStatus = 'completed';
void startSandbox({ seed: false }).then(async (sandbox) => {
  const job = await createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.bootstrapKey }).jobs.get('x');
  console.log(job.status === done, job.status === 'some status the interface does not show');
});
`,
    );
    const checked = tsc(['consumer.mts', 'consumer.cts', 'mistake.mts'], ts.ModuleKind.NodeNext, ts.ModuleResolutionKind.NodeNext);
    expect(checked).toBe("mistake.mts(2,31): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.\n");
    expect(tsc(['legacy.ts'], ts.ModuleKind.CommonJS, ts.ModuleResolutionKind.Node10)).toBe('');
    // A CommonJS file on node16 (@tsconfig/node20's setting), which may not require an ES module:
    // `require` gets declarations read as CommonJS.
    expect(tsc(['consumer.cts'], ts.ModuleKind.Node16, ts.ModuleResolutionKind.Node16)).toBe('');
  });
});

describe("the client's documentation (docs/client.md)", () => {
  it('shows each example as it is in examples/node/ (the files this suite runs)', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8');
    for (const example of readdirSync(EXAMPLES)) expect(doc, example).toContain(readFileSync(join(EXAMPLES, example), 'utf8'));
  });
});
