// undici carries its HTTP parser, WebAssembly, as base64 inside two JavaScript files (with SIMD
// and without). Bundled as they are, every command that talks to the service reads both as source
// text, and keeps the one it runs as a string in its code cache. Instead the bundle's pack holds
// the parsers' bytes as assets, and each of those files becomes a line that asks the loader
// (src/launch/load-bundle.cts) for its asset when undici first needs a parser.
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';
import { ASSET_PREFIX } from '../launch/load-bundle.cjs';

const PARSERS = /^\.\.\/llhttp\/(llhttp(?:_simd)?)-wasm\.js$/;
const IMPORTER = /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/;
const NAMESPACE = 'crawl-wasm';

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
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(ASSET_PREFIX + args.path)});\n`,
        loader: 'js',
      }));
      build.onResolve({ filter: new RegExp(`^${ASSET_PREFIX}`) }, (args) => ({ path: args.path, external: true }));
      build.onEnd((result) => {
        if (result.errors.length === 0 && assets.size === 0) {
          result.errors.push({ id: 'wasm-assets', pluginName: 'wasm-assets', text: "no llhttp parser found in undici's client-h1.js: check the wasm-assets plugin still applies", location: null, notes: [], detail: undefined });
        }
      });
    },
  };
  return { plugin, assets };
}
