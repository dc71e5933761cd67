// `auth token`: the raw key alone on stdout.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli } from '../../support/harness.js';
import { envOf, configFolders } from '../../support/settings.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let fx: SandboxFixture;
const folders = configFolders();

beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(async () => {
  folders.cleanup();
  await fx.close();
});

describe('auth token', () => {
  it.concurrent('token prints the raw key alone on stdout; without a key, exit 2', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key } });
    const [token, none] = await Promise.all([
      runCli(['auth', 'token'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) }),
      runCli(['auth', 'token'], { env: envOf({ CRAWL_CONFIG_DIR: folders.fresh() }) }),
    ]);
    expect(token.code).toBe(0);
    expect(token.stdout).toBe(fx.sandbox.key + '\n');
    expect(token.stderr).toBe('');
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('crawl auth login');
  });
});
