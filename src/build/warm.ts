// Makes the bundle's code cache (see src/launch/load-bundle.cts): runs the commands people run
// most, against the sandbox, with the loader storing what V8 compiled. Each run starts from the
// cache the last one left, so the cache ends up holding the functions of all of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startSandbox } from '../sandbox/index.js';
import { checkCodeCache, runNode } from './cache-check.js';
import { BIN, ROOT } from './paths.js';

const RUNS: { args: string[]; env?: Record<string, string> }[] = [
  { args: ['--help'] },
  { args: ['job', '--help'] },
  { args: ['job', 'demo-small', '--json'] },
  { args: ['job', 'demo-small'] },
  { args: ['job', 'demo-small'], env: { FORCE_COLOR: '1' } },
  { args: ['job', 'demo-no-such-job'] },
  { args: ['job', 'watch', 'demo-small', '--json'] },
  { args: ['job', 'pages', 'demo-small', '--limit', '3'] },
  { args: ['job', 'demo-small', '--jq', '.job.status'] },
  { args: ['keys', 'list'] },
  { args: ['auth', 'status'] },
  { args: ['config', 'list'] },
  // The one run that writes the config file (through conf): last, so the others read none.
  { args: ['config', 'set', 'base-url', 'http://127.0.0.1:9'] },
];

async function main(): Promise<void> {
  const sandbox = await startSandbox();
  const config = mkdtempSync(join(tmpdir(), 'crawl-warm-'));
  // Only what the commands need: V8 flags from NODE_OPTIONS would go into the cache and make
  // V8 refuse it wherever the CLI later runs without them.
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    CRAWL_BASE_URL: sandbox.url,
    CRAWL_API_KEY: sandbox.key,
    CRAWL_CONFIG_DIR: config,
  };
  try {
    for (const run of RUNS) {
      await runNode([BIN, ...run.args], { ...base, ...run.env, CRAWL_BUILD_CODE_CACHE: '1' });
    }
    let files = 0;
    for (const args of [['job', '--help'], ['job', 'demo-small', '--json']]) {
      const report = await checkCodeCache(args, base);
      const refused = report.filter((r) => r.rejected !== false).map((r) => relative(ROOT, r.file));
      if (refused.length > 0) {
        process.stderr.write(`warm: \`crawl ${args.join(' ')}\` finds no usable code cache for ${refused.join(', ')}: it works, but starts slower\n`);
      }
      files += report.length - refused.length;
    }
    process.stdout.write(`warm: code cache made by ${RUNS.length} runs; V8 takes it for the ${files} files help and a status read load\n`);
  } finally {
    rmSync(config, { recursive: true, force: true });
    await sandbox.close();
  }
}

// Without a code cache the CLI is slower, not broken: an install where the sandbox cannot run
// (no loopback, say) still gets a working build. test/contract/startup.test.ts fails if the cache is missing.
main().catch((error: unknown) => {
  process.stderr.write(`warm: no code cache made (${error instanceof Error ? error.message : String(error)}): the CLI works, but starts slower\n`);
});
