// Loads the bundled CLI (dist/bundle/bundle.pack) with V8's code cache.
//
// Why: most of a short command's time is Node reading and compiling JavaScript. Node 20 keeps no
// compile cache of its own (NODE_COMPILE_CACHE came in Node 22), and its ES module loader accepts
// none, so the bundle is CommonJS and this loader compiles each of its files with the cache its
// earlier runs left in the user's cache folder (src/launch/user-cache.cts): V8 then skips parsing
// and the functions the command runs arrive compiled. The first run of each kind compiles as
// usual and leaves that cache, in a checkout as in an installed package. Without a usable cache
// (another Node version, other V8 flags, a missing or damaged file) V8 rejects it and compiles as
// usual: slower, never different.
//
// The bundle's modules (esbuild splits it at every dynamic import) are packed into one file, a few
// modules to each of its files (those loaded together: src/build/containers.ts), and their caches
// into one file. A command reads each pack's index, then only the files that hold the modules it
// loads: every byte read costs its share of start-up (copied, then turned into a string), and so
// does every file compiled.
import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { join, sep } from 'node:path';
// Types only: node:vm is required by loadBundle, so a help page from the cache never loads it.
import type * as Vm from 'node:vm';
// Types only: the modules themselves are required when needed (see loadBundle and start).
import type * as UserCacheModule from './user-cache.cjs';
import type * as HelpCacheModule from './help-cache.cjs';

type UserCache = typeof UserCacheModule;

type ModuleFunction = (exports: unknown, require: (id: string) => unknown, module: { exports: unknown }, filename: string, dirname: string) => void;

export interface CacheReport {
  /** The file of the pack, as named there (`main.cjs`, `chunks/…`). */
  file: string;
  /** The bundle modules it holds (the file's own name first, when it is a module's). */
  modules: string[];
  /** undefined: there was no cache for it; true: V8 refused the one there was. */
  rejected: boolean | undefined;
}

interface Compiled extends CacheReport {
  script: Vm.Script;
}

/** What the launcher wants to hear of a run (src/main.ts). */
export interface Launch {
  /** The run printed this help page, whole, and ended with exit code 0, laid out so. */
  helpShown?: (text: string, layout: HelpCacheModule.HelpLayout) => void;
}

export interface Bundle {
  /** Runs the CLI and exits the process with its exit code (bin/crawl.js). */
  run: (argv: string[], launch?: Launch) => void;
  /** Runs the CLI and resolves with its exit code, leaving the process alone. */
  main: (argv: string[]) => Promise<number>;
  /** What happened to each file's code cache so far (for the benchmark and the tests). */
  report: () => CacheReport[];
  /** The bundle's modules that have run so far, in the order they started (for the tests). */
  modules: () => string[];
}

/**
 * A pack's index: each file's [offset, length] by its name; a module packed into a file named
 * otherwise, by the name of that file.
 */
export type PackIndex = Record<string, [number, number] | string>;

/** A pack: a build line, a JSON index, then the data. */
interface Pack {
  path: string;
  /**
   * Open for the life of the process: a file loaded late (the HTTP layer, say) comes from the
   * same build as the rest even if an upgrade replaces the pack meanwhile.
   */
  fd: number;
  build: string;
  index: PackIndex;
  /** Where the data begins in the file. */
  start: number;
}

export const PACK = 'bundle.pack';

/**
 * A bundle file's `require('crawl-asset:<name>')` gets the bytes the pack holds under `<name>`
 * (src/build/wasm-assets.ts): read when first asked for, like the bundle's files.
 */
export const ASSET_PREFIX = 'crawl-asset:';

/**
 * Whether this command line may talk to the service: help never does. The one place argv is read
 * before commander, for one reason: the V8 flag the HTTP layer wants (see src/http/undici.ts) must
 * be set before anything is compiled, since V8 takes a code cache only under the flags it was made
 * with; so each of the two kinds of run has a cache of its own, and help does not pay for loading
 * node:v8. A wrong answer costs only speed.
 */
export function talksToService(argv: readonly string[]): boolean {
  return !(argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h'));
}

/**
 * A line of at most three command words ending in --help or -h: a help page the cache may hold
 * (bin/crawl.js tests the same before it prints the page the pack holds for it off a terminal).
 */
const HELP_PAGE_LINE = /^(?:[a-z][a-z0-9-]*\0){0,3}(?:--help|-h)$/;

/**
 * What bin/crawl.js runs, when it has not answered itself (`--version`, and off a terminal the
 * help page the build packed). A line that only asks for a help page (`crawl job --help` on a
 * terminal, whose width is known only then, or a line the build made no page for) gets the page
 * it printed before at this layout, from the user's cache (help-cache.cts), with none of the
 * bundle read; the first time, the bundle runs and the page it printed is kept.
 */
export function start(dir: string, argv: string[]): void {
  if (!HELP_PAGE_LINE.test(argv.join('\0'))) return loadBundle(dir, { argv }).run(argv);
  const { helpCache, layoutNow, printHelpPage } = require('./help-cache.cjs') as typeof HelpCacheModule;
  const pack = readPack(join(dir, PACK));
  const cache = helpCache(pack.build, argv, layoutNow());
  if (cache.text !== undefined && printHelpPage(cache.text)) return;
  loadBundle(dir, { argv }, pack).run(argv, { helpShown: (text, at) => cache.keep(text, at) });
}

/**
 * The name in the pack of the help page the build made for `crawl <words> --help` (or -h) off a
 * terminal: one for the root, each group and each command (src/build/bundle.ts; bin/crawl.js,
 * which prints them, spells the name the same way).
 */
export function helpPageName(words: readonly string[]): string {
  return `help/${words.join(' ')}`;
}

/**
 * The name in the pack of what `crawl completion <shell>` prints: the same on any stdout, in any
 * environment, so bin/crawl.js prints it from the pack (and spells the name the same way). Shells
 * run that line at every start when an rc file evals its output.
 */
export function completionScriptName(shell: string): string {
  return `completion/${shell}`;
}

/** The groups whose commands send requests to the service. */
const REQUEST_GROUPS = ['job', 'keys', 'auth', 'api'];
/** The commands that use the network: those, and the sandbox that answers them. */
const NETWORK_COMMANDS = [...REQUEST_GROUPS, 'sandbox'];
/**
 * Not a module: the globals jq's runtime reads, whose modules Node loads on first use (Web Crypto's
 * random numbers, its random source; `navigator`, where Node has one, which it looks at).
 */
export const JQ_GLOBALS = 'jq-globals';

/**
 * The built-ins a run of this command line will load, as far as the line and the environment tell:
 * node:os and node:process always; for a command that uses the network, node:net (which brings
 * Node's performance timing) and node:diagnostics_channel; for one that sends requests, node:tls
 * unless the service is plain http:// (CRAWL_BASE_URL or --base-url say so), and otherwise
 * node:crypto when no CRAWL_API_KEY is set (the key may come from the system keyring, whose
 * session is encrypted). With --jq, what jq's runtime loads: node:fs/promises, and what the
 * globals it reads load (JQ_GLOBALS). A guess that misses costs that module's loading, with its
 * cache.
 */
export function builtinsBeforeFlags(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const always = ['node:os', 'node:process'];
  if (!NETWORK_COMMANDS.some((command) => argv.includes(command))) return always;
  const network = [...always, 'node:diagnostics_channel', 'node:net'];
  if (!REQUEST_GROUPS.some((group) => argv.includes(group))) return network;
  // `-q` is gh's short form; `-q.x` gives the filter in the same word.
  const jq = argv.some((word) => word === '--jq' || word.startsWith('--jq=') || word.startsWith('-q')) ? ['node:fs/promises', JQ_GLOBALS] : [];
  const at = argv.lastIndexOf('--base-url');
  const flagged = argv.find((word) => word.startsWith('--base-url='))?.slice('--base-url='.length);
  const baseUrl = (at >= 0 ? argv[at + 1] : flagged) ?? env.CRAWL_BASE_URL ?? '';
  if (!/^http:/i.test(baseUrl)) return [...network, 'node:tls', ...jq];
  return env.CRAWL_API_KEY ? [...network, ...jq] : [...network, 'node:crypto', ...jq];
}

/** Loads what `builtinsBeforeFlags` names: a module, or the globals jq reads (each used once). */
function loadBuiltin(entry: string): void {
  if (entry !== JQ_GLOBALS) {
    require(entry);
    return;
  }
  const globals = globalThis as { crypto?: { getRandomValues(array: Uint8Array): Uint8Array }; navigator?: unknown };
  globals.crypto?.getRandomValues(new Uint8Array(1));
  void globals.navigator;
}

export interface LoadOptions {
  argv: readonly string[];
}

/**
 * What a code cache must have been made for: this build, this kind of run, this Node (its V8) on
 * this system and architecture. The first line of every cache pack; a pack made for another is not offered
 * to V8 at all. (V8 also refuses a cache made under other V8 flags, as NODE_OPTIONS may set: that
 * costs speed only.)
 */
function cacheKey(build: string, kind: string): string {
  return JSON.stringify([build, kind, process.version, process.platform, process.arch]);
}

export function loadBundle(dir: string, options: LoadOptions, pack: Pack = readPack(join(dir, PACK))): Bundle {
  const { Script, constants: vmConstants } = require('node:vm') as typeof Vm;
  const http = talksToService(options.argv);
  const kind = http ? 'http' : 'help';
  const key = cacheKey(pack.build, kind);
  // The cache of this build, kind of run and Node, kept by the runs before in the user's folder.
  let userCache: UserCache | undefined;
  let cachePath = '';
  let caches: Pack | undefined;
  if (pack.build !== '') {
    userCache = require('./user-cache.cjs') as UserCache;
    const folder = userCache.userCacheDir(process.env);
    if (folder === undefined) userCache = undefined;
    else {
      cachePath = join(folder, 'code-cache', userCache.cacheFileName(pack.build, kind, process.version, process.arch));
      caches = userCache.isPrivate(cachePath) ? readCachePack(cachePath, key) : undefined;
    }
  }
  if (http) {
    // Node's own modules come with code caches made under its default flags, which V8 refuses
    // once a flag is set: a built-in loaded after the one below is compiled from its source (and
    // its cache made again). So the ones this run will load come first.
    for (const entry of builtinsBeforeFlags(options.argv, process.env)) loadBuiltin(entry);
    // undici compiles its HTTP parser to WebAssembly; after a few hundred responses V8 would
    // recompile it with TurboFan, whose scratch memory is never given back and whose background
    // work keeps a finished process alive a while. Liftoff's code is plenty for a parser that
    // skips bodies by Content-Length. Required here, not at the top: node:v8 costs milliseconds.
    (require('node:v8') as { setFlagsFromString(flags: string): void }).setFlagsFromString('--liftoff-only');
  }

  // The files compiled so far, the modules they define, and the modules run so far.
  const compiled = new Map<string, Compiled>();
  const defined = new Map<string, ModuleFunction>();
  const modules = new Map<string, { exports: unknown }>();

  // Each file's source, then its cache, is read into one buffer, used again for every file: V8
  // copies the source into a string and reads the cache while it compiles, and neither keeps the
  // buffer after. A buffer per read would be fresh memory each time, and on some machines (virtual
  // ones above all) the first touch of each page costs more than reading the bytes into it.
  const scratch = new Scratch();
  const compile = (file: string): void => {
    const code = readPart(pack, file, scratch);
    if (code === undefined) throw new Error(`the bundle has no ${file}, or ${pack.path} is damaged: run \`npm run build\``);
    // The build's files are ASCII (esbuild escapes what is not, but in regular expressions): read as
    // latin1 they make the same string without UTF-8's decoding, and V8 keeps it one byte a character.
    const source = code.toString(isAscii(code) ? 'latin1' : 'utf8');
    const cachedData = readPart(caches, file, scratch);
    // The build wrapped each file in `(function (define) {...})`: no string is built around it here.
    const script = new Script(source, {
      filename: join(dir, file),
      cachedData,
      // Nothing in the bundle imports dynamically (the build turns imports into requires), but
      // should anything, it gets Node's own loader rather than an error.
      // (vm.constants is missing before Node 20.16; optional, then.)
      importModuleDynamically: (vmConstants as typeof vmConstants | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const entry: Compiled = { script, file, modules: [], rejected: cachedData ? script.cachedDataRejected === true : undefined };
    compiled.set(file, entry);
    const define = (name: string, module: ModuleFunction): void => {
      defined.set(name, module);
      entry.modules.push(name);
    };
    (script.runInThisContext() as (define: (name: string, module: ModuleFunction) => void) => void)(define);
  };

  const load = (name: string): unknown => {
    const known = modules.get(name);
    // As in Node: a module required again while it is still running gets its exports so far.
    if (known) return known.exports;
    if (!defined.has(name)) {
      const where = pack.index[name];
      compile(typeof where === 'string' ? where : name);
    }
    const run = defined.get(name);
    if (run === undefined) throw new Error(`the bundle has no ${name}, or ${pack.path} is damaged: run \`npm run build\``);
    const module = { exports: {} as unknown };
    modules.set(name, module);
    // Anything else is one of Node's built-ins: every package is in the bundle.
    const requireFrom = (id: string): unknown =>
      id.startsWith('./') || id.startsWith('../')
        ? load(resolveIn(name, id))
        : id.startsWith(ASSET_PREFIX)
          ? asset(id.slice(ASSET_PREFIX.length))
          : require(id);
    const filename = dir + sep + (sep === '/' ? name : name.split('/').join(sep));
    run.call(module.exports, module.exports, requireFrom, module, filename, filename.slice(0, filename.lastIndexOf(sep)));
    return module.exports;
  };

  const assets = new Map<string, Buffer>();
  const asset = (name: string): Buffer => {
    let bytes = assets.get(name);
    if (bytes === undefined) {
      bytes = readPart(pack, name);
      if (bytes === undefined) throw new Error(`the bundle has no ${name}, or ${pack.path} is damaged: run \`npm run build\``);
      assets.set(name, bytes);
    }
    return bytes;
  };

  /** What this run compiled, over what earlier runs left for the files it did not load. */
  /**
   * What this run compiled, over what the cache holds now for the files it did not load: read again
   * at exit, since runs of other commands may have added to it meanwhile (runs in parallel, as a
   * script or a test suite makes them, would otherwise undo each other's additions).
   */
  const cachePack = (): Buffer => {
    const blobs = new Map<string, Buffer>();
    const now = (userCache?.isPrivate(cachePath) === true ? readCachePack(cachePath, key) : undefined) ?? caches;
    for (const name of Object.keys(now?.index ?? {})) {
      const blob = readPart(now, name);
      if (blob) blobs.set(name, blob);
    }
    if (now !== caches && now !== undefined) closeSync(now.fd);
    for (const entry of compiled.values()) blobs.set(entry.file, entry.script.createCachedData());
    return encodePack(key, blobs);
  };
  if (userCache !== undefined) {
    const { writeCodeCache } = userCache;
    // Only when this run compiled a file without a cache: once a kind of command has run, its
    // later runs write nothing.
    process.on('exit', () => {
      if ([...compiled.values()].some((entry) => entry.rejected !== false)) writeCodeCache(cachePath, pack.build, cachePack());
    });
  }

  const { run, main } = load('main.cjs') as Pick<Bundle, 'run' | 'main'>;
  return {
    run,
    main,
    report: () => [...compiled.values()].map(({ file, modules, rejected }) => ({ file, modules, rejected })),
    modules: () => [...modules.keys()],
  };
}

/**
 * The module `id` (`./x.cjs`, `../chunks/y.cjs`: what the bundle's requires name) of the module
 * `from`, both named as in the pack. Spelled out rather than with node:path: it runs for every
 * require of every module, and path's normalisation got hot enough for V8 to optimise it, in the
 * background, on every run.
 */
export function resolveIn(from: string, id: string): string {
  // What the bundle's requires name: leading `./` and `../`, then a path without dots. Read in
  // place, with no arrays: a status read makes some hundreds of these, and their garbage counted
  // towards a scavenge.
  let folderEnd = from.lastIndexOf('/');
  let at = 0;
  for (;;) {
    if (id.startsWith('./', at)) at += 2;
    else if (id.startsWith('../', at)) {
      at += 3;
      folderEnd = folderEnd <= 0 ? -1 : from.lastIndexOf('/', folderEnd - 1);
    } else break;
  }
  if (id.includes('/.', at) || id.startsWith('.', at)) return resolveParts(from, id);
  return folderEnd < 0 ? id.slice(at) : from.slice(0, folderEnd + 1) + id.slice(at);
}

/** Any other relative id, part by part. */
function resolveParts(from: string, id: string): string {
  const parts = from.split('/');
  parts.pop();
  for (const part of id.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.') parts.push(part);
  }
  return parts.join('/');
}

/** `build\n{index}\n` then the data: what the build writes and the cache packs reuse. */
export function encodePack(build: string, files: ReadonlyMap<string, Buffer>, packed: PackIndex = {}): Buffer {
  const index: PackIndex = { ...packed };
  let offset = 0;
  for (const [name, data] of files) {
    index[name] = [offset, data.length];
    offset += data.length;
  }
  return Buffer.concat([Buffer.from(`${build}\n${JSON.stringify(index)}\n`), ...files.values()]);
}

function readPack(path: string): Pack {
  const pack = openPack(path);
  if (pack === undefined) throw new Error(`${path} is damaged: run \`npm run build\``);
  return pack;
}

/** The cache pack made under this very key, or nothing (then every file compiles as usual). */
function readCachePack(path: string, key: string): Pack | undefined {
  let pack: Pack | undefined;
  try {
    pack = openPack(path);
  } catch {
    return undefined;
  }
  return pack !== undefined && pack.build === key ? pack : undefined;
}

/** The pack's build line and index, read from its head (a few KB), or undefined if it has none. */
function openPack(path: string): Pack | undefined {
  const fd = openSync(path, 'r');
  let pack: Pack | undefined;
  try {
    let head = Buffer.alloc(0);
    // The head of the bundle's pack (its index) is a few KB: one read, as a rule.
    for (let chunk = 16384; pack === undefined; chunk *= 4) {
      const more = Buffer.allocUnsafe(chunk);
      const read = readSync(fd, more, 0, chunk, head.length);
      head = Buffer.concat([head, more.subarray(0, read)]);
      const first = head.indexOf(10);
      const second = first < 0 ? -1 : head.indexOf(10, first + 1);
      if (second >= 0) pack = decodeHead(path, fd, head, first, second);
      if (second >= 0 || read < chunk) break;
    }
  } finally {
    if (pack === undefined) closeSync(fd);
  }
  return pack;
}

function decodeHead(path: string, fd: number, head: Buffer, first: number, second: number): Pack | undefined {
  let index: unknown;
  try {
    index = JSON.parse(head.toString('utf8', first + 1, second));
  } catch {
    return undefined;
  }
  if (typeof index !== 'object' || index === null) return undefined;
  return { path, fd, build: head.toString('latin1', 0, first), index: index as Pack['index'], start: second + 1 };
}

/** A buffer lent to one read at a time, grown to the largest asked of it. */
class Scratch {
  #buffer = Buffer.alloc(0);

  take(length: number): Buffer {
    if (this.#buffer.length < length) this.#buffer = Buffer.allocUnsafeSlow(length);
    return this.#buffer.subarray(0, length);
  }
}

/**
 * One file's bytes from a pack, or undefined when the index or the file is not whole (or it is a
 * module packed into another). Into `scratch` when given: then the bytes are good until its next read.
 */
function readPart(pack: Pack | undefined, name: string, scratch?: Scratch): Buffer | undefined {
  const at = pack?.index[name];
  if (pack === undefined || !Array.isArray(at) || at.length !== 2) return undefined;
  const [offset, length] = at;
  if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length <= 0) return undefined;
  const data = scratch === undefined ? Buffer.allocUnsafe(length) : scratch.take(length);
  try {
    return readSync(pack.fd, data, 0, length, pack.start + offset) === length ? data : undefined;
  } catch {
    return undefined;
  }
}
