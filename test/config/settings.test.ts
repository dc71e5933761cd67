// A mistyped profile (--profile or CRAWL_PROFILE) gets "did you mean" among the profiles the
// config file has, and still says how to create the one named; a name near none gets the latter
// alone. In this process; nothing is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { configFolderWith } from '../helpers/local-faults.js';
import { crawl } from '../support/harness.js';

let tmp: { dir: string; cleanup: () => void };
let config: { dir: string; file: string };
beforeAll(() => {
  tmp = tempDir('crawl-profile-typo-');
  config = configFolderWith(tmp.dir, {
    profiles: {
      default: { 'base-url': 'http://127.0.0.1:9' },
      staging: { 'base-url': 'http://127.0.0.1:9' },
      production: { 'base-url': 'http://127.0.0.1:9' },
    },
  });
});
afterAll(() => tmp.cleanup());

describe('an unknown profile: did you mean', () => {
  it.each([
    [['--profile', 'stagin', 'keys', 'list'], {}, 'stagin', 'did you mean "staging" (--profile staging)?'],
    [['keys', 'list'], { CRAWL_PROFILE: 'prodution' }, 'prodution', 'did you mean "production" (CRAWL_PROFILE=production)?'],
    [['--profile', 'Staging', 'config', 'list'], {}, 'Staging', 'did you mean "staging" (--profile staging)?'],
  ])('crawl %j %j', async (argv, env, name, meant) => {
    const r = await crawl(argv, { env: { CRAWL_CONFIG_DIR: config.dir, ...env } });
    expect(r.code).toBe(2);
    const [message = '', hint = ''] = r.stderr.split('\n');
    expect(message).toBe(`crawl: unknown profile "${name}" (from ${'CRAWL_PROFILE' in env ? 'CRAWL_PROFILE' : '--profile'}): the profiles in ${config.file} are "default", "staging", "production"`);
    expect(hint).toBe(`hint: ${meant} To create "${name}": \`crawl --profile ${name} config set base-url <url>\`, then \`crawl --profile ${name} auth login\``);
  });

  it('a name near none of them: how to create it, and no guess', async () => {
    const r = await crawl(['--profile', 'laptop', 'keys', 'list'], { env: { CRAWL_CONFIG_DIR: config.dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('hint: to create it: `crawl --profile laptop config set base-url <url>`');
    expect(r.stderr).not.toContain('did you mean');
  });
});
