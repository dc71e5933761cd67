// `keys create --jq`: a created key is never lost to a filter. A filter that would leave the key
// out, with stdout its only home, is refused before the POST; with another home (--output-file)
// it runs; one that leaves the real key out after all is overruled (the answer printed unfiltered).
// In this process, against the sandbox.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { sandboxFixture, type SandboxFixture } from '../../helpers/sandbox.js';
import { crawl } from '../../support/harness.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-create-jq-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const posts = (): number => fx.sandbox.requests.filter((q) => q.method === 'POST' && q.url.startsWith('/api/keys')).length;

describe('keys create --jq: the key is never lost to the filter', () => {
  it.each([['.name'], ['.prefix'], ['.key[0:8]'], ['{name}'], ['empty']])('--jq %s with stdout the only home: exit 2, no key created', async (filter) => {
    const before = posts();
    const r = await crawl(['keys', 'create', 'lost', '--jq', filter], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // Off a terminal, under --jq, the error is the JSON line.
    const error = (JSON.parse(r.stderr) as { error: { message: string; exitCode: number } }).error;
    expect(error).toMatchObject({ message: 'the --jq filter leaves the new key out of what it prints, and the key would be kept nowhere else: no key was created', exitCode: 2 });
    expect(posts()).toBe(before);
    // On a terminal, the text lines and the hint.
    const shown = await crawl(['keys', 'create', 'lost', '--jq', filter], { env: fx.env, tty: true });
    expect(shown.code).toBe(2);
    expect(shown.stderr).toBe(
      'crawl: the --jq filter leaves the new key out of what it prints, and the key would be kept nowhere else: no key was created\n' +
        'hint: keep .key in the filter (`--jq .key`), or give the key a home with --save or --output-file <path>\n',
    );
    expect(posts()).toBe(before);
  });

  it('with --output-file the key has a home: the filter runs, and the file holds the key', async () => {
    const file = join(tmp.dir, 'made.key');
    const r = await crawl(['keys', 'create', 'homed', '--jq', '.name', '--output-file', file], { env: fx.env });
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^crk_\S+\n?$/);
  });

  it('a filter that keeps the stand-in but drops the real key: the answer goes out unfiltered, with a warning', async () => {
    const filter = 'if (.key | test("STANDIN")) then .key else .name end';
    const r = await crawl(['keys', 'create', 'tricky', '--jq', filter], { env: fx.env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { key: string; name: string };
    expect(doc.name).toBe('tricky');
    expect(doc.key).toMatch(/^crk_/);
    expect(r.stderr).toBe('crawl: warning: the --jq filter left out the new key, which is kept nowhere else: printed unfiltered, so that the key is not lost\n');
  });

  it('the check runs the filter quietly: what it prints on stderr comes once, from the real answer', async () => {
    const r = await crawl(['keys', 'create', 'noisy', '--jq', '.key | debug'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^crk_\S+\n$/);
    expect(r.stderr).toBe('["DEBUG:","[redacted]"]\n');
  });
});
