// Help and usage errors as a newcomer meets them: bare commands show their help on
// stdout (exit 0, as gh does); a mistyped command gets one line and a hint naming the whole
// command; help topics and descriptions wrap to the terminal (80 columns off one). In this process.
import { describe, expect, it } from 'vitest';
import { exitCodeTable } from '../../../src/exit-codes.js';
import { crawl } from '../../support/harness.js';

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

describe('a bare command shows its help on stdout, exit 0', () => {
  it.each([[[]], [['keys']], [['job']], [['config']], [['--no-color']]])('crawl %j', async (argv) => {
    const r = await crawl(argv, { env: {} });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: crawl/);
    expect(r.stdout).toMatch(/\nCommands:\n/);
  });

  it('`crawl job` with flags of its own still runs `job status` and says the id is missing', async () => {
    const r = await crawl(['job', '--exit-status'], { env: {} });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("crawl: missing required argument 'id'\nhint: run `crawl job status --help` for usage\n");
  });
});

describe('a mistyped command or flag: one line, and a hint with the whole command', () => {
  it.each([
    [['jbo'], "crawl: unknown command 'jbo'\nhint: did you mean `crawl job`?\n"],
    [['keys', 'lst'], "crawl: unknown command 'lst'\nhint: did you mean `crawl keys list`?\n"],
    // The suggestion carries the profile, as every suggested command does.
    [['--profile', 'ci', 'auth', 'stauts'], "crawl: unknown command 'stauts'\nhint: did you mean `crawl --profile ci auth status`?\n"],
    [['--jsn', 'keys', 'list'], "crawl: unknown option '--jsn'\nhint: did you mean --json?\n"],
    [['bogus'], "crawl: unknown command 'bogus'\nhint: run `crawl --help` for usage\n"],
  ])('crawl %j', async (argv, stderr) => {
    const r = await crawl(argv, { env: {} });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(stderr);
  });
});

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

describe('examples in command help', () => {
  it('comments wrapped and command lines broken at spaces outside quotes: each pastes back to the same command', async () => {
    const { formatExamples } = await import('../../../src/commands/shared/examples.js');
    const line = "crawl keys rotate --yes --keep-old --to-command 'vault kv put secret/crawl api-key=-'";
    for (const width of [40, 50, 80, 120]) {
      const text = formatExamples([['keys rolled over a window: the old one stays active until keys revoke retires it', line]], width);
      // Only a word longer than a line (a quoted argument is one) may stick out, alone on its row.
      for (const row of text.split('\n')) expect(row.length <= width || /^ {6}\S.*\S$/.test(row) && !/ \\$/.test(row), row).toBe(true);
      const command = text.slice(text.indexOf('  $ ') + 4).trimEnd().replace(/ \\\n {6}/g, ' ');
      expect(command).toBe(line);
    }
  });

  it('keys rotate --help shows the CI form first', async () => {
    const r = await crawl(['keys', 'rotate', '--help'], { env: {} });
    const examples = r.stdout.slice(r.stdout.indexOf('Examples:'));
    expect(examples.split('\n').find((row) => row.startsWith('  $ '))).toBe("  $ crawl keys rotate --yes --to-command 'gh secret set CRAWL_API_KEY'");
  });
});

describe('every command help', () => {
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
