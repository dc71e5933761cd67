// Hints that fit what people type, at the parser: a missing argument or an unknown flag names the
// help of the command reached, `-v` says which flag is the version, and `crawl --help` (or a bare
// `crawl`) begins with the first steps and examples. In this process; nothing is sent.
import { describe, expect, it } from 'vitest';
import { crawl } from '../support/harness.js';

describe('a usage error names the help of the command it came from', () => {
  it.each([
    [['job', 'status'], "crawl: missing required argument 'id'\nhint: run `crawl job status --help` for usage\n"],
    [['job', '--exit-status'], "crawl: missing required argument 'id'\nhint: run `crawl job status --help` for usage\n"],
    [['keys', 'revoke'], "crawl: missing required argument 'key'\nhint: run `crawl keys revoke --help` for usage\n"],
    [['keys', 'create'], "crawl: missing required argument 'name'\nhint: run `crawl keys create --help` for usage\n"],
    [['keys', 'list', '--frobnicate'], "crawl: unknown option '--frobnicate'\nhint: run `crawl keys list --help` for usage\n"],
    [['bogus'], "crawl: unknown command 'bogus'\nhint: run `crawl --help` for usage\n"],
  ])('crawl %j', async (argv, stderr) => {
    const r = await crawl(argv, { env: {} });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(stderr);
  });

  it('the command named carries the profile, as every suggested command does', async () => {
    const r = await crawl(['--profile', 'ci', 'keys', 'revoke'], { env: {} });
    expect(r.stderr).toContain('hint: run `crawl --profile ci keys revoke --help` for usage');
  });

  it('the named help exists: running it shows that command\'s usage', async () => {
    const r = await crawl(['job', 'status', '--help'], { env: {} });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: crawl job status /);
  });
});

describe('-v', () => {
  it.each([[['-v']], [['keys', 'list', '-v']]])('crawl %j: the version is -V (--version), the trace --verbose', async (argv) => {
    const r = await crawl(argv, { env: {} });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("crawl: unknown option '-v'\nhint: the version is -V (--version); an HTTP trace is --verbose\n");
  });
});

describe('crawl --help: getting started, then examples', () => {
  it.each([[['--help']], [[]], [['help']]])('crawl %j', async (argv) => {
    const r = await crawl(argv, { env: {} });
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(r.stdout).toMatch(/\nGetting started:\n/);
    expect(text).toContain('`crawl config set base-url <url>`');
    expect(text).toContain('`crawl auth login`');
    expect(text).toContain('`crawl sandbox`');
    expect(r.stdout.indexOf('Getting started:')).toBeLessThan(r.stdout.indexOf('Examples:'));
    expect(r.stdout).toMatch(/\n {2}\$ crawl keys list\n/);
  });

  it('fits a narrow terminal, and subcommands do not repeat it', async () => {
    const r = await crawl(['--help'], { env: {}, tty: true, columns: 50 });
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(50);
    const sub = await crawl(['keys', 'list', '--help'], { env: {} });
    expect(sub.stdout).not.toContain('Getting started:');
  });
});
