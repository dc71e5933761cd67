/**
 * jq's WebAssembly, for io/jq.ts. Unbundled (tests, `tsx`), jq-wasm reads its own file from
 * node_modules: undefined here. The bundle replaces this module (src/build/wasm-assets.ts) with one
 * that returns the bytes from the bundle's pack, where the build put them.
 */
export async function jqWasmBytes(): Promise<Uint8Array | undefined> {
  return undefined;
}
