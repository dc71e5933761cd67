// `auth logout`: the profile's key forgotten, the rest kept.
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { runCli } from '../../support/harness.js';
import { BAD_KEY, envOf, settingsSuite } from '../../support/settings.js';

const suite = settingsSuite();
const folders = suite.folders;

describe('auth logout', () => {
  it.concurrent('logout forgets the key of the profile, keeps the rest; a second logout says so', async ({ expect }) => {
    const dir = folders.with({
      default: { 'base-url': suite.fx.sandbox.url, 'api-key': suite.fx.sandbox.key },
      work: { 'base-url': suite.fx.sandbox.url, 'api-key': BAD_KEY },
    });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const out = await runCli(['auth', 'logout'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe(`Removed the key of profile "default" from the config file, plaintext: ${join(dir, 'config.json')}\n`);
    expect(folders.read(dir).profiles).toEqual({
      default: { 'base-url': suite.fx.sandbox.url },
      work: { 'base-url': suite.fx.sandbox.url, 'api-key': BAD_KEY },
    });
    const [again, token] = await Promise.all([runCli(['auth', 'logout'], { env }), runCli(['auth', 'token'], { env })]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('No key was stored for profile "default"\n');
    expect(token.code).toBe(2);
  });
});
