import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/umask.ts'],
    // Forks, not threads: a few tests set the umask, which workers may not. Most files run the CLI
    // in this process and wait on loopback I/O, so three workers keep two cores busy; files share
    // a worker's module cache (no per-file isolation: nothing here keeps state between files).
    pool: 'forks',
    maxWorkers: 3,
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
