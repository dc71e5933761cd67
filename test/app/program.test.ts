// The program (src/app/program.ts): the global flags, before or after the subcommand; a bare
// command's help; usage errors from the parser (exit 2, one line, and a hint naming the help of the
// command reached or the command meant, no stack trace); `-v`; and `crawl --help`'s first steps.
// A run builds only the commands its line names, and lists the others as building them would.
// In this process; nothing is sent.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, globalsOf } from '../../src/app/program.js';
import { NO_GLOBAL_FLAGS } from '../../src/commands/shared/global-defaults.js';
import type { GlobalOptions } from '../../src/deps.js';
import { testStreams } from '../../src/io/test-streams.js';
import { crawl, runCli } from '../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

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

describe('a bare command shows its help on stdout, exit 0', () => {
  it.each([[[]], [['keys']], [['job']], [['config']], [['--no-color']]])('crawl %j', async (argv) => {
    const r = await crawl(argv, { env: {} });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: crawl/);
    expect(r.stdout).toMatch(/\nCommands:\n/);
  });
});

describe('usage errors: exit 2, one line, and a hint naming the help or the command meant', () => {
  it.each([
    // The help of the command reached: its arguments and flags are what was missing or mistyped.
    [['job', 'status'], "crawl: missing required argument 'id'\nhint: run `crawl job status --help` for usage\n"],
    [['job', 'watch'], "crawl: missing required argument 'id'\nhint: run `crawl job watch --help` for usage\n"],
    // `crawl job` with flags of its own still runs `job status`, and says the id is missing.
    [['job', '--exit-status'], "crawl: missing required argument 'id'\nhint: run `crawl job status --help` for usage\n"],
    [['keys', 'revoke'], "crawl: missing required argument 'key'\nhint: run `crawl keys revoke --help` for usage\n"],
    [['keys', 'create'], "crawl: missing required argument 'name'\nhint: run `crawl keys create --help` for usage\n"],
    [['keys', 'list', '--frobnicate'], "crawl: unknown option '--frobnicate'\nhint: run `crawl keys list --help` for usage\n"],
    // An unknown flag, before or after the subcommand.
    [['--bogus', 'job', 'demo-small'], "crawl: unknown option '--bogus'\nhint: run `crawl --help` for usage\n"],
    [['job', 'demo-small', '--bogus'], "crawl: unknown option '--bogus'\nhint: run `crawl job status --help` for usage\n"],
    [['bogus'], "crawl: unknown command 'bogus'\nhint: run `crawl --help` for usage\n"],
    // A flag given without its value: the help of the command the words name, a global flag's too.
    [['job', 'demo-small', '--jq'], "crawl: option '-q, --jq <filter>' argument missing\nhint: run `crawl job status --help` for usage\n"],
    [['--timeout', '5', 'keys', 'list', '--profile'], "crawl: option '--profile <name>' argument missing\nhint: run `crawl keys list --help` for usage\n"],
    [['keys', 'prune', '--unused-for'], "crawl: option '--unused-for <duration>' argument missing\nhint: run `crawl keys prune --help` for usage\n"],
    [['keys', '--jq'], "crawl: option '-q, --jq <filter>' argument missing\nhint: run `crawl keys --help` for usage\n"],
    [['--jq'], "crawl: option '-q, --jq <filter>' argument missing\nhint: run `crawl --help` for usage\n"],
    // gh, npm and go have a version command; crawl has the flag.
    [['version'], "crawl: unknown command 'version'\nhint: did you mean `crawl --version`?\n"],
    // A word near a command or a flag: the whole command meant.
    [['jbo'], "crawl: unknown command 'jbo'\nhint: did you mean `crawl job`?\n"],
    [['keys', 'lst'], "crawl: unknown command 'lst'\nhint: did you mean `crawl keys list`?\n"],
    // The suggestion carries the profile, as every suggested command does.
    [['--profile', 'ci', 'auth', 'stauts'], "crawl: unknown command 'stauts'\nhint: did you mean `crawl --profile ci auth status`?\n"],
    [['--jsn', 'keys', 'list'], "crawl: unknown option '--jsn'\nhint: did you mean --json?\n"],
    // gh's `run watch --exit-status`: crawl's watch always exits with the job's code.
    [['job', 'watch', 'demo-small', '--exit-status'], "crawl: unknown option '--exit-status'\nhint: `crawl job watch` always exits with the job's code (0 completed, 10-13 errored or cancelled, 7 at --max-wait): leave --exit-status out\n"],
  ])('crawl %j', async (argv, stderr) => {
    const r = await runCli(argv, { env: {} });
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

it('a line without global flags gets the flags a run without the program gets (Tab\'s completions)', async () => {
  const seen: GlobalOptions[] = [];
  const streams = testStreams({ columns: 80 });
  for (const argv of [['config', 'path'], ['job', 'demo-small']]) {
    const program = await buildProgram({ streams, env: {}, exec: (root) => () => async () => void seen.push(globalsOf(root)), onCommanderError: () => undefined, setExitCode: () => undefined }, argv);
    await program.parseAsync(argv, { from: 'user' });
  }
  expect(seen).toEqual([NO_GLOBAL_FLAGS, NO_GLOBAL_FLAGS]);
});

describe('a run builds the commands its line names, and only those', () => {
  /** The program a line builds (all of it without one), and the help it prints for `words`. */
  async function built(argv: string[] | undefined, words: string[] = []) {
    const streams = testStreams({ columns: 80 });
    const program = (await buildProgram({ streams, env: {}, exec: () => () => async () => undefined, onCommanderError: () => undefined, setExitCode: () => undefined }, argv)) as CommandUnknownOpts;
    if (words.length > 0) await program.parseAsync(words, { from: 'user' }).catch(() => undefined);
    const find = (...path: string[]): CommandUnknownOpts => path.reduce((c, name) => c.commands.find((s) => s.name() === name) as CommandUnknownOpts, program);
    return { help: streams.stdoutText(), find };
  }

  it('builds the command it runs, and lists the others without their flags', async () => {
    const { find } = await built(['keys', 'create', 'ci', '--save']);
    expect(find('keys', 'create').options.map((o) => o.long)).toContain('--save');
    for (const other of [['keys', 'list'], ['keys', 'rotate'], ['api']]) expect(find(...other).options, other.join(' ')).toEqual([]);
    // A group the line does not name is listed by the root alone: commander never reaches its commands.
    expect(find('job').commands).toEqual([]);
  });

  it("a group's default command is built when the group is named (`crawl job <id>` runs it)", async () => {
    const { find } = await built(['job', 'demo-small']);
    expect(find('job', 'status').options.map((o) => o.long)).toEqual(['--exit-status']);
    expect(find('job', 'watch').options).toEqual([]);
    // `status` in another group's line builds only that group's.
    const auth = await built(['auth', 'status']);
    expect(auth.find('job').commands).toEqual([]);
    // Help of the group is its own, before any dispatch to the default: the default is listed, not built.
    for (const help of [['job', '--help'], ['job', 'demo-small', '-h']]) expect((await built(help)).find('job', 'status').options, help.join(' ')).toEqual([]);
    // Unless `-h` is a global flag's value, or follows `--`: then `crawl job <id>` runs.
    for (const run of [['job', 'demo-small', '--profile', '-h'], ['job', '--', '-h']]) expect((await built(run)).find('job', 'status').options.length, run.join(' ')).toBeGreaterThan(0);
  });

  it.each([[['--help']], [['job', '--help']], [['keys', '--help']], [['help', 'config']], [['api', '--help']]])('%j: the same help as the whole program', async (words) => {
    const [lazy, whole] = await Promise.all([built(words, words), built(undefined, words)]);
    expect(lazy.help).not.toBe('');
    expect(lazy.help).toBe(whole.help);
  });
});
