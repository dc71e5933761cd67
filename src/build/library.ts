// Builds dist/lib: the package's programmatic entries (package.json "exports"), `createClient`
// and `startSandbox`, each one CommonJS file with everything it uses inlined (undici included:
// the package has no runtime dependencies), and an ES module beside it that re-exports its names.
// One implementation for both module systems: an error class is the same class to `instanceof`
// whether the caller imported or required it.
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { ROOT } from './paths.js';

const LIB_DIR = join(ROOT, 'dist', 'lib');
const ENTRIES = { client: 'src/client/index.ts', sandbox: 'src/sandbox/public.ts' } as const;

/**
 * The client reads settings and never writes the config file, which is what conf (and its JSON
 * schema validator, most of a third of the bundle) is for: it stands in, and says so if reached.
 */
const noConfigWrites: Plugin = {
  name: 'no-config-writes',
  setup(build) {
    build.onResolve({ filter: /^conf$/ }, () => ({ path: 'conf', namespace: 'no-config-writes' }));
    build.onLoad({ filter: /.*/, namespace: 'no-config-writes' }, () => ({
      contents: "export default class { constructor() { throw new Error('the Node client does not write the config file'); } }",
      loader: 'js',
    }));
  },
};

async function main(): Promise<void> {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  await rm(LIB_DIR, { recursive: true, force: true });
  await mkdir(LIB_DIR, { recursive: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(ROOT, path)])),
    absWorkingDir: ROOT,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outdir: LIB_DIR,
    outExtension: { '.js': '.cjs' },
    define: { __CRAWL_VERSION__: JSON.stringify(version) },
    // Lines kept: Node prints the source line an uncaught error was thrown from, and a stack's
    // line numbers are all an embedder has to go on (no source maps are shipped). One minified line
    // made each uncaught error a dump of the whole library.
    minifySyntax: true,
    // Error classes are named by their constructors: users log them.
    keepNames: true,
    plugins: [noConfigWrites],
    // The keyring binding is native: the package's one runtime dependency, loaded only for a profile whose key is there.
    external: ['@napi-rs/keyring'],
    logLevel: 'warning',
    // version.ts reads package.json through import.meta.url only when unbundled (dead code here).
    logOverride: { 'empty-import-meta': 'silent' },
  });
  const require = createRequire(join(LIB_DIR, 'index.cjs'));
  for (const name of Object.keys(ENTRIES)) {
    const names = Object.keys(require(`./${name}.cjs`) as object).filter((n) => n !== 'default' && n !== '__esModule');
    await writeFile(
      join(LIB_DIR, `${name}.mjs`),
      `import { createRequire } from 'node:module';\nconst lib = createRequire(import.meta.url)('./${name}.cjs');\nexport const { ${names.join(', ')} } = lib;\n`,
    );
  }
  process.stdout.write(`library: ${Object.keys(ENTRIES).map((n) => `${n}.cjs, ${n}.mjs`).join(', ')} in ${relative(ROOT, LIB_DIR)}/\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`library: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
