// `crawl job <word> ...`: a first word near a command of the group, a synonym of one, or a word for
// what the service cannot do is a mistyped command, with ids or flags after it or not: refused
// (exit 2) with "did you mean" and the whole command, before anything is sent. In this process,
// against the sandbox, whose request log shows that nothing was asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { crawl } from '../../support/harness.js';
import { configFolders } from '../../support/settings.js';

let fx: SandboxFixture;
const folders = configFolders('crawl-job-typo-');
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(async () => {
  folders.cleanup();
  await fx.close();
});

describe('a mistyped job command: a hint in every form, and no request', () => {
  it.each([
    [['wtach'], 'crawl job watch'],
    [['wtach', 'demo-small'], 'crawl job watch demo-small'],
    [['cancle', 'demo-running'], 'crawl job cancel demo-running'],
    [['delete', 'demo-running'], 'crawl job cancel demo-running'],
    [['rm', 'demo-running', '--yes'], 'crawl job cancel demo-running --yes'],
    [['page', 'demo-small', '--output', 'p.ndjson'], 'crawl job pages demo-small --output p.ndjson'],
    [['stauts', 'demo-small', 'demo-errored'], 'crawl job status demo-small demo-errored'],
    [['--exit-status', 'stauts', 'demo-small'], 'crawl job status --exit-status demo-small'],
    [['WATCH', 'demo-small'], 'crawl job watch demo-small'],
  ])('crawl job %j', async (words, meant) => {
    const before = fx.sandbox.requests.length;
    const r = await crawl(['job', ...words], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const word = words.find((w) => !w.startsWith('-')) ?? '';
    expect(r.stderr).toBe(`crawl: unknown command '${word}' for \`crawl job\`\nhint: did you mean \`${meant}\`? (for a job with this id: \`crawl job status ${word}\`)\n`);
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it('a word for what crawl job cannot do lists its commands, without a request', async () => {
    const before = fx.sandbox.requests.length;
    const r = await crawl(['job', 'list', '--json'], { env: fx.env, tty: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'list' for `crawl job`");
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it('the suggestion carries the profile, and quotes what the shell would read otherwise', async () => {
    const r = await crawl(['--profile', 'ci', 'job', 'wtach', "it's"], { env: { ...fx.env, CRAWL_CONFIG_DIR: '/nonexistent-crawl-config' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("hint: did you mean `crawl --profile ci job watch 'it'\\''s'`?");
  });

  it('an id that is no command word is read as an id; a job named like a command is reached with `job status`', async () => {
    fx.sandbox.addJob({ id: 'stats', status: 'completed', pagesTotal: 1 });
    const plain = await crawl(['job', 'demo-small'], { env: fx.env });
    expect(plain.code).toBe(0);
    const named = await crawl(['job', 'status', 'stats'], { env: fx.env });
    expect(named.code).toBe(0);
    const typo = await crawl(['job', 'status', 'stauts'], { env: fx.env });
    expect(typo.code).toBe(3);
  });
});

describe('`crawl job <word>` alone: a job id that looks like a mistyped command', () => {
  // Refused before any request (exit 2); the forms with ids and flags are above.
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
    const r = await crawl(['--profile', 'ci', 'job', 'stauts'], { env: { CRAWL_CONFIG_DIR: folders.with({ ci: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key } }) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('hint: did you mean `crawl --profile ci job status`?');
  });
});

describe('`help` after a group word shows the help, as `crawl help <group> <command>` does', () => {
  it.each([
    [['job', 'help', 'status'], ['help', 'job', 'status']],
    [['keys', 'help', 'rotate'], ['help', 'keys', 'rotate']],
    [['auth', 'help', 'login'], ['help', 'auth', 'login']],
    [['job', 'help'], ['help', 'job']],
  ])('crawl %j', async (argv, same) => {
    const before = fx.sandbox.requests.length;
    const [r, expected] = await Promise.all([crawl(argv, { env: fx.env }), crawl(same, { env: fx.env })]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(expected.stdout);
    expect(r.stdout).toMatch(/^Usage: crawl /);
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it('the groups\' help lists no `help` command of their own', async () => {
    for (const group of ['job', 'keys', 'auth', 'config']) {
      const r = await crawl([group, '--help'], { env: {} });
      expect(r.stdout).not.toMatch(/^\s+help\b/m);
    }
  });
});
