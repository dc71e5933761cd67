// The registrations and the work they name (src/commands/work.ts): every command the program
// declares runs the entry point its words name (`crawl auth logout` runs authLogoutRun), and every
// entry point is some command's.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/app/program.js';
import type { Exec, WorkName } from '../../src/commands/shared/exec.js';
import { work } from '../../src/commands/work.js';
import { testStreams } from '../../src/io/test-streams.js';

/** The whole program, with an exec that records which entry point a command's action asked for. */
function program(ran: string[], options: unknown[] = []) {
  const exec: Exec = (name) => async (o) => {
    ran.push(name);
    options.push(o);
  };
  return buildProgram({ streams: testStreams(), env: {}, exec: () => exec, onCommanderError: () => undefined, setExitCode: () => undefined });
}

/** Every command that runs work: the leaves of the tree, but `help` (the root's and each group's), which is the program's own. */
function leaves(command: CommandUnknownOpts, path: string[] = []): string[][] {
  return command.commands.flatMap((c) => {
    const words = [...path, c.name()];
    if (c.commands.length > 0) return leaves(c as CommandUnknownOpts, words);
    return c.name() === 'help' ? [] : [words];
  });
}

/** The naming rule: the command's words in camelCase, then Run (`__complete` is completeRun). */
function entryPointOf(words: readonly string[]): string {
  const camel = words.map((w, i) => (i === 0 ? w.replace(/^_+/, '') : w[0]!.toUpperCase() + w.slice(1))).join('');
  return `${camel}Run`;
}

/** Words that satisfy a command's required operands, where a bare `x` is refused by its own checks. */
const operands: Record<string, string[]> = { 'keys prune': ['--never-used'] };

function argvOf(command: CommandUnknownOpts, words: readonly string[]): string[] {
  let c = command;
  for (const w of words) c = c.commands.find((s) => s.name() === w) as CommandUnknownOpts;
  const given = operands[words.join(' ')];
  if (given !== undefined) return [...words, ...given];
  const choice = (a: (typeof c.registeredArguments)[number]) => a.argChoices?.[0] ?? 'x';
  return [...words, ...c.registeredArguments.filter((a) => a.required).map(choice)];
}

describe('commands and their work', async () => {
  const all = leaves((await program([])) as CommandUnknownOpts);

  it('finds the commands to check', () => {
    expect(all.map((w) => w.join(' '))).toEqual(expect.arrayContaining(['auth logout', 'job status', 'keys rotate', 'api', 'sandbox', '__complete']));
  });

  it.each(all.map((w) => [w.join(' '), w] as const))('`crawl %s` runs the entry point its words name', async (_name, words) => {
    const ran: string[] = [];
    const p = await program(ran);
    await p.parseAsync(argvOf(p as CommandUnknownOpts, words), { from: 'user' });
    expect(ran).toEqual([entryPointOf(words)]);
  });

  it('every entry point of the work is a function some command runs, and nothing else is loaded there', async () => {
    const names = Object.keys(work).sort();
    expect(names).toEqual(all.map(entryPointOf).sort());
    for (const name of names) expect(typeof (await work[name as WorkName]())).toBe('function');
  });

  it('the default command of `job` runs as jobStatusRun too; a mistyped command there runs no work at all', async () => {
    const ran: string[] = [];
    const options: unknown[] = [];
    await (await program(ran, options)).parseAsync(['job', 'demo-small'], { from: 'user' });
    await (await program(ran, options)).parseAsync(['job', 'status', 'stauts'], { from: 'user' });
    expect(ran).toEqual(['jobStatusRun', 'jobStatusRun']);
    expect(options).toEqual([
      { ids: ['demo-small'], exitStatus: false },
      { ids: ['stauts'], exitStatus: false },
    ]);
    // test/commands/job/subcommand-typo.test.ts has what the user sees.
    await expect((await program(ran, options)).parseAsync(['job', 'stauts'], { from: 'user' })).rejects.toThrow("unknown command 'stauts' for `crawl job`");
    expect(ran).toHaveLength(2);
  });

  it('a registration naming work that does not exist does not compile', () => {
    const exec: Exec = (name) => async () => void name;
    // @ts-expect-error -- no entry point of that name in commands/work.ts
    expect(typeof exec('jobListRun')).toBe('function');
  });
});
