// Which code caches V8 takes when the CLI runs a command, read in a process of its own, as the
// CLI would be: for the benchmark and the tests.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CacheReport } from '../launch/load-bundle.cjs';
import { BUNDLE_DIR, MODULES, ROOT } from '../build/paths.js';

export type { CacheReport };

const CHECK = `
const { loadBundle } = require(process.argv[1]);
const args = process.argv.slice(3);
const bundle = loadBundle(process.argv[2], { argv: args });
bundle.main(args).then(() => {
  process.stderr.write('\\n@@' + JSON.stringify({ files: bundle.report(), modules: bundle.modules() }) + '\\n');
  process.exit(0);
});
`;

/** Runs `crawl <args>` (stdout discarded) and says what became of each file's code cache. */
export async function checkCodeCache(args: string[], env: NodeJS.ProcessEnv, bundleDir = BUNDLE_DIR): Promise<CacheReport[]> {
  return (await runReported(args, env, bundleDir)).files;
}

/** Runs `crawl <args>` and lists the source files (`src/http/client.ts`, `node_modules/undici/…`) of every module that ran. */
export async function sourcesRun(args: string[], env: NodeJS.ProcessEnv, bundleDir = BUNDLE_DIR): Promise<string[]> {
  const { modules } = await runReported(args, env, bundleDir);
  const sources = JSON.parse(readFileSync(join(bundleDir, MODULES), 'utf8')) as Record<string, string[]>;
  return modules.flatMap((module) => sources[module] ?? [`(no sources known for ${module})`]);
}

async function runReported(args: string[], env: NodeJS.ProcessEnv, bundleDir: string): Promise<{ files: CacheReport[]; modules: string[] }> {
  const loader = join(bundleDir, '..', 'launch', 'load-bundle.cjs');
  const { stderr } = await runNode(['-e', CHECK, loader, bundleDir, ...args], env);
  const at = stderr.lastIndexOf('\n@@');
  if (at < 0) throw new Error(`crawl ${args.join(' ')} ended without a report: ${stderr.trim().split('\n').pop() ?? ''}`);
  return JSON.parse(stderr.slice(at + 3)) as { files: CacheReport[]; modules: string[] };
}

export function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, args, { env, cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
