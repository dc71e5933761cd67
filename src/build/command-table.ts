// The command table and the completion tree, made from the command modules: a run builds only the
// commands its line names (src/app/program.ts), and lists the others, in a group's help and in
// commander's suggestions, from the table; `crawl __complete` offers words from the tree. Both are
// what the modules declare, read off the whole program built here: `npm run build` rewrites them
// when a module changes (before bundling, and in dist/ for the man pages and docs made from the
// help), and the test of this module fails while the committed files differ.
import { join } from 'node:path';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { buildProgram } from '../app/program.js';
import { groups, rootCommands, type CommandFacts, type Registration } from '../commands/index.js';
import { treeOf } from '../commands/completion/completion.js';
import type { CommandNode } from '../commands/completion/lib/complete.js';
import { testStreams } from '../io/test-streams.js';
import { ROOT } from './paths.js';

/** Each generated module: where it lives in src/, and its text. */
export interface Generated {
  path: string;
  text: string;
}

export const COMMAND_TABLE_FILE = join(ROOT, 'src', 'commands', 'command-table.ts');
export const COMPLETION_TREE_FILE = join(ROOT, 'src', 'commands', 'completion', 'completion-tree.ts');

const HEADER = (what: string): string =>
  `// ${what}.\n` +
  '// Made by `npm run build` from the command modules (src/build/command-table.ts), not by hand:\n' +
  '// the build rewrites it, and its test fails while it differs from the modules.\n';

/** Both modules, as the command modules declare the program today. */
export async function commandTable(): Promise<Generated[]> {
  // Every command built, none run.
  const program = (await buildProgram({ streams: testStreams(), env: {}, exec: () => () => async () => undefined, onCommanderError: () => undefined, setExitCode: () => undefined })) as CommandUnknownOpts;
  const help = program.createHelp();
  const facts: Array<[string, CommandFacts]> = [];
  const visit = (parent: CommandUnknownOpts, path: readonly string[], registrations: readonly Registration[]): void => {
    for (const registration of registrations) {
      const command = parent.commands.find((c) => c.name() === registration.name);
      if (command === undefined) throw new Error(`${['crawl', ...path, registration.name].join(' ')}: its module names its command otherwise (\`new Command('${registration.name}')\` expected)`);
      facts.push([[...path, registration.name].join(' '), { aliases: command.aliases(), description: help.subcommandDescription(command), term: help.subcommandTerm(command) }]);
    }
  };
  for (const group of groups) visit(program.commands.find((c) => c.name() === group.name) as CommandUnknownOpts, [group.name], group.commands);
  visit(program, [], rootCommands);
  const table =
    HEADER('What help lists of a command a run has not built') +
    "import type { CommandFacts } from './shared/exec.js';\n\n" +
    `export const COMMAND_TABLE: Readonly<Record<string, CommandFacts>> = ${literal(Object.fromEntries(facts))};\n`;
  const tree =
    HEADER('The program as completion walks it') +
    "import type { CommandNode } from './lib/complete.js';\n\n" +
    `export const COMPLETION_TREE: CommandNode = ${literal(withDefaults(treeOf(program)))};\n`;
  return [
    { path: COMMAND_TABLE_FILE, text: table },
    { path: COMPLETION_TREE_FILE, text: tree },
  ];
}

/** The tree, with each group's default command (its registration says which) named on the group. */
function withDefaults(tree: CommandNode): CommandNode {
  return {
    ...tree,
    commands: tree.commands.map((command) => {
      const named = groups.find((group) => group.name === command.name)?.commands.find((registration) => registration.isDefault)?.name;
      return named === undefined ? command : { ...command, defaultCommand: named };
    }),
  };
}

/**
 * A value as TypeScript source, one property a line: keys whose value is undefined are written
 * (the types name them), which JSON would drop.
 */
function literal(value: unknown, indent = ''): string {
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item !== 'object' || item === null)) return `[${value.map((item) => literal(item)).join(', ')}]`;
    const inner = indent + '  ';
    return `[\n${value.map((item) => `${inner}${literal(item, inner)},\n`).join('')}${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const inner = indent + '  ';
    const entries = Object.entries(value).map(([key, item]) => `${inner}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${literal(item, inner)},\n`);
    return entries.length === 0 ? '{}' : `{\n${entries.join('')}${indent}}`;
  }
  return JSON.stringify(value);
}
