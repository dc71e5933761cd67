// Loads the bundled CLI (dist/bundle, CommonJS) with V8's code cache.
//
// Why: most of a short command's time is Node compiling JavaScript. Node 20 keeps no compile
// cache of its own (NODE_COMPILE_CACHE came in Node 22), and its ES module loader accepts none,
// so the bundle is CommonJS and this loader compiles each file with the cache made for it at
// build time (`npm run build`, src/build/warm.ts): V8 then skips parsing and the functions the
// command runs arrive compiled. Without a usable cache (another Node version, other V8 flags,
// a missing or damaged file) V8 rejects it and compiles as usual: slower, never different.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';

type ModuleFunction = (exports: unknown, require: (id: string) => unknown, module: { exports: unknown }, filename: string, dirname: string) => void;

export interface CacheReport {
  file: string;
  /** undefined: there was no cache for it; true: V8 refused the one there was. */
  rejected: boolean | undefined;
}

interface Loaded extends CacheReport {
  /** As in Node: a file required again while it is still running gets its exports so far. */
  module: { exports: unknown };
  script: Script;
  build: string;
}

export interface Bundle {
  /** Runs the CLI and exits the process with its exit code (bin/crawl.js). */
  run: (argv: string[]) => void;
  /** Runs the CLI and resolves with its exit code, leaving the process alone. */
  main: (argv: string[]) => Promise<number>;
  /** What happened to each file's code cache so far (for the benchmark and the tests). */
  report: () => CacheReport[];
}

const BUILD_LINE = /^\/\/ crawl build ([0-9a-f]+)\n/;

export interface LoadOptions {
  /**
   * The command may talk to the service. Then the V8 flag the HTTP layer wants (see
   * src/http/undici.ts) is set now, before anything is compiled: V8 takes a code cache only under
   * the flags it was made with, so each of the two kinds of run has a cache of its own. Help,
   * which never does, is spared loading node:v8 at all.
   */
  http: boolean;
  /**
   * When the process exits, store each loaded file's code cache beside it (the build runs a few
   * commands this way). Each run starts from the cache the previous one left, so the functions
   * every run needed accumulate.
   */
  writeCache?: boolean;
}

export function loadBundle(dir: string, options: LoadOptions): Bundle {
  const loaded = new Map<string, Loaded>();
  const cacheSuffix = options.http ? '.http.cache' : '.cache';
  if (options.http) {
    // Required here, not at the top: loading node:v8 costs more than a millisecond.
    (require('node:v8') as typeof import('node:v8')).setFlagsFromString('--liftoff-only');
  }

  const load = (file: string): unknown => {
    const known = loaded.get(file);
    if (known) return known.module.exports;
    const source = readFileSync(file, 'utf8');
    const build = BUILD_LINE.exec(source)?.[1] ?? '';
    const cachedData = readCache(file + cacheSuffix, build);
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      cachedData,
      // Nothing in the bundle imports dynamically (the build turns imports into requires), but
      // should anything, it gets Node's own loader rather than an error.
      // (vm.constants is missing before Node 20.16; optional, then.)
      importModuleDynamically: (vmConstants as typeof vmConstants | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const module = { exports: {} as unknown };
    loaded.set(file, { module, script, file, build, rejected: cachedData ? script.cachedDataRejected === true : undefined });
    // Anything else is one of Node's built-ins: every package is in the bundle.
    const requireFrom = (id: string): unknown => (id.startsWith('./') || id.startsWith('../') ? load(resolve(dirname(file), id)) : require(id));
    const run = script.runInThisContext() as ModuleFunction;
    run.call(module.exports, module.exports, requireFrom, module, file, dirname(file));
    return module.exports;
  };

  if (options.writeCache) {
    process.on('exit', () => {
      for (const entry of loaded.values()) {
        writeFileSync(entry.file + cacheSuffix, Buffer.concat([Buffer.from(`${entry.build}\n`), entry.script.createCachedData()]));
      }
    });
  }

  const { run, main } = load(join(dir, 'main.cjs')) as Pick<Bundle, 'run' | 'main'>;
  return {
    run,
    main,
    report: () => [...loaded.values()].map(({ file, rejected }) => ({ file, rejected })),
  };
}

/** The cache made for this very build, or nothing. */
function readCache(path: string, build: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return undefined;
  }
  const newline = data.indexOf(10);
  if (build === '' || newline < 0 || data.toString('latin1', 0, newline) !== build) return undefined;
  return data.subarray(newline + 1);
}
