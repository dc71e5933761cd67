// `crawl help` (src/commands/help/help.ts): the topics (exit codes, the environment), a command's
// help the same as its --help, and help that wraps to the terminal (80 columns off one). In this
// process. A bare command's help and the usage errors of the parser: test/app/program.test.ts.
import { describe, expect, it } from 'vitest';
import { exitCodeTable } from '../../../src/exit-codes.js';
import { crawl, runCli } from '../../support/harness.js';

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
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toBe('crawl: unknown help topic "nonsense"\nhint: topics: exit-codes, environment, or a command name\n');
    const json = await runCli(['help', 'nonsense', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { message: 'unknown help topic "nonsense"', exitCode: 2 } });
  });

  it('a mistyped topic or command gets the line meant; a group\'s own `help <command>` is `crawl help <group> <command>`', async () => {
    const [topic, command, inGroup, unknownInGroup] = await Promise.all([
      runCli(['help', 'exit-code']),
      runCli(['help', 'keys', 'lst']),
      runCli(['job', 'help', 'pgaes']),
      runCli(['keys', 'help', 'nope']),
    ]);
    expect([topic.code, topic.stdout, topic.stderr]).toEqual([2, '', 'crawl: unknown help topic "exit-code"\nhint: did you mean `crawl help exit-codes`?\n']);
    expect([command.code, command.stderr]).toEqual([2, 'crawl: unknown help topic "keys lst"\nhint: did you mean `crawl help keys list`?\n']);
    expect([inGroup.code, inGroup.stdout, inGroup.stderr]).toEqual([2, '', 'crawl: unknown help topic "job pgaes"\nhint: did you mean `crawl help job pages`?\n']);
    expect([unknownInGroup.code, unknownInGroup.stderr]).toEqual([2, 'crawl: unknown help topic "keys nope"\nhint: run `crawl keys --help` for its commands\n']);
    // What it knows, it shows as `crawl help` does: a command's help, or the group's.
    const [own, viaHelp, group, groupViaHelp] = await Promise.all([
      runCli(['job', 'help', 'status']),
      runCli(['help', 'job', 'status']),
      runCli(['keys', 'help']),
      runCli(['help', 'keys']),
    ]);
    expect(own).toMatchObject({ code: 0, stderr: '' });
    expect(own.stdout).toContain('Usage: crawl job status');
    expect(own.stdout).toBe(viaHelp.stdout);
    expect(group).toMatchObject({ code: 0, stderr: '' });
    expect(group.stdout).toBe(groupViaHelp.stdout);
    // The group's help command is no command of the group; `-h` after it is the group's help.
    const [helpOfHelp, asked] = await Promise.all([runCli(['help', 'job', 'help']), runCli(['job', 'help', '-h'])]);
    expect([helpOfHelp.code, helpOfHelp.stderr]).toEqual([2, 'crawl: unknown help topic "job help"\nhint: run `crawl job --help` for its commands\n']);
    expect(asked).toMatchObject({ code: 0, stdout: (await runCli(['job', '--help'])).stdout });
  });

  it('`crawl help environment`: a relative XDG_CONFIG_HOME is ignored, spaces and line breaks around CRAWL_API_KEY too', async () => {
    const r = await runCli(['help', 'environment']);
    expect(r.stdout.replace(/\n +/g, ' ')).toMatch(/XDG_CONFIG_HOME\s+base of the default config folder; ignored unless an absolute path/);
    expect(r.stdout.replace(/\n +/g, ' ')).toMatch(/CRAWL_API_KEY\s+.*spaces and line breaks around it are ignored/);
  });
});

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

describe('help that fits', () => {
  it.each([50, 64, 100, 160])('`crawl help exit-codes` and `environment` on a terminal %i columns wide', async (columns) => {
    for (const topic of ['exit-codes', 'environment']) {
      const r = await crawl(['help', topic], { env: {}, tty: true, columns });
      expect(r.code).toBe(0);
      for (const line of lines(r.stdout)) expect(line.length, line).toBeLessThanOrEqual(columns);
    }
    const r = await crawl(['help', 'exit-codes'], { env: {}, tty: true, columns });
    // The table, then a paragraph on several jobs.
    const [table = '', rule = ''] = r.stdout.split('\n\n');
    expect(rule.replace(/\n/g, ' ')).toMatch(/^With several ids, `job watch` and `job status --exit-status` exit with the worst code/);
    const entries = table.replace(/\n +/g, ' ').split('\n').slice(1).filter(Boolean);
    expect(entries).toEqual(exitCodeTable.map(([code, meaning]) => expect.stringMatching(new RegExp(`^${code} +${meaning.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))));
    expect(entries.at(-1)).toMatch(/^143 +terminated \(SIGTERM\)$/);
  });

  it('off a terminal: 80 columns, however wide the terminal that asked', async () => {
    for (const argv of [['help', 'environment'], ['keys', 'rotate', '--help'], ['--help']]) {
      const r = await crawl(argv, { env: {}, columns: 200 });
      for (const line of lines(r.stdout)) expect(line.length, line).toBeLessThanOrEqual(80);
    }
  });

  it('command help wraps its descriptions on a narrow terminal too', async () => {
    for (const argv of [['keys', 'rotate', '--help'], ['job', 'pages', '--help'], ['--help']]) {
      const r = await crawl(argv, { env: {}, tty: true, columns: 50 });
      expect(r.code).toBe(0);
      for (const line of lines(r.stdout)) expect(line.length, line).toBeLessThanOrEqual(50);
    }
  });
});

describe('every command help', () => {
  it('each group\'s help, as the root\'s, ends with examples too', async () => {
    const groups = ['job', 'keys', 'auth', 'config'];
    for (const words of [[], ...groups.map((g) => [g])]) {
      const help = (await crawl([...words, '--help'], { env: {} })).stdout;
      expect(help, `crawl ${words.join(' ')}`).toContain('\nExamples:\n');
      // The last section: comments, commands and their continued lines, to the end.
      const examples = help.slice(help.indexOf('\nExamples:\n') + '\nExamples:\n'.length);
      for (const line of examples.trimEnd().split('\n')) expect(line, `crawl ${words.join(' ')}`).toMatch(/^ {2}[#$] | {6}\S/);
      // Two or three, each naming a command of the group.
      const lines = examples.split('\n').filter((line) => line.startsWith('  $ '));
      expect(lines.length, words.join(' ')).toBeGreaterThanOrEqual(2);
      for (const line of lines) expect(line, line).toContain(['crawl', ...words].join(' '));
    }
  });

  it('ends with examples and lists the global flags it takes', async () => {
    const commandsIn = (help: string): string[] =>
      (help.split(/\n(?=\S)/).find((part) => part.startsWith('Commands:')) ?? '')
        .split('\n')
        .slice(1)
        .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
        .filter((name): name is string => name !== undefined && name !== 'help');
    const leaves: string[][] = [];
    for (const group of commandsIn((await crawl(['--help'], { env: {} })).stdout)) {
      const subs = commandsIn((await crawl([group, '--help'], { env: {} })).stdout);
      if (subs.length === 0) leaves.push([group]);
      for (const sub of subs) leaves.push([group, sub]);
    }
    expect(leaves.length).toBeGreaterThan(20);
    for (const words of leaves) {
      const help = (await crawl([...words, '--help'], { env: {} })).stdout;
      expect(help, words.join(' ')).toMatch(/\nGlobal Options:\n(.*\n)* {2}--json /);
      expect(help, words.join(' ')).toMatch(/\nExamples:\n( {2}# .*\n)+ {2}\$ .*crawl /);
      // Two or three, as gh shows them.
      const examples = help.slice(help.indexOf('\nExamples:\n')).split('\n').filter((line) => line.startsWith('  $ '));
      expect(examples.length, words.join(' ')).toBeGreaterThanOrEqual(2);
    }
  });

  it('`crawl help <command>` is the same text as `<command> --help`, for the root, each group and each command', async () => {
    const all: string[][] = [[]];
    const groups = ['job', 'keys', 'auth', 'config', 'api', 'sandbox', 'completion'];
    for (const group of groups) {
      all.push([group]);
      const help = (await crawl([group, '--help'], { env: {} })).stdout;
      const commands = (help.split(/\n(?=\S)/).find((part) => part.startsWith('Commands:')) ?? '').split('\n').slice(1);
      for (const line of commands) {
        const name = /^ {2}(\S+)/.exec(line)?.[1];
        if (name !== undefined && name !== 'help') all.push([group, name]);
      }
    }
    expect(all.length).toBeGreaterThan(25);
    for (const words of all) {
      for (const tty of [false, true]) {
        const [flag, topic] = await Promise.all([
          crawl([...words, '--help'], { env: {}, tty, columns: 72 }),
          crawl(['help', ...words], { env: {}, tty, columns: 72 }),
        ]);
        expect(topic.stdout, `crawl help ${words.join(' ')}`).toBe(flag.stdout);
        expect([topic.code, flag.code]).toEqual([0, 0]);
      }
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
