// Builds dist/bundle: the CLI as a few CommonJS files that bin/crawl.js loads with V8's code
// cache (see src/launch/load-bundle.cts for why CommonJS and why a code cache).
//
// esbuild splits only ES modules, so the CLI is bundled as ESM first (each command's code stays
// behind the dynamic import that loads it) and every output file is then turned into CommonJS,
// then packed with the files it is loaded with (containers.ts) into one file of the pack.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { build, transform } from 'esbuild';
import { completionScriptName, encodePack, helpPageName, PACK, type PackIndex } from '../launch/load-bundle.cjs';
import { SHELLS } from '../commands/completion/completion.js';
import { commandHelps, helpOf } from './help-text.js';
import { containers, type OutputFile } from './containers.js';
import { deferRequires } from './defer-requires.js';
import { patchUndici } from './patch-undici.js';
import { wasmAssets } from './wasm-assets.js';
import { BUNDLE_DIR, MODULES, ROOT } from './paths.js';

async function main(): Promise<void> {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const wasm = wasmAssets();
  const result = await build({
    entryPoints: { main: join(ROOT, 'src', 'main.ts') },
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: BUNDLE_DIR,
    outExtension: { '.js': '.cjs' },
    chunkNames: 'chunks/[name]-[hash]',
    define: { __CRAWL_VERSION__: JSON.stringify(version) },
    plugins: [deferRequires, patchUndici, wasm.plugin],
    // The keyring binding is native: the package's one runtime dependency, required from where npm put it.
    external: ['@napi-rs/keyring'],
    minifyWhitespace: true,
    minifySyntax: true,
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  const name = (path: string): string => relative(BUNDLE_DIR, join(ROOT, path)).split(sep).join('/');
  const outputs = new Map<string, OutputFile>(
    Object.entries(result.metafile.outputs).map(([path, output]) => [
      name(path),
      {
        imports: output.imports.filter((i) => i.kind === 'import-statement' && i.external !== true).map((i) => name(i.path)),
        dynamicImports: output.imports.filter((i) => i.kind === 'dynamic-import' && i.external !== true).map((i) => name(i.path)),
        entryPoint: output.entryPoint,
      },
    ]),
  );

  const files = await Promise.all(
    result.outputFiles.map(async (file) => ({ path: file.path, code: asciiOnly(await toCommonJS(file.text, file.path), file.path) })),
  );
  // One file for all, of which a command reads the files it loads (and the assets they ask for).
  // Each file of the pack defines the modules packed into it; each module is the function
  // CommonJS would wrap it in, strict, as the ES modules they were (esbuild's CommonJS output
  // does not say so itself). In parentheses, which V8 reads as "called soon": it compiles the
  // module's body with the file, rather than skimming it then and parsing it again when the
  // module runs: a first run, which has no code cache yet, parses less.
  const into = containers(outputs);
  const bodies = new Map<string, string[]>();
  const index: PackIndex = {};
  for (const file of files) {
    const module = relative(BUNDLE_DIR, file.path).split(sep).join('/');
    const container = into.get(module) ?? module;
    if (container !== module) index[module] = container;
    let body = bodies.get(container);
    if (body === undefined) bodies.set(container, (body = []));
    body.push(`define(${JSON.stringify(module)}, (function (exports, require, module, __filename, __dirname) {'use strict';\n${file.code}\n}));\n`);
  }
  // Each file of the pack is the function the loader runs with its `define` (src/launch/load-bundle.cts).
  const packed = new Map([...bodies].map(([container, body]) => [container, Buffer.from(`(function (define) {${body.join('')}\n})`)]));
  for (const [asset, bytes] of wasm.assets) packed.set(asset, Buffer.from(bytes));
  // Every command's help as a pipe gets it (80 columns), which the launcher prints without the
  // bundle; printed by the CLI just emitted to dist/, as the man pages and docs/commands.md are.
  const { root, groups, commands } = await commandHelps({ columns: 80, terminal: false });
  for (const page of [{ words: [], help: root }, ...groups, ...commands]) packed.set(helpPageName(page.words), Buffer.from(page.help));
  // And each shell's completion script, which bin/crawl.js prints the same way, on any stdout.
  for (const shell of SHELLS) {
    const script = await helpOf(['completion', shell], { columns: 80, terminal: false });
    // A CLI that failed prints its error on stderr and nothing here: no empty script is packed.
    if (!script.startsWith('#')) throw new Error(`crawl completion ${shell} printed no script`);
    packed.set(completionScriptName(shell), Buffer.from(script));
  }
  // One id for the whole build: a code cache is only ever used with the build it was made from.
  const hash = createHash('sha256');
  for (const [file, bytes] of packed) hash.update(`${file}\0`).update(bytes);
  const id = hash.digest('hex').slice(0, 16);
  await rm(BUNDLE_DIR, { recursive: true, force: true });
  await mkdir(BUNDLE_DIR, { recursive: true });
  await writeFile(join(BUNDLE_DIR, PACK), encodePack(id, packed, index));
  // What each module of the pack was made from, for the tests that check what a command runs (not shipped).
  const sources = Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([path, output]) => [name(path), Object.keys(output.inputs).filter((input) => (output.inputs[input]?.bytesInOutput ?? 0) > 0)]),
  );
  await writeFile(join(BUNDLE_DIR, MODULES), JSON.stringify(sources, null, 1) + '\n');
  const size = files.reduce((sum, f) => sum + Buffer.byteLength(f.code), 0);
  process.stdout.write(`bundle: ${files.length} modules in ${bodies.size} files, ${Math.round(size / 1024)} KB in ${relative(ROOT, join(BUNDLE_DIR, PACK))} (build ${id})\n`);
}

/**
 * One ESM output file as CommonJS. Dynamic imports become requires, which the loader serves from
 * the code cache. esbuild wraps each in its interop helper; for a `.cjs` file it honours the
 * __esModule mark our chunks carry, so `(await import('./x')).name` still works. Its Node mode
 * (`__toESM(..., 1)`) would not, and would break every command: the build refuses it.
 */
async function toCommonJS(code: string, path: string): Promise<string> {
  const out = await transform(code, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    minifySyntax: true,
    sourcefile: relative(ROOT, path),
    logLevel: 'warning',
    // version.ts reads package.json through import.meta.url only when unbundled; here the
    // version is defined at build time and that branch is dead.
    logOverride: { 'empty-import-meta': 'silent' },
  });
  if (/__toESM\(require\("\.\.?\/[^"]+"\), 1\)/.test(out.code)) {
    throw new Error(`${relative(ROOT, path)}: esbuild imports one of our chunks in Node mode, which loses its named exports`);
  }
  return out.code;
}

/**
 * The file with nothing beyond ASCII, which the loader then reads as latin1: a copy, where UTF-8
 * would be decoded, and a string V8 keeps at one byte a character. esbuild escapes such characters
 * in strings and names; what it leaves is the license notes it keeps in a comment at the end
 * (escaped here, a comment either way), and a regular expression's (written `\u2018` in the source).
 */
function asciiOnly(code: string, path: string): string {
  const BEYOND_ASCII = /[\u0080-\u{10ffff}]/u;
  const notes = code.lastIndexOf('/*! Bundled license information:');
  const end = notes < 0 ? -1 : code.indexOf('*/', notes);
  const escaped = end < 0 ? code : code.slice(0, notes) + code.slice(notes, end).replace(/[\u0080-\u{10ffff}]/gu, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`) + code.slice(end);
  const at = escaped.search(BEYOND_ASCII);
  if (at >= 0) throw new Error(`${relative(ROOT, path)}: a character beyond ASCII in the code (${JSON.stringify(escaped.slice(Math.max(0, at - 40), at + 10))}): write it as an escape (\\u…) in the source`);
  return escaped;
}

main().catch((error: unknown) => {
  process.stderr.write(`bundle: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
