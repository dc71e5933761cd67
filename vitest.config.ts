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
 * Files that replace what the whole worker shares for a moment (vitest's fake timers, a spy on
 * node:fs): each runs in a process of its own, so that nothing made meanwhile (a fetch's timer
 * wheel keeping a fake timer) outlives it in the files that follow.
 */
const OWN_PROCESS = ['test/sandbox/sandbox.test.ts', 'test/io/record-sink.test.ts'];

/** CRAWL_TEST_MODE=spawn runs every test as a process: then every tier needs a current build. */
const spawnMode = process.env.CRAWL_TEST_MODE === 'spawn';

export default defineConfig({
  test: {
    setupFiles: ['test/support/umask.ts'],
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
    // Two tiers (ARCHITECTURE.md, Tests): `npm run test:fast` runs the in-process ones alone.
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          exclude: ['test/process/**', ...OWN_PROCESS],
          ...(spawnMode ? { globalSetup: ['test/support/fresh-build.ts'] } : {}),
        },
      },
      {
        extends: true,
        test: {
          name: 'in-process:own-process',
          include: OWN_PROCESS,
          isolate: true,
          ...(spawnMode ? { globalSetup: ['test/support/fresh-build.ts'] } : {}),
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
