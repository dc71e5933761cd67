// Run before every test file (vitest.config.ts): a test that needs a tool missing from PATH runs
// only under CRAWL_TEST_TOOLS=required (elsewhere needs() skips it), and then fails here, naming the
// tools and their packages, before any of its beforeEach or afterEach runs: a hook never fails a
// second time on what a missing tool left undone.
import { aroundEach } from 'vitest';
import { MissingToolError } from './tools.js';

aroundEach(async (runTest, context) => {
  const missing = context.task.meta.missingTools;
  if (missing !== undefined && missing.length > 0) throw new MissingToolError(missing);
  await runTest();
});
