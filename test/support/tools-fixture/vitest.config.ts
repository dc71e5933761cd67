// The run test/process/tools.test.ts starts, with a PATH that holds no tool: one file of tests that
// need tools, under the suite's own set-up file and reporter (vitest.config.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['needs.fixture.ts'],
    setupFiles: ['../tools-setup.ts'],
    reporters: ['default', '../tools-reporter.ts'],
    pool: 'forks',
    maxWorkers: 1,
  },
});
