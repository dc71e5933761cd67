// Emits src/ to dist/ (what `tsc -p tsconfig.build.json` wrote, byte for byte) without type-checking
// it: `npm run typecheck` already checks src with test, and a second checker pass over src would
// double the most expensive step of `npm test`. Each file is transpiled on its own (TypeScript's transpileModule),
// which `isolatedModules` in tsconfig.json makes safe: the type check fails on anything whose output
// would need another file's types. Plain JavaScript, as it runs before anything is built.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Through require: TypeScript is CommonJS, and importing it as ESM costs half a second of lexing.
const ts = createRequire(import.meta.url)('typescript');

const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => fail([diagnostic]),
});
if (config.errors.length > 0) fail(config.errors);
if (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).type !== 'module') {
  fail('package.json no longer says "type": "module": .ts files would not be ES modules under NodeNext');
}
const { rootDir, outDir } = config.options;
// NodeNext decides each file's format by its extension and package.json; transpileModule cannot
// look, so it is told: .cts is CommonJS, .ts (in a "type": "module" package) an ES module.
const { moduleResolution: _resolution, noEmit: _noEmit, rootDir: _rootDir, outDir: _outDir, ...base } = config.options;

let count = 0;
for (const file of config.fileNames) {
  if (file.endsWith('.d.ts')) continue;
  const cjs = file.endsWith('.cts');
  const { outputText, diagnostics = [] } = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { ...base, module: cjs ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext },
    reportDiagnostics: true,
  });
  if (diagnostics.length > 0) fail(diagnostics);
  const out = join(outDir, relative(rootDir, file)).replace(cjs ? /\.cts$/ : /\.ts$/, cjs ? '.cjs' : '.js');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, outputText);
  count++;
}
process.stdout.write(`emit: ${count} files to ${relative(ROOT, outDir)}/\n`);

// The package's declarations (package.json "exports"): the files the two public entries reach,
// each on its own (TypeScript's transpileDeclaration, which `isolatedDeclarations` makes exact:
// a file that needs the checker's inference fails here). Internal constructors are left out, so
// no declaration reaches the HTTP layer, undici's types, or anything the package does not ship.
const TYPES_DIR = join(outDir, 'types');
// The same declarations for `require` (package.json "exports"): TypeScript takes a .d.ts to be of
// the format of the package.json nearest to it, and this package's is "module", so a CommonJS
// project on `module: node16` (or node18) would be told it cannot require an ES module. A copy
// under a package.json of "commonjs" is read as what `require` gets.
const TYPES_CJS_DIR = join(outDir, 'types-cjs');
const ENTRIES = ['client/index.ts', 'sandbox/public.ts'];
const declared = new Set();
const queue = ENTRIES.map((entry) => join(rootDir, entry));
while (queue.length > 0) {
  const file = queue.shift();
  if (declared.has(file)) continue;
  declared.add(file);
  const { outputText, diagnostics = [] } = ts.transpileDeclaration(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { ...base, module: ts.ModuleKind.NodeNext, isolatedDeclarations: true, stripInternal: true },
    reportDiagnostics: true,
  });
  if (diagnostics.length > 0) fail(diagnostics);
  for (const dir of [TYPES_DIR, TYPES_CJS_DIR]) {
    const out = join(dir, relative(rootDir, file)).replace(/\.ts$/, '.d.ts');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  for (const [, path] of outputText.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) queue.push(join(dirname(file), `${path}.ts`));
}
writeFileSync(join(TYPES_CJS_DIR, 'package.json'), '{ "type": "commonjs" }\n');
process.stdout.write(`emit: ${declared.size} declaration files to ${relative(ROOT, TYPES_DIR)}/ and ${relative(ROOT, TYPES_CJS_DIR)}/\n`);

function fail(diagnostics) {
  const text =
    typeof diagnostics === 'string'
      ? diagnostics
      : ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' });
  process.stderr.write(`emit: ${text.trim()}\n`);
  process.exit(1);
}
