// How an error reaches the user (src/app/exit.ts). Under --json / --jq: the JSON line for a script
// (stderr not a terminal), the text lines for a person (stderr a terminal), whatever stdout is. And
// the hints: every command they name carries the profile in use, whichever layer wrote the hint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl, runCli } from '../support/harness.js';
import { configFolders, fiveProfiles } from '../support/settings.js';

let fx: SandboxFixture;
const folders = configFolders('crawl-exit-');
/** The five profiles of fiveProfiles(), on this file's sandbox. */
let config: { dir: string; file: string };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  config = await fiveProfiles(fx.sandbox, folders.fresh());
});
afterAll(async () => {
  folders.cleanup();
  await fx.close();
});

/** The config file only: no CRAWL_* from the fixture. */
const fromConfig = (extra: Record<string, string> = {}): Record<string, string> => ({ CRAWL_CONFIG_DIR: config.dir, ...extra });

describe.each([['--json'], ['--jq', '.']])('an error under %s', (...flag) => {
  it('stderr a terminal: the text lines, even with stdout in a pipe', async () => {
    const r = await crawl(['job', 'status', 'no-such-job', ...flag], { env: fx.env, tty: { stderr: true } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^crawl: .*no-such-job/);
    expect(r.stderr).not.toContain('{"error"');
  });

  it('stderr not a terminal: one JSON line, even with stdout a terminal', async () => {
    const r = await crawl(['job', 'status', 'no-such-job', ...flag], { env: fx.env, tty: { stdout: true } });
    expect(r.code).toBe(3);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ error: { httpStatus: 404, exitCode: 3 } });
  });

  it('a usage error before the command runs follows the same rule', async () => {
    const onTerminal = await crawl(['job', 'status', ...flag], { env: fx.env, tty: true });
    expect(onTerminal.code).toBe(2);
    expect(onTerminal.stderr).toMatch(/^crawl: /);
    const inPipe = await crawl(['job', 'status', ...flag], { env: fx.env });
    expect(inPipe.code).toBe(2);
    expect(JSON.parse(inPipe.stderr.trimEnd())).toMatchObject({ error: { exitCode: 2 } });
  });
});

describe('a usage error under --json', () => {
  it('is one JSON line on stderr', async () => {
    const r = await runCli(['job', 'demo-small', '--bogus', '--json'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toEqual({ error: { message: "unknown option '--bogus'", httpStatus: null, exitCode: 2 } });
  });
});

describe('hints name the profile in use, from --profile or CRAWL_PROFILE', () => {
  it.each([
    ['--profile', (argv: string[]) => ['--profile', ...argv], {}],
    ['CRAWL_PROFILE', (argv: string[]) => argv, {}],
  ] as const)('%s', async (how, args, _none) => {
    const run = (profile: string, argv: string[]): ReturnType<typeof crawl> =>
      crawl(how === '--profile' ? [...args([profile]), ...argv] : argv, { env: fromConfig(how === 'CRAWL_PROFILE' ? { CRAWL_PROFILE: profile } : {}) });
    const noKey = await run('nokey', ['keys', 'list']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toBe('crawl: no API key configured\nhint: run `crawl --profile nokey auth login` or set CRAWL_API_KEY\n');
    const noUrl = await run('nourl', ['job', 'demo-small']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('hint: run `crawl --profile nourl config set base-url <url>`');
    // Written by the HTTP layer, which knows no profile: named all the same.
    const stale = await run('stale', ['job', 'demo-small']);
    expect(stale.code).toBe(4);
    expect(stale.stderr).toContain('check it with `crawl --profile stale auth status`, or store a new one with `crawl --profile stale auth login`');
    const inUse = await run('ci', ['keys', 'revoke', fx.sandbox.key.slice(0, 12), '--yes']);
    expect(inUse.code).toBe(2);
    expect(inUse.stderr).toContain('`crawl --profile ci keys rotate`');
    const getMissing = await run('nokey', ['config', 'get', 'api-key']);
    expect(getMissing.stderr).toContain('hint: run `crawl --profile nokey auth login`');
  });

  it('the default profile is not named', async () => {
    const r = await crawl(['job', 'demo-small'], { env: { CRAWL_CONFIG_DIR: folders.fresh() } });
    expect(r.stderr).toBe('crawl: no base URL configured\nhint: run `crawl config set base-url <url>`, set CRAWL_BASE_URL, or pass --base-url\n');
  });
});
