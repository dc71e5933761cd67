// `config get` and `config list`: the key masked, an unset setting.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { maskKey } from '../../../src/text/mask.js';
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

describe('config get and config list', () => {
  it.concurrent('get and list mask the key; get of an unset setting exits 1 with a hint', async ({ expect }) => {
    const dir = folders.with({ default: { 'base-url': 'https://a.example/', 'api-key': fx.sandbox.key }, empty: {} });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const [get, list, listJson, missing] = await Promise.all([
      runCli(['config', 'get', 'api-key'], { env }),
      runCli(['config', 'list'], { env }),
      runCli(['config', 'list', '--json'], { env }),
      runCli(['config', 'get', 'base-url', '--profile', 'empty'], { env }),
    ]);
    expect(get.stdout).toBe(maskKey(fx.sandbox.key) + '\n');
    expect(list.stdout).toBe(`base-url\thttps://a.example/\napi-key\t${maskKey(fx.sandbox.key)}\n`);
    expect(JSON.parse(listJson.stdout)).toEqual({ profile: 'default', 'base-url': 'https://a.example/', 'api-key': maskKey(fx.sandbox.key) });
    for (const r of [get, list, listJson]) {
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(fx.sandbox.key);
    }
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('crawl: base-url is not set in profile "empty"\nhint: run `crawl --profile empty config set base-url <value>`\n');
  });
});
