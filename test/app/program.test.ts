// Help topics, global flags anywhere on the line, and usage errors: exit 2, one message, no stack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeTable } from '../../src/exit-codes.js';
import { crawl, runCli } from '../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

/** A usage error as the contract wants it: `crawl: <message>`, at most a hint line, nothing else. */
function expectUsageError(r: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines[0]).toMatch(message);
  expect(lines.length).toBeLessThanOrEqual(2);
  if (lines[1] !== undefined) expect(lines[1]).toMatch(/^hint: /);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:|node:internal/);
}

describe('help topics', () => {
  it('`crawl help exit-codes` lists every code with its meaning', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    // A meaning too long for the 80 columns goes on under itself: one entry a code.
    // The table; after a blank line, the rule for several jobs.
    const entries = (r.stdout.split('\n\n')[0] ?? '').replace(/\n +/g, ' ').split('\n').slice(1).filter(Boolean);
    const codes = entries.map((line) => Number(line.split(/\s+/)[0]));
    expect(codes).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 130, 143]);
    for (const [code, meaning] of exitCodeTable) expect(entries).toContainEqual(expect.stringMatching(new RegExp(`^${code}\\s+${escape(meaning)}$`)));
    // Then the rules the table does not show: several jobs, cancelling an ended job, and a --jq filter's own halt.
    const rules = r.stdout.split('\n\n').slice(1).map((rule) => rule.replace(/\n/g, ' ').trim());
    expect(rules).toEqual([expect.stringMatching(/^With several ids, /), expect.stringMatching(/^`job cancel` of a job already cancelled /), expect.stringMatching(/^A `--jq` filter that calls `halt_error\(N\)` ends crawl with N /)]);
  });

  it('`crawl help environment` lists the variables', async () => {
    const r = await runCli(['help', 'environment']);
    expect(r.code).toBe(0);
    for (const name of ['CRAWL_BASE_URL', 'CRAWL_API_KEY', 'CRAWL_PROFILE', 'CRAWL_CONFIG_DIR', 'XDG_CONFIG_HOME', 'NO_COLOR', 'FORCE_COLOR', 'HTTPS_PROXY', 'NO_PROXY']) {
      expect(r.stdout).toMatch(new RegExp(`^${name}\\b`, 'm'));
    }
  });

  it('help on a command, --help, --version; an unknown topic is a usage error', async () => {
    const [cmd, flag, version, unknown] = await Promise.all([
      runCli(['help', 'job', 'watch']),
      runCli(['job', 'watch', '--help']),
      runCli(['--version']),
      runCli(['help', 'nonsense']),
    ]);
    expect(cmd.code).toBe(0);
    expect(cmd.stdout).toContain('--max-wait <seconds>');
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain('--interval <seconds>');
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expectUsageError(unknown, /^crawl: unknown help topic "nonsense"$/);
    const json = await runCli(['help', 'nonsense', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { message: 'unknown help topic "nonsense"', exitCode: 2 } });
  });
});

describe('global flags before or after the subcommand', () => {
  it.concurrent('--json', async ({ expect }) => {
    const [before, after] = await Promise.all([
      runCli(['--json', 'job', 'status', 'demo-small'], { env: fx.env }),
      runCli(['job', 'status', 'demo-small', '--json'], { env: fx.env }),
    ]);
    for (const r of [before, after]) {
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).job.id).toBe('demo-small');
    }
  });

  it.concurrent('--base-url and --timeout', async ({ expect }) => {
    const env = { ...fx.env, CRAWL_BASE_URL: 'http://127.0.0.1:9/' };
    const [before, after] = await Promise.all([
      runCli(['--base-url', fx.sandbox.url, '--timeout', '5', 'job', 'demo-small'], { env }),
      runCli(['job', 'demo-small', '--timeout', '5', '--base-url', fx.sandbox.url], { env }),
    ]);
    for (const r of [before, after]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('id\tdemo-small\n');
    }
  });

  it.concurrent('--no-color and --profile', async ({ expect }) => {
    const [before, after] = await Promise.all([
      runCli(['--no-color', '--profile', 'p1', 'job', 'demo-small'], { env: fx.env, tty: true }),
      runCli(['job', 'demo-small', '--no-color', '--profile', 'p1'], { env: fx.env, tty: true }),
    ]);
    for (const r of [before, after]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Status\s+completed/);
      expect(r.stdout).not.toMatch(/\u001b\[\d+m/);
    }
  });
});

describe('usage errors: exit 2, one line (and a hint), no stack trace', () => {
  it.concurrent('an unknown command', async () => {
    expectUsageError(await runCli(['bogus'], { env: fx.env }), /^crawl: unknown command 'bogus'$/);
  });

  it.concurrent('an unknown flag, before or after the subcommand', async () => {
    const [before, after] = await Promise.all([
      runCli(['--bogus', 'job', 'demo-small'], { env: fx.env }),
      runCli(['job', 'demo-small', '--bogus'], { env: fx.env }),
    ]);
    expectUsageError(before, /^crawl: unknown option '--bogus'$/);
    expectUsageError(after, /^crawl: unknown option '--bogus'$/);
  });

  it.concurrent('a missing argument and a bad flag value', async () => {
    const [missing, timeout, interval] = await Promise.all([
      runCli(['job', 'watch'], { env: fx.env }),
      runCli(['--timeout', 'soon', 'job', 'demo-small'], { env: fx.env }),
      runCli(['job', 'watch', 'demo-small', '--interval', '0'], { env: fx.env }),
    ]);
    expectUsageError(missing, /^crawl: missing required argument 'id'$/);
    expectUsageError(timeout, /^crawl: invalid --timeout "soon"/);
    expectUsageError(interval, /^crawl: invalid --interval "0"/);
  });

  it.concurrent('with --json, a usage error is one JSON line on stderr', async ({ expect }) => {
    const r = await runCli(['job', 'demo-small', '--bogus', '--json'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toEqual({ error: { message: "unknown option '--bogus'", httpStatus: null, exitCode: 2 } });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('hints at the parser', () => {
  // Hints that fit what people type, at the parser: a missing argument or an unknown flag names the
  // help of the command reached, `-v` says which flag is the version, and `crawl --help` (or a bare
  // `crawl`) begins with the first steps and examples. In this process; nothing is sent.
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
});
