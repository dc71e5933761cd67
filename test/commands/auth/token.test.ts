// `auth token`: the raw key alone on stdout.
import { describe, it } from 'vitest';
import { runCli } from '../../support/harness.js';
import { envOf, settingsSuite } from '../../support/settings.js';

const suite = settingsSuite();
const folders = suite.folders;

describe('auth token', () => {
  it.concurrent('token prints the raw key alone on stdout; without a key, exit 2', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': suite.fx.sandbox.url, 'api-key': suite.fx.sandbox.key } });
    const [token, none] = await Promise.all([
      runCli(['auth', 'token'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) }),
      runCli(['auth', 'token'], { env: envOf({ CRAWL_CONFIG_DIR: folders.fresh() }) }),
    ]);
    expect(token.code).toBe(0);
    expect(token.stdout).toBe(suite.fx.sandbox.key + '\n');
    expect(token.stderr).toBe('');
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('crawl auth login');
  });
});
