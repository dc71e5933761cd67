// Builds dist/bundle: the CLI as a few CommonJS files that bin/crawl.js loads with V8's code
// cache (see src/launch/load-bundle.cts for why CommonJS and why a code cache).
//
// esbuild splits only ES modules, so the CLI is bundled as ESM first (each command's code stays
// behind the dynamic import that loads it) and every output file is then turned into CommonJS.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { build, transform } from 'esbuild';
import { encodePack, PACK } from '../launch/load-bundle.cjs';
import { deferRequires } from './defer-requires.js';
import { patchUndici } from './patch-undici.js';
import { wasmAssets } from './wasm-assets.js';
import { BUNDLE_DIR, ROOT } from './paths.js';

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
    logLevel: 'warning',
  });

  const files = await Promise.all(
    result.outputFiles.map(async (file) => ({ path: file.path, code: await toCommonJS(file.text, file.path) })),
  );
  // One id for the whole build: a code cache is only ever used with the build it was made from.
  const hash = createHash('sha256').update(files.map((f) => f.code).join('\0'));
  for (const bytes of wasm.assets.values()) hash.update(bytes);
  const id = hash.digest('hex').slice(0, 16);
  await rm(BUNDLE_DIR, { recursive: true, force: true });
  await mkdir(BUNDLE_DIR, { recursive: true });
  // One file for all, of which a command reads the files it loads (and the assets they ask for).
  // Strict, as the ES modules they were: esbuild's CommonJS output does not say so itself.
  const packed = new Map(files.map((file) => [relative(BUNDLE_DIR, file.path).split(sep).join('/'), Buffer.from(`'use strict';\n${file.code}`)]));
  for (const [name, bytes] of wasm.assets) packed.set(name, Buffer.from(bytes));
  await writeFile(join(BUNDLE_DIR, PACK), encodePack(id, packed));
  const size = files.reduce((sum, f) => sum + Buffer.byteLength(f.code), 0);
  process.stdout.write(`bundle: ${files.length} files, ${Math.round(size / 1024)} KB in ${relative(ROOT, join(BUNDLE_DIR, PACK))} (build ${id})\n`);
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

main().catch((error: unknown) => {
  process.stderr.write(`bundle: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
