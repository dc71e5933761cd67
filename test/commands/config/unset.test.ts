// `config unset`.
import { describe, it } from 'vitest';
import { runCli } from '../../support/harness.js';
import { BAD_KEY, envOf, settingsSuite } from '../../support/settings.js';

const suite = settingsSuite();
const folders = suite.folders;

describe('config unset', () => {
  it.concurrent('unset removes one setting and says so when there was none', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': 'https://a.example/', 'api-key': BAD_KEY } });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const first = await runCli(['config', 'unset', 'api-key'], { env });
    expect(first.code).toBe(0);
    expect(folders.read(dir).profiles).toEqual({ default: { 'base-url': 'https://a.example/' } });
    const again = await runCli(['config', 'unset', 'api-key'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('api-key was not set in profile "default"\n');
  });
});
