import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take long on the clock whatever their size: spawned processes (test/process/).
 * Vitest starts the files it timed longest first, but it keeps those times in node_modules/.vite:
 * in a fresh clone (CI) it starts the largest files first instead, and these ran last, after the
 * rest had finished.
 */
const LONG_ON_THE_CLOCK = /\/test\/process\//;

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (file: TestSpecification): boolean => LONG_ON_THE_CLOCK.test(file.moduleId);
    return [...sorted.filter(long), ...sorted.filter((file) => !long(file))];
  }
}

/**
 * The workers' allocator (glibc; other C libraries ignore the variable): keep what malloc frees for
 * the next allocation rather than handing it back to the system at once. The workers allocate and
 * free tens of megabytes over and over (bodies of many megabytes, V8's compiler zones), and on a
 * virtual machine the first touch of each page handed back and asked for again is a page fault
 * dearer than the work on it. 32 MiB is the most any glibc takes for mmap_threshold (an older one
 * refuses more, and would then map every large block afresh). Set before the workers start, which
 * inherit it; the CLIs test/support/spawn.ts starts get a clean environment, and run as users' do.
 */
process.env.GLIBC_TUNABLES ??= 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=67108864';

/** CRAWL_TEST_MODE=spawn runs every test as a process: then every tier needs a current build. */
const spawnMode = process.env.CRAWL_TEST_MODE === 'spawn';

export default defineConfig({
  test: {
    setupFiles: ['test/support/umask.ts', 'test/support/scratch.ts', 'test/support/tools-setup.ts', 'test/support/v8-flags.ts'],
    // After vitest's summary, what a missing tool skipped (test/support/tools.ts).
    reporters: ['default', './test/support/tools-reporter.ts'],
    // Forks, not threads: a few tests set the umask, which workers may not. Most files run the CLI
    // in this process and wait on loopback I/O, so three workers keep two cores busy (`npm test` on
    // two cores was slower with two or with four); files share a worker's module cache (no
    // per-file isolation: nothing here keeps state between files).
    pool: 'forks',
    maxWorkers: 3,
    isolate: false,
    sequence: { sequencer: LongFirst },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each worker's TypeScript, transformed once and kept on disk (node_modules/, keyed by each
    // file's content): a run after an edit transforms only what changed.
    experimental: { fsModuleCache: true },
    // Two tiers and the checks of the source text (ARCHITECTURE.md, Tests): `npm run test:fast`
    // runs the in-process ones alone.
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          exclude: ['test/process/**', 'test/lint/**'],
          ...(spawnMode ? { globalSetup: ['test/support/fresh-build.ts'] } : {}),
        },
      },
      {
        extends: true,
        test: {
          // What reads the source text (TypeScript's scanner over every file), not the CLI.
          name: 'lint',
          include: ['test/lint/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          // The spawned CLI, the man pages and the packed package are the build's output.
          globalSetup: ['test/support/fresh-build.ts'],
        },
      },
    ],
  },
});
