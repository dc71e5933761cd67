// The words a newcomer meets: a job id that is a mistyped command, hints that name the
// profile in use, a mistyped profile reported as unknown. In this process, against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFolderWith } from '../../support/local-faults.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { crawl, tempDir } from '../../support/harness.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
/** A config whose profile "ci" holds the sandbox and a working key, "nokey" only the base URL. */
let config: { dir: string; file: string };
let revoked: string;
beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-words-');
  const gone = fx.sandbox.addKey('gone');
  revoked = gone.key;
  const res = await fetch(`${fx.sandbox.url}/api/keys/${gone.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${fx.sandbox.key}` } });
  expect(res.status).toBe(200);
  config = configFolderWith(tmp.dir, {
    profiles: {
      default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key },
      ci: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key },
      nokey: { 'base-url': fx.sandbox.url },
      stale: { 'base-url': fx.sandbox.url, 'api-key': revoked },
      nourl: {},
    },
  });
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

/** The config file only: no CRAWL_* from the fixture. */
const fromConfig = (extra: Record<string, string> = {}): Record<string, string> => ({ CRAWL_CONFIG_DIR: config.dir, ...extra });

describe('`crawl job <word>`: a job id that looks like a mistyped command', () => {
  // Refused before any request (exit 2); test/commands/job/subcommand-typo.test.ts has the forms with ids and flags.
  it.each([
    ['stauts', 'did you mean `crawl job status`? (for a job with this id: `crawl job status stauts`)'],
    ['wtach', 'did you mean `crawl job watch`? (for a job with this id: `crawl job status wtach`)'],
    ['page', 'did you mean `crawl job pages`? (for a job with this id: `crawl job status page`)'],
    ['delete', 'did you mean `crawl job cancel`? (for a job with this id: `crawl job status delete`)'],
    ['list', '`crawl job` has no list command; its commands are status, watch, pages, cancel (for a job with this id: `crawl job status list`)'],
  ])('crawl job %s: a usage error, and a hint', async (word, hint) => {
    const before = fx.sandbox.requests.length;
    const r = await crawl(['job', word], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`crawl: unknown command '${word}' for \`crawl job\`\nhint: ${hint}\n`);
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it('no hint for a word like no command, nor for `crawl job status <typo>`; a job of a command-like name by `job status`', async () => {
    fx.sandbox.addJob({ id: 'stats', status: 'completed', pagesTotal: 1 });
    const [other, named, real] = await Promise.all([
      crawl(['job', 'demo-nope'], { env: fx.env }),
      crawl(['job', 'status', 'stauts'], { env: fx.env }),
      crawl(['job', 'status', 'stats'], { env: fx.env }),
    ]);
    for (const r of [other, named]) {
      expect(r.code).toBe(3);
      expect(r.stderr).not.toContain('hint:');
    }
    expect(real.code).toBe(0);
  });

  it('the suggested command carries the profile', async () => {
    const r = await crawl(['--profile', 'ci', 'job', 'stauts'], { env: fromConfig() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('hint: did you mean `crawl --profile ci job status`?');
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
    const r = await crawl(['job', 'demo-small'], { env: { CRAWL_CONFIG_DIR: tempDir('crawl-words-empty-').dir } });
    expect(r.stderr).toBe('crawl: no base URL configured\nhint: run `crawl config set base-url <url>`, set CRAWL_BASE_URL, or pass --base-url\n');
  });
});

describe('a profile the config file does not have is unknown, not empty', () => {
  it.each([
    [['--profile', 'cii', 'keys', 'list'], {}, '--profile'],
    [['keys', 'list'], { CRAWL_PROFILE: 'cii' }, 'CRAWL_PROFILE'],
    [['config', 'list', '--profile', 'cii'], {}, '--profile'],
    [['auth', 'logout', '--profile', 'cii'], {}, '--profile'],
  ])('crawl %j', async (argv, env, from) => {
    const r = await crawl(argv, { env: fromConfig(env) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `crawl: unknown profile "cii" (from ${from}): the profiles in ${config.file} are "default", "ci", "nokey", "stale", "nourl"\n` +
        `hint: did you mean "ci" (${from === '--profile' ? '--profile ci' : 'CRAWL_PROFILE=ci'})? To create "cii": \`crawl --profile cii config set base-url <url>\`, then \`crawl --profile cii auth login\`\n`,
    );
  });

  it('is not needed when the environment gives the base URL and the key; a new profile can be created', async () => {
    const [envOnly, set] = await Promise.all([
      crawl(['--profile', 'cii', 'job', 'demo-small'], { env: fromConfig({ CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key }) }),
      crawl(['--profile', 'fresh', 'config', 'set', 'base-url', fx.sandbox.url], { env: fromConfig() }),
    ]);
    expect(envOnly.code).toBe(0);
    expect(set.code).toBe(0);
    const login = await crawl(['--profile', 'fresh', 'auth', 'login', '--with-key'], { env: fromConfig(), input: fx.sandbox.key });
    expect(login.code).toBe(0);
    const used = await crawl(['--profile', 'fresh', 'job', 'demo-small'], { env: fromConfig() });
    expect(used.code).toBe(0);
  });
});

describe('numbers out of range: a usage error naming the range in words', () => {
  it.each([
    [['job', 'watch', 'demo-small', '--interval', '0.1'], 'invalid --interval "0.1": give a number of seconds, from 0.5 to 86400 (a day); polling more often only loads the service'],
    [['job', 'cancel', 'demo-pending', '--wait', '--interval', '0.49'], 'invalid --interval "0.49": give a number of seconds, from 0.5 to 86400 (a day); polling more often only loads the service'],
    [['job', 'pages', 'demo-small', '--limit', '0'], 'invalid --limit "0": give a whole number, 1 or more'],
    [['job', 'pages', 'demo-small', '--limit', '-5'], 'invalid --limit "-5": give a whole number, 1 or more'],
    [['job', 'demo-small', '--timeout', '0'], 'invalid --timeout "0": give a number of seconds, more than 0 and at most 86400 (a day)'],
    [['job', 'demo-small', '--timeout', '90000'], 'invalid --timeout "90000": give a number of seconds, more than 0 and at most 86400 (a day)'],
    [['sandbox', '--port', '70000'], 'invalid --port "70000": give a whole number, from 0 to 65535'],
  ])('crawl %j', async (argv, message) => {
    const r = await crawl(argv, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(`crawl: ${message}`);
    expect(r.stderr).not.toContain('9007199254740991');
    expect(fx.sandbox.requests.some((q) => q.url.includes('demo-pending') && q.method === 'DELETE')).toBe(false);
  });

  it('0.5 s is allowed, and a --limit past what a number holds means all of them', async () => {
    const [watch, pages] = await Promise.all([
      crawl(['job', 'watch', 'demo-small', '--interval', '0.5'], { env: fx.env }),
      crawl(['job', 'pages', 'demo-small', '--limit', '99999999999999999999999'], { env: fx.env }),
    ]);
    expect(watch.code).toBe(0);
    expect(pages.code).toBe(0);
    expect(pages.stdout.trim().split('\n')).toHaveLength(42);
  });
});
