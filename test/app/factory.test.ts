// A 401 while CRAWL_API_KEY is set says that the environment's key is the one in use (a stored
// key, or `auth login`, cannot help while the variable wins), for every command that talks to the
// service, `crawl api` included; with the profile's key, the hint is still about the profile.
// In this process, against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, tempDir } from '../support/harness.js';
import { configFolderWith } from '../support/local-faults.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-env-401-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const ENV_HINT =
  "hint: the key in use is the one in CRAWL_API_KEY (it wins over any stored key), and the service refused it: check its value (`crawl auth status` shows the key in use), or unset CRAWL_API_KEY to use the profile's key\n";

describe('401 with CRAWL_API_KEY set', () => {
  it.each([[['job', 'demo-small']], [['keys', 'list']], [['api', '/api/keys']], [['job', 'watch', 'demo-small']]])('crawl %j names the environment\'s key', async (argv) => {
    const config = configFolderWith(tmp.dir, { profiles: { default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key } } });
    const r = await crawl(argv, { env: { CRAWL_CONFIG_DIR: config.dir, CRAWL_API_KEY: 'crk_' + 'N'.repeat(40) } });
    expect(r.code).toBe(4);
    expect(r.stderr.endsWith(ENV_HINT)).toBe(true);
    expect(r.stderr).not.toContain('auth login');
  });

  it('the profile\'s key refused: the hint points at the profile, as before', async () => {
    const config = configFolderWith(tmp.dir, { profiles: { default: { 'base-url': fx.sandbox.url, 'api-key': 'crk_' + 'S'.repeat(40) } } });
    const r = await crawl(['keys', 'list'], { env: { CRAWL_CONFIG_DIR: config.dir } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('hint: the key is missing, invalid or revoked: check it with `crawl auth status`, or store a new one with `crawl auth login`');
  });
});
