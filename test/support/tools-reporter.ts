// A vitest reporter, after the default one (vitest.config.ts): the run's last lines say how many
// tests a missing tool skipped (or, under CRAWL_TEST_TOOLS=required, failed), which tools, and the
// `apt-get install` that would run them (test/support/tools.ts).
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { missingToolsSummary, toolsRequired } from './tools.js';

export default class MissingToolsReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const tests = testModules.flatMap((module) => [...module.children.allTests()].map((test) => test.meta()));
    const lines = missingToolsSummary(tests, toolsRequired());
    if (lines.length > 0) this.vitest?.logger.log(['', ...lines].join('\n'));
  }
}
