// `crawl __complete`, in this process: what the completion scripts are given for each word of a
// line (one candidate a line, `value<TAB>description`, or `:files`). The scripts themselves are
// driven in a real bash by test/process/completion-bash.test.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_KEYS } from '../../../src/config/setting-names.js';
import { crawl, tempDir } from '../../support/harness.js';

let tmp: { dir: string; cleanup: () => void };
beforeAll(() => {
  tmp = tempDir('crawl-complete-');
  mkdirSync(join(tmp.dir, 'config'));
  writeFileSync(join(tmp.dir, 'config', 'config.json'), JSON.stringify({ profiles: { default: {}, ci: {}, staging: {} } }), { mode: 0o600 });
});
afterAll(() => tmp.cleanup());

/** The values `crawl __complete -- <words>` offers (or `:files`). */
async function complete(...words: string[]): Promise<string[]> {
  const r = await crawl(['__complete', '--', ...words], { env: { CRAWL_CONFIG_DIR: join(tmp.dir, 'config'), CRAWL_JOB_HISTORY: 'off' } });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter((l) => l !== '').map((l) => l.split('\t')[0] as string);
}

describe('crawl __complete', () => {
  it('--flag=value: the flag\'s values, each with its --flag=; never a command', async () => {
    expect(await complete('--profile=s')).toEqual(['--profile=staging']);
    expect(await complete('--profile=')).toEqual(['--profile=ci', '--profile=default', '--profile=staging']);
    expect(await complete('job', 'watch', 'x', '--profile=c')).toEqual(['--profile=ci']);
    expect(await complete('api', 'api/keys', '--method=P')).toEqual(['--method=POST', '--method=PUT', '--method=PATCH']);
    // A flag with no values of its own offers nothing, and a flag that takes none nothing either.
    expect(await complete('job', 'watch', 'x', '--interval=')).toEqual([]);
    expect(await complete('job', 'watch', 'x', '--json=')).toEqual([]);
  });

  it('a --flag=value given before does not take the next word as its value', async () => {
    expect(await complete('--profile=ci', 'job', 'w')).toEqual(['watch']);
    expect(await complete('--profile', 'ci', 'job', 'w')).toEqual(['watch']);
  });

  it('file names for --output, --output-file and --input, in both forms', async () => {
    for (const words of [
      ['job', 'pages', 'x', '--output', 'di'],
      ['job', 'pages', 'x', '--output=di'],
      ['keys', 'create', 'ci', '--output-file='],
      ['api', 'api/keys', '--input', ''],
      ['api', 'api/keys', '--input=./'],
    ]) {
      expect(await complete(...words)).toEqual([':files']);
    }
  });

  it('the HTTP methods crawl api takes, for -X and --method', async () => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
    expect(await complete('api', 'api/keys', '-X', '')).toEqual(methods);
    expect(await complete('api', 'api/keys', '--method', 'D')).toEqual(['DELETE']);
    // Each is one crawl api accepts.
    for (const method of methods) {
      const r = await crawl(['api', 'api/keys', '-X', method, '--base-url', 'http://127.0.0.1:9'], { env: { CRAWL_CONFIG_DIR: join(tmp.dir, 'config') } });
      expect(r.stderr).not.toContain('invalid --method');
    }
  });

  it('the settings of config get and unset; config set offers those it sets (not api-key)', async () => {
    expect(await complete('config', 'get', '')).toEqual([...CONFIG_KEYS]);
    expect(await complete('config', 'unset', 'a')).toEqual(['api-key']);
    expect(await complete('config', 'set', '')).toEqual(['base-url', 'key-command', 'key-store-command']);
    // The value after the key is free.
    expect(await complete('config', 'set', 'base-url', '')).toEqual([]);
  });
});
