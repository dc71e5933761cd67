// undici carries its HTTP parser, WebAssembly, as base64 inside two JavaScript files (with SIMD
// and without). Bundled as they are, every command that talks to the service reads both as source
// text, and keeps the one it runs as a string in its code cache. Instead the bundle's pack holds
// the parsers' bytes as assets, and each of those files becomes a line that asks the loader
// (src/launch/load-bundle.cts) for its asset when undici first needs a parser.
//
// jq's WebAssembly (--jq, src/io/jq.ts) is an asset too: src/io/jq-wasm-bytes.ts, which returns
// nothing unbundled (jq-wasm then reads its own file), becomes a module that asks for it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';
import { ASSET_PREFIX } from '../launch/load-bundle.cjs';

const PARSERS = /^\.\.\/llhttp\/(llhttp(?:_simd)?)-wasm\.js$/;
const IMPORTER = /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/;
const NAMESPACE = 'crawl-wasm';
const JQ_BYTES = /[\\/]src[\\/]io[\\/]jq-wasm-bytes\.ts$/;

/** The plugin, and the assets it collects (name in the pack → bytes) for the build to pack. */
export function wasmAssets(): { plugin: Plugin; assets: Map<string, Buffer> } {
  const assets = new Map<string, Buffer>();
  const plugin: Plugin = {
    name: 'wasm-assets',
    setup(build) {
      build.onResolve({ filter: PARSERS }, (args) => {
        const name = PARSERS.exec(args.path)?.[1];
        if (name === undefined || !IMPORTER.test(args.importer)) return undefined;
        // The module's own export, a Buffer of the parser's bytes, taken at build time.
        const bytes = createRequire(args.importer)(args.path) as unknown;
        if (!Buffer.isBuffer(bytes) || bytes.subarray(0, 4).toString('latin1') !== '\0asm') {
          return { errors: [{ text: `${args.path} no longer exports WebAssembly bytes: check the wasm-assets plugin still applies` }] };
        }
        assets.set(`${name}.wasm`, bytes);
        return { path: `${name}.wasm`, namespace: NAMESPACE };
      });
      // jq-wasm's CommonJS build: its ES module finds its folder through import.meta.url, which a
      // CommonJS bundle does not have (the folder is not needed: the bytes come from the pack).
      build.onResolve({ filter: /^jq-wasm$/ }, (args) => ({ path: createRequire(args.importer).resolve('jq-wasm') }));
      build.onLoad({ filter: JQ_BYTES }, (args) => {
        const bytes = readFileSync(createRequire(args.path).resolve('jq-wasm/jq.wasm'));
        if (bytes.subarray(0, 4).toString('latin1') !== '\0asm') return { errors: [{ text: 'jq-wasm/jq.wasm is not WebAssembly: check the wasm-assets plugin still applies' }] };
        assets.set('jq.wasm', bytes);
        // An ES module, as the file it replaces: its require() is the loader's, which serves assets.
        return { contents: `export async function jqWasmBytes() { return require(${JSON.stringify(ASSET_PREFIX + 'jq.wasm')}); }\n`, loader: 'js' };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(ASSET_PREFIX + args.path)});\n`,
        loader: 'js',
      }));
      build.onResolve({ filter: new RegExp(`^${ASSET_PREFIX}`) }, (args) => ({ path: args.path, external: true }));
      build.onEnd((result) => {
        if (result.errors.length === 0 && ![...assets.keys()].some((name) => name.startsWith('llhttp'))) {
          result.errors.push({ id: 'wasm-assets', pluginName: 'wasm-assets', text: "no llhttp parser found in undici's client-h1.js: check the wasm-assets plugin still applies", location: null, notes: [], detail: undefined });
        }
      });
    },
  };
  return { plugin, assets };
}
