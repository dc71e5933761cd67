// docs/commands.md, the command reference: every command's help as the CLI prints it off a
// terminal, and the help topics. `npm run docs` writes it (docs.ts); the test of this module fails
// when the committed file is not what the help makes, so the reference cannot drift from the help.
import { join } from 'node:path';
import { commandHelps, commandsIn, helpOf, type HelpLayout } from './help-text.js';
import { ROOT } from './paths.js';

export const COMMANDS_DOC = join(ROOT, 'docs', 'commands.md');

/** Off a terminal, where help is 80 columns wide: the same on every machine. */
const LAYOUT: HelpLayout = { columns: 80, terminal: false };

const TOPICS = ['exit-codes', 'environment'] as const;

/** GitHub's anchor for a heading made of words and spaces. */
const anchor = (heading: string): string => heading.toLowerCase().replace(/ /g, '-');

const fenced = (help: string): string => '```text\n' + help.trimEnd() + '\n```';

export async function commandsDoc(): Promise<string> {
  const { root, groups, commands } = await commandHelps(LAYOUT);
  const title = (words: readonly string[]): string => ['crawl', ...words].join(' ');
  const link = (words: readonly string[], text = title(words)): string => `[${text}](#${anchor(title(words))})`;
  const contents = [`- ${link([])}`];
  const sections = [`## crawl\n\n${fenced(root)}`];
  // In the order `crawl --help` lists them: a group, then each of its commands.
  for (const name of commandsIn(root)) {
    const group = groups.find(({ words }) => words[0] === name);
    const own = commands.filter(({ words }) => words[0] === name);
    if (!group) {
      for (const command of own) {
        contents.push(`- ${link(command.words)}`);
        sections.push(`## ${title(command.words)}\n\n${fenced(command.help)}`);
      }
      continue;
    }
    contents.push(`- ${link(group.words)}: ${own.map(({ words }) => link(words, words.at(-1))).join(', ')}`);
    sections.push(`## ${title(group.words)}\n\n${fenced(group.help)}`);
    for (const command of own) sections.push(`### ${title(command.words)}\n\n${fenced(command.help)}`);
  }
  for (const topic of TOPICS) {
    contents.push(`- ${link(['help', topic])}`);
    sections.push(`## ${title(['help', topic])}\n\n${fenced(await helpOf(['help', topic], LAYOUT))}`);
  }
  return (
    [
      '# Command reference',
      '<!-- Made by `npm run docs` from the help the CLI prints (src/build/commands-doc.ts). Do not edit\n' +
        'by hand: change the help, then run `npm run docs`; the tests fail while this file differs. -->',
      "Every command's help as `crawl <command> --help` (or `crawl help <command>`) prints it off a\n" +
        'terminal, and the two help topics. The man pages (`man crawl-job-watch`) hold the same text.\n' +
        'What each command does in more words: the guides listed in the [README](../README.md#documentation).',
      contents.join('\n'),
      ...sections,
    ].join('\n\n') + '\n'
  );
}
